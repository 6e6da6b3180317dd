// The grader's call driver for C++ (evaluator/harness/native_call.py joins it after the
// program, with MC_CALL_TARGET and MC_OUTPUT_ARG defined before it). One test per run: the
// test's arguments arrive on stdin, one JSON value per non-blank line; the target (a method
// of a fresh object of its class, or a free function) is called with them; the JSON of its
// return value (or, for an in-place problem, of argument MC_OUTPUT_ARG after the call) is
// written to the run's stdout. What the program itself prints goes to stderr: the answer is
// the return value, not the program's output. C++17 (if constexpr, fold expressions).
#undef int  // a contest habit (`#define int long long`) must not reach the driver's own types
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <unistd.h>

namespace mc_call_driver {

[[noreturn]] inline void fail(const std::string& why) {
    std::fflush(stdout);
    std::fprintf(stderr, "call driver: %s\n", why.c_str());
    std::exit(3);
}

// --- reading the arguments ------------------------------------------------------------------

struct Value {
    enum Kind { NUL, BOOL, NUMBER, STRING, ARRAY } kind = NUL;
    bool flag = false;
    std::string text;          // a number's text, or a string's bytes (UTF-8)
    std::vector<Value> items;  // an array's items
};

class Parser {
  public:
    explicit Parser(const std::string& text) : s_(text) {}

    Value document() {
        Value value = next();
        skip();
        if (i_ != s_.size()) fail("text after the JSON value: " + s_);
        return value;
    }

  private:
    const std::string& s_;
    std::size_t i_ = 0;

    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    void skip() {
        while (i_ < s_.size() && std::strchr(" \t\r\n", s_[i_]) != nullptr) ++i_;
    }
    bool word(const char* text) {
        std::size_t n = std::strlen(text);
        if (s_.compare(i_, n, text) != 0) return false;
        i_ += n;
        return true;
    }

    Value next() {
        skip();
        Value value;
        char c = peek();
        if (c == '[') {
            ++i_;
            value.kind = Value::ARRAY;
            skip();
            if (peek() == ']') { ++i_; return value; }
            for (;;) {
                value.items.push_back(next());
                skip();
                if (peek() == ',') { ++i_; continue; }
                if (peek() == ']') { ++i_; return value; }
                fail("expected ',' or ']' in an array: " + s_);
            }
        }
        if (c == '"') {
            value.kind = Value::STRING;
            value.text = string();
            return value;
        }
        if (word("true") || word("false")) {
            value.kind = Value::BOOL;
            value.flag = s_[i_ - 1] == 'e' && s_[i_ - 2] == 'u';
            return value;
        }
        if (word("null")) return value;
        std::size_t start = i_;
        while (i_ < s_.size() && std::strchr("+-0123456789.eE", s_[i_]) != nullptr) ++i_;
        if (i_ == start) fail("not a JSON value: " + s_);
        value.kind = Value::NUMBER;
        value.text = s_.substr(start, i_ - start);
        return value;
    }

    unsigned hex4() {
        if (i_ + 4 > s_.size()) fail("a \\u escape ends early");
        unsigned code = 0;
        for (int k = 0; k < 4; ++k) {
            char c = s_[i_++];
            code <<= 4;
            if (c >= '0' && c <= '9') code |= c - '0';
            else if (c >= 'a' && c <= 'f') code |= c - 'a' + 10;
            else if (c >= 'A' && c <= 'F') code |= c - 'A' + 10;
            else fail("a \\u escape is not hexadecimal");
        }
        return code;
    }

    static void utf8(std::string& out, unsigned code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    std::string string() {
        ++i_;  // the opening quote
        std::string out;
        for (;;) {
            if (i_ >= s_.size()) fail("a JSON string ends early");
            char c = s_[i_++];
            if (c == '"') return out;
            if (c != '\\') { out += c; continue; }
            if (i_ >= s_.size()) fail("a JSON string ends early");
            char escape = s_[i_++];
            switch (escape) {
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned code = hex4();
                    if (code >= 0xD800 && code < 0xDC00 && word("\\u")) {
                        unsigned low = hex4();
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    }
                    utf8(out, code);
                    break;
                }
                default: out += escape;  // '"', '\\', '/'
            }
        }
    }
};

template <class T, class = void>
struct Read {
    static T from(const Value&) {
        static_assert(sizeof(T) == 0, "the call driver cannot read an argument of this type");
    }
};

template <class T>
constexpr bool is_integer = std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                            !std::is_same_v<T, char>;

template <class T>
struct Read<T, std::enable_if_t<is_integer<T>>> {
    static T from(const Value& value) {
        if (value.kind != Value::NUMBER) fail("expected an integer argument");
        errno = 0;
        char* end = nullptr;
        long long number = std::strtoll(value.text.c_str(), &end, 10);
        bool fits = *end == '\0' && errno == 0 &&
                    number >= static_cast<long long>(std::numeric_limits<T>::min()) &&
                    (number < 0 || static_cast<unsigned long long>(number) <=
                                       static_cast<unsigned long long>(std::numeric_limits<T>::max()));
        if (!fits) fail("the argument " + value.text + " is not an integer of the parameter's type");
        return static_cast<T>(number);
    }
};

template <class T>
struct Read<T, std::enable_if_t<std::is_floating_point_v<T>>> {
    static T from(const Value& value) {
        if (value.kind != Value::NUMBER) fail("expected a number argument");
        return static_cast<T>(std::strtod(value.text.c_str(), nullptr));
    }
};

template <>
struct Read<bool> {
    static bool from(const Value& value) {
        if (value.kind != Value::BOOL) fail("expected true or false");
        return value.flag;
    }
};

template <>
struct Read<char> {
    static char from(const Value& value) {
        if (value.kind != Value::STRING || value.text.size() != 1) fail("expected a one-letter string");
        return value.text[0];
    }
};

template <>
struct Read<std::string> {
    static std::string from(const Value& value) {
        if (value.kind != Value::STRING) fail("expected a string argument");
        return value.text;
    }
};

template <class T>
struct Read<std::vector<T>> {
    static std::vector<T> from(const Value& value) {
        if (value.kind != Value::ARRAY) fail("expected an array argument");
        std::vector<T> out;
        out.reserve(value.items.size());
        for (const Value& item : value.items) out.push_back(Read<T>::from(item));
        return out;
    }
};

// --- writing the answer ---------------------------------------------------------------------

inline void write(std::string& out, bool value) { out += value ? "true" : "false"; }

inline void write(std::string& out, const std::string& value) {
    out += '"';
    for (unsigned char c : value) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c < 0x20) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\u%04x", c);
            out += escape;
        } else {
            out += static_cast<char>(c);
        }
    }
    out += '"';
}

inline void write(std::string& out, char value) { write(out, std::string(1, value)); }

template <class T>
std::enable_if_t<is_integer<T>> write(std::string& out, T value) {
    out += std::to_string(value);
}

template <class T>
std::enable_if_t<std::is_floating_point_v<T>> write(std::string& out, T value) {
    double number = static_cast<double>(value);
    if (std::isnan(number)) { out += "NaN"; return; }
    if (std::isinf(number)) { out += number > 0 ? "Infinity" : "-Infinity"; return; }
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", number);
    out += text;
}

template <class T>
void write(std::string& out, const std::vector<T>& values);

template <class A, class B>
void write(std::string& out, const std::pair<A, B>& value) {
    out += '[';
    write(out, value.first);
    out += ',';
    write(out, value.second);
    out += ']';
}

template <class T>
void write(std::string& out, const std::vector<T>& values) {
    out += '[';
    bool first = true;
    for (const auto& value : values) {
        if (!first) out += ',';
        first = false;
        write(out, static_cast<const T&>(value));
    }
    out += ']';
}

// --- the call -------------------------------------------------------------------------------

template <class F>
struct Target;
#define MC_MEMBER_TARGET(QUALIFIERS)                                  \
    template <class C, class R, class... A>                           \
    struct Target<R (C::*)(A...) QUALIFIERS> {                        \
        using Object = C;                                             \
        using Arguments = std::tuple<std::decay_t<A>...>;             \
    };
MC_MEMBER_TARGET()
MC_MEMBER_TARGET(const)
MC_MEMBER_TARGET(noexcept)
MC_MEMBER_TARGET(const noexcept)
#undef MC_MEMBER_TARGET
template <class R, class... A>
struct Target<R (*)(A...)> {
    using Object = void;
    using Arguments = std::tuple<std::decay_t<A>...>;
};
template <class R, class... A>
struct Target<R (*)(A...) noexcept> {
    using Object = void;
    using Arguments = std::tuple<std::decay_t<A>...>;
};

template <class F, std::size_t... I>
std::string call(F target, const std::vector<Value>& values, long output_arg,
                 std::index_sequence<I...>) {
    using Object = typename Target<F>::Object;
    using Arguments = typename Target<F>::Arguments;
    Arguments arguments{Read<std::tuple_element_t<I, Arguments>>::from(values[I])...};
    auto invoke = [&]() -> decltype(auto) {
        if constexpr (std::is_void_v<Object>) {
            return target(std::get<I>(arguments)...);
        } else {
            Object* object = new Object();  // a fresh object per test, as the platform makes
            return (object->*target)(std::get<I>(arguments)...);
        }
    };
    std::string out;
    using Result = decltype(invoke());
    if (output_arg >= 0) {
        invoke();
        ((static_cast<long>(I) == output_arg ? (write(out, std::get<I>(arguments)), 0) : 0), ...);
    } else if constexpr (std::is_void_v<Result>) {
        invoke();
        out += "null";
    } else {
        const auto& result = invoke();
        write(out, result);
    }
    return out;
}

inline int answer_fd = -1;

// Before any of the program's own code runs: stdout becomes stderr, the answer's descriptor
// kept aside.
__attribute__((constructor(101))) inline void keep_answer_stream() {
    answer_fd = dup(1);
    dup2(2, 1);
}

inline std::vector<Value> read_arguments() {
    std::string input;
    char chunk[65536];
    ssize_t got;
    while ((got = read(0, chunk, sizeof chunk)) > 0) input.append(chunk, static_cast<std::size_t>(got));
    std::vector<Value> values;
    std::size_t start = 0;
    while (start <= input.size()) {
        std::size_t end = input.find('\n', start);
        if (end == std::string::npos) end = input.size();
        std::string line = input.substr(start, end - start);
        if (line.find_first_not_of(" \t\r") != std::string::npos) values.push_back(Parser(line).document());
        start = end + 1;
    }
    return values;
}

template <class F>
int run(F target, long output_arg) {
    constexpr std::size_t count = std::tuple_size_v<typename Target<F>::Arguments>;
    std::vector<Value> values = read_arguments();
    if (values.size() != count)
        fail("the test gives " + std::to_string(values.size()) + " arguments, the function takes " +
             std::to_string(count));
    if (output_arg >= static_cast<long>(count)) fail("no argument at the output position");
    std::string answer = call(target, values, output_arg, std::make_index_sequence<count>{});
    std::fflush(stdout);
    answer += '\n';
    for (std::size_t done = 0; done < answer.size();) {
        ssize_t wrote = ::write(answer_fd, answer.data() + done, answer.size() - done);
        if (wrote <= 0) return 4;
        done += static_cast<std::size_t>(wrote);
    }
    return 0;
}

}  // namespace mc_call_driver

int main() { return mc_call_driver::run(MC_CALL_TARGET, MC_OUTPUT_ARG); }
