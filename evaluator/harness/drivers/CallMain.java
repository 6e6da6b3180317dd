// The grader's call driver for Java (evaluator/harness/native_call.py joins it after the
// program, naming the class and the method in the two constants). One test per run: the
// test's arguments arrive on stdin, one JSON value per non-blank line, each converted to its
// parameter's declared type; the method is called on a fresh object of its class; the JSON of
// its return value (or, for an in-place problem, of argument OUTPUT_ARG after the call) is
// written to the run's stdout. What the program itself prints goes to stderr: the answer is
// the return value, not the program's output.
public class Main {
    static final String CLASS_NAME = "@CLASS@";
    static final String METHOD_NAME = "@METHOD@";
    static final int OUTPUT_ARG = @OUTPUT_ARG@;

    public static void main(String[] args) throws Throwable {
        java.io.PrintStream answer = new java.io.PrintStream(
            new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
        System.setOut(System.err);
        String input = new String(System.in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        java.util.List<Object> values = new java.util.ArrayList<>();
        for (String line : input.split("\n", -1)) {
            if (!line.isBlank()) values.add(new Parser(line).document());
        }
        Class<?> type = Class.forName(CLASS_NAME);
        java.lang.reflect.Method method = find(type, values.size());
        method.setAccessible(true);
        java.lang.reflect.Type[] parameters = method.getGenericParameterTypes();
        Object[] arguments = new Object[parameters.length];
        for (int k = 0; k < parameters.length; k++) arguments[k] = convert(values.get(k), parameters[k]);
        java.lang.reflect.Constructor<?> make = type.getDeclaredConstructor();
        make.setAccessible(true);
        Object object = java.lang.reflect.Modifier.isStatic(method.getModifiers()) ? null : make.newInstance();
        Object result;
        try {
            result = method.invoke(object, arguments);
        } catch (java.lang.reflect.InvocationTargetException thrown) {
            throw thrown.getCause();  // the program's own exception, as an uncaught one ends it
        }
        StringBuilder out = new StringBuilder();
        if (OUTPUT_ARG >= 0) write(out, arguments[OUTPUT_ARG]);
        else write(out, result);
        System.err.flush();
        answer.print(out.append('\n'));
        answer.flush();
    }

    static java.lang.reflect.Method find(Class<?> type, int count) {
        java.lang.reflect.Method found = null;
        for (java.lang.reflect.Method method : type.getDeclaredMethods()) {
            if (method.getName().equals(METHOD_NAME) && method.getParameterCount() == count) {
                if (found != null) fail("more than one " + METHOD_NAME + " takes " + count + " arguments");
                found = method;
            }
        }
        if (found == null) fail("no method " + METHOD_NAME + " of " + count + " arguments in " + CLASS_NAME);
        if (OUTPUT_ARG >= count) fail("no argument at the output position");
        return found;
    }

    static void fail(String why) {
        System.err.println("call driver: " + why);
        System.exit(3);
    }

    // --- reading the arguments -----------------------------------------------------------
    // JSON values: null, Boolean, String, java.math.BigDecimal (numbers), java.util.List

    static final class Parser {
        final String s;
        int i = 0;

        Parser(String s) { this.s = s; }

        Object document() {
            Object value = next();
            skip();
            if (i != s.length()) fail("text after the JSON value: " + s);
            return value;
        }

        char peek() { return i < s.length() ? s.charAt(i) : '\0'; }

        void skip() { while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++; }

        boolean word(String text) {
            if (!s.startsWith(text, i)) return false;
            i += text.length();
            return true;
        }

        Object next() {
            skip();
            char c = peek();
            if (c == '[') {
                i++;
                java.util.List<Object> items = new java.util.ArrayList<>();
                skip();
                if (peek() == ']') { i++; return items; }
                while (true) {
                    items.add(next());
                    skip();
                    if (peek() == ',') { i++; continue; }
                    if (peek() == ']') { i++; return items; }
                    fail("expected ',' or ']' in an array: " + s);
                }
            }
            if (c == '"') return string();
            if (word("true")) return Boolean.TRUE;
            if (word("false")) return Boolean.FALSE;
            if (word("null")) return null;
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            if (i == start) fail("not a JSON value: " + s);
            return new java.math.BigDecimal(s.substring(start, i));
        }

        String string() {
            i++;  // the opening quote
            StringBuilder out = new StringBuilder();
            while (true) {
                if (i >= s.length()) fail("a JSON string ends early");
                char c = s.charAt(i++);
                if (c == '"') return out.toString();
                if (c != '\\') { out.append(c); continue; }
                if (i >= s.length()) fail("a JSON string ends early");
                char escape = s.charAt(i++);
                switch (escape) {
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'n': out.append('\n'); break;
                    case 'r': out.append('\r'); break;
                    case 't': out.append('\t'); break;
                    case 'u':
                        if (i + 4 > s.length()) fail("a \\u escape ends early");
                        out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                        break;
                    default: out.append(escape);  // '"', '\\', '/'
                }
            }
        }
    }

    static Object convert(Object value, java.lang.reflect.Type type) {
        if (type instanceof java.lang.reflect.ParameterizedType) {
            java.lang.reflect.ParameterizedType generic = (java.lang.reflect.ParameterizedType) type;
            Class<?> raw = (Class<?>) generic.getRawType();
            if (!(value instanceof java.util.List) || !raw.isAssignableFrom(java.util.ArrayList.class))
                fail("expected an array for a parameter of type " + type.getTypeName());
            java.util.List<Object> items = new java.util.ArrayList<>();
            for (Object item : (java.util.List<?>) value)
                items.add(convert(item, generic.getActualTypeArguments()[0]));
            return items;
        }
        if (!(type instanceof Class)) fail("cannot read an argument of type " + type.getTypeName());
        Class<?> target = (Class<?>) type;
        if (target.isArray()) {
            if (!(value instanceof java.util.List)) fail("expected an array for " + target.getTypeName());
            java.util.List<?> items = (java.util.List<?>) value;
            Object array = java.lang.reflect.Array.newInstance(target.getComponentType(), items.size());
            for (int k = 0; k < items.size(); k++)
                java.lang.reflect.Array.set(array, k, convert(items.get(k), target.getComponentType()));
            return array;
        }
        if (value == null) {
            if (target.isPrimitive()) fail("null for a parameter of type " + target.getName());
            return null;
        }
        try {
            if (target == int.class || target == Integer.class) return ((java.math.BigDecimal) value).intValueExact();
            if (target == long.class || target == Long.class) return ((java.math.BigDecimal) value).longValueExact();
            if (target == short.class || target == Short.class) return ((java.math.BigDecimal) value).shortValueExact();
            if (target == byte.class || target == Byte.class) return ((java.math.BigDecimal) value).byteValueExact();
            if (target == double.class || target == Double.class) return ((java.math.BigDecimal) value).doubleValue();
            if (target == float.class || target == Float.class) return ((java.math.BigDecimal) value).floatValue();
            if (target == boolean.class || target == Boolean.class) return (Boolean) value;
            if (target == String.class) return (String) value;
            if (target == char.class || target == Character.class) {
                String text = (String) value;
                if (text.length() != 1) fail("expected a one-letter string for a char");
                return text.charAt(0);
            }
            if (target == java.math.BigInteger.class) return ((java.math.BigDecimal) value).toBigIntegerExact();
            if (target == Object.class) return value;
        } catch (ClassCastException | ArithmeticException wrong) {
            fail("the argument " + value + " is not a " + target.getName());
        }
        fail("cannot read an argument of type " + target.getName());
        return null;
    }

    // --- writing the answer --------------------------------------------------------------

    static void write(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Integer || value instanceof Long || value instanceof Short
                || value instanceof Byte || value instanceof java.math.BigInteger) {
            out.append(value);
        } else if (value instanceof Double || value instanceof Float) {
            double number = ((Number) value).doubleValue();
            if (Double.isNaN(number)) out.append("NaN");
            else if (Double.isInfinite(number)) out.append(number > 0 ? "Infinity" : "-Infinity");
            else out.append(Double.toString(number));
        } else if (value instanceof java.math.BigDecimal) {
            out.append(((java.math.BigDecimal) value).toString());
        } else if (value instanceof Character || value instanceof CharSequence) {
            writeString(out, value.toString());
        } else if (value.getClass().isArray()) {
            out.append('[');
            for (int k = 0; k < java.lang.reflect.Array.getLength(value); k++) {
                if (k > 0) out.append(',');
                write(out, java.lang.reflect.Array.get(value, k));
            }
            out.append(']');
        } else if (value instanceof Iterable) {
            out.append('[');
            boolean first = true;
            for (Object item : (Iterable<?>) value) {
                if (!first) out.append(',');
                first = false;
                write(out, item);
            }
            out.append(']');
        } else {
            fail("cannot write a " + value.getClass().getName() + " as JSON");
        }
    }

    static void writeString(StringBuilder out, String text) {
        out.append('"');
        for (int k = 0; k < text.length(); k++) {
            char c = text.charAt(k);
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c == '\n') out.append("\\n");
            else if (c == '\t') out.append("\\t");
            else if (c == '\r') out.append("\\r");
            else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        out.append('"');
    }
}
