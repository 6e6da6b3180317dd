"""Lua programs run by lua plainly and in the sandbox agree (verdict, stdout, exit status):
stdin by numbers, by lines (``io.read`` and ``io.lines``) and slurped; every way to write;
every exit path (``os.exit``, ``error``, an error value that is not a string, a syntax
error's 1); deep recursion and a stack overflow; limits. The plain run:
``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test, needs_runtime

pytestmark = needs_runtime("lua")

CASES = [
    (
        "read_numbers",
        'local n = io.read("n")\nfor _ = 1, n do local a, b = io.read("n", "n"); print(a + b) end',
        SUM_INPUT,
    ),
    (
        "read_lines",
        'local n = tonumber(io.read("l"))\nfor _ = 1, n do local a, b = io.read("l"):match("(%d+) (%d+)"); print(a * b) end',
        SUM_INPUT,
    ),
    (
        "io_lines",
        'local s = 0\nfor line in io.lines() do for x in line:gmatch("%d+") do s = s + tonumber(x) end end\nprint(s)',
        SUM_INPUT,
    ),
    (
        "slurp_and_stdlib",
        """
local t = {}
for x in io.stdin:read("a"):gmatch("%S+") do t[#t + 1] = math.tointeger(x) end
table.sort(t, function(a, b) return a > b end)
print(table.concat(t, ","), math.max(table.unpack(t)), 7 // 2, 2^10, math.maxinteger, utf8.char(955))
""",
        SUM_INPUT,
    ),
    (
        "write_forms",
        'io.write("a", 1, "\\n"); print("t", nil, true, 1.5); io.stdout:write(string.format("%05.1f|%-3s|\\n", 3.14159, "x"))\nio.stderr:write("to stderr\\n")',
        b"",
    ),
    ("exit_code", 'print("x"); os.exit(3)', b""),
    ("exit_false", 'print("x"); os.exit(false)', b""),
    ("error", 'print("before"); error("boom")', b""),
    ("error_table", 'print("before"); error({code = 1})', b""),
    ("syntax_error", "local x = ", b""),
    (
        "deep_recursion",
        "local function f(n) if n == 0 then return 0 end return 1 + f(n - 1) end\nprint(f(100000))",
        b"",
    ),
    ("stack_overflow", "local function f(n) return 1 + f(n + 1) end\nprint(f(1))", b""),
    ("infinite_loop", "local x = 0\nwhile true do x = x + 1 end", b""),
    (
        "memory_hog",
        'local t = {}\nwhile true do t[#t + 1] = string.rep("x", 1000000) .. #t end',
        b"",
    ),
    ("big_output", "for i = 1, 100000 do print(i) end", b""),
    (
        "coroutines",
        "local co = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)\nprint(co(), co(), co())",
        b"",
    ),
    (
        "write_file_in_cwd",
        'local f = assert(io.open("x.txt", "w")); f:write("hi"); f:close()\nprint(assert(io.open("x.txt")):read("a"))',
        b"",
    ),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("lua", CASES)
