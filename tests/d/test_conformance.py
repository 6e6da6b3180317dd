"""D programs built with gdc, run plainly and in the sandbox, agree (verdict, stdout, exit
status): ``readln``, ``readf``, ``stdin.byLine``; every way to write (``write``, ``writef``,
``stdout.rawWrite``, stderr); every exit path (``return`` from ``int main``, C's ``exit``, an
uncaught exception, a failed ``assert``, a range violation, a null dereference); deep
recursion; threads under the garbage collector (which stops them with signals), which keeps
what only ``main``'s locals hold (:data:`evaluator.languages.main_stack.MAIN_STACK_CODE`); limits; the
build failing; and a ``d_unittest`` program's unit tests passing and failing. The plain
run: ``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test

from . import needs_gdc

pytestmark = needs_gdc

CASES = [
    (
        "readln_lines",
        """
import std.stdio, std.string, std.conv, std.array, std.algorithm;
void main() { int n = readln.strip.to!int;
  foreach (i; 0 .. n) { auto v = readln.split.map!(to!long).array; writeln(v[0] + v[1]); } }
""",
        SUM_INPUT,
    ),
    (
        "readf_tokens",
        """
import std.stdio;
void main() { int n; readf(" %d", &n); long total = 0;
  foreach (i; 0 .. 2 * n) { long x; readf(" %d", &x); total += x; } writeln(total); }
""",
        SUM_INPUT,
    ),
    (
        "by_line",
        """
import std.stdio, std.string;
void main() { size_t words = 0; foreach (line; stdin.byLine) words += line.split.length;
  writefln("%d words", words); }
""",
        SUM_INPUT,
    ),
    (
        "write_forms",
        """
import std.stdio;
void main() { write("a", 1, ' '); writef("%05.1f|%-3s|\\n", 3.14159, "x"); writeln([1, 2], " ", 2.5);
  stdout.rawWrite("raw\\n"); stderr.writeln("to stderr"); stdout.flush(); writeln("end"); }
""",
        b"",
    ),
    ("return_status", 'import std.stdio;\nint main() { writeln("x"); return 3; }', b""),
    (
        "c_exit_flushes",
        'import std.stdio, core.stdc.stdlib;\nvoid main() { write("kept"); exit(4); }',
        b"",
    ),
    (
        "uncaught_exception",
        'import std.stdio;\nvoid main() { writeln("before"); throw new Exception("boom"); }',
        b"",
    ),
    ("failed_assert", 'void main() { int x = 1; assert(x == 2, "no"); }', b""),
    (
        "range_violation",
        "import std.stdio;\nvoid main(string[] args) { int[] a = [1]; writeln(a[args.length + 3]); }",
        b"",
    ),
    (
        "null_dereference",
        "import std.stdio;\nvoid main(string[] args) { int* p = args.length > 5 ? new int : null; writeln(*p); }",
        b"",
    ),
    (
        "deep_recursion",
        """
import std.stdio;
long f(long n, long[] seen) { if (n == 0) return seen.length; return f(n - 1, seen) + (n & 1); }
void main() { writeln(f(1_000_000, [1, 2])); }
""",
        b"",
    ),
    (
        "threads_and_gc",
        """
import std.stdio, core.thread, core.memory, std.parallelism, std.range, std.algorithm;
void main() { shared long total = 0; Thread[] ts;
  foreach (i; 0 .. 4) { auto t = new Thread({ int[][] keep; foreach (k; 0 .. 2000) keep ~= new int[64]; });
    t.start(); ts ~= t; }
  GC.collect(); foreach (t; ts) t.join();
  writeln(taskPool.reduce!"a + b"(iota(1L, 1001L))); }
""",
        b"",
    ),
    (
        "collector_keeps_main_locals",
        """
import std.stdio, core.memory;
void main() { auto kept = new int[](1000); kept[] = 7; GC.collect();
  foreach (i; 0 .. 200) { auto other = new int[](1000); other[] = i; }
  long total = 0; foreach (v; kept) total += v; writeln(total); }
""",
        b"",
    ),
    ("infinite_loop", "void main() { ulong x = 0; while (true) { x++; asm { nop; } } }", b""),
    (
        "memory_hog",
        "void main() { ubyte[][] keep; while (true) { auto b = new ubyte[1 << 20]; b[] = 1; keep ~= b; } }",
        b"",
    ),
    ("big_output", "import std.stdio;\nvoid main() { foreach (i; 0 .. 100_000) writeln(i); }", b""),
    (
        "write_file_in_cwd",
        'import std.stdio, std.file;\nvoid main() { write("x.txt", "hi"); writeln(readText("x.txt")); }',
        b"",
    ),
    ("compile_error", "void main() { int x = undefined_name; }", b""),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("d", CASES)

UNITTEST_CASES = [
    (
        "unittests_pass",
        "int twice(int x) { return 2 * x; }\nunittest { assert(twice(2) == 4); }\nvoid main() {}",
        b"",
    ),
    (
        "unittest_fails",
        "int twice(int x) { return 2 * x; }\nunittest { assert(twice(2) == 5); }\nvoid main() {}",
        b"",
    ),
    (
        "no_unittest_runs_main",
        'import std.stdio;\nvoid main() { writeln("Hello, World!"); }',
        b"",
    ),
]


test_unit_test_programs_agree_with_a_plain_run = conformance_test("d_unittest", UNITTEST_CASES)
