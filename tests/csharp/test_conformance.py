"""C# programs (Mono's ``mcs``, then ``mono main.exe``) run plainly and in the sandbox agree
(verdict, stdout, exit status): every way to read and write, every exit path, exceptions,
deep recursion, threads under Mono's collector, limits and the build failing. Plainly, glibc
reads ``/proc/self/maps`` and Mono starts without our shim; in the sandbox it starts with it
(``evaluator/languages/main_stack.py``): the same runs. The plain run:
``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test, needs_runtime

pytestmark = needs_runtime("csharp")

CASES = [
    (
        "readline_split",
        """using System;
class P { static void Main() { int n = int.Parse(Console.ReadLine());
  for (int i = 0; i < n; i++) { var t = Console.ReadLine().Split(' ');
    Console.WriteLine(long.Parse(t[0]) + long.Parse(t[1])); } } }""",
        SUM_INPUT,
    ),
    (
        "read_to_end_linq",
        """using System; using System.IO; using System.Linq;
class P { static void Main() { var all = Console.In.ReadToEnd().Split((char[])null, StringSplitOptions.RemoveEmptyEntries).Select(long.Parse).ToArray();
  Console.Out.Write(string.Join("\\n", Enumerable.Range(0, (int)all[0]).Select(i => all[1 + 2 * i] + all[2 + 2 * i])) + "\\n"); } }""",
        SUM_INPUT,
    ),
    (
        "stream_reader_writer_autoflush_off",
        """using System; using System.IO;
class P { static void Main() { var r = new StreamReader(Console.OpenStandardInput());
  var w = new StreamWriter(Console.OpenStandardOutput()); w.AutoFlush = false;
  int n = int.Parse(r.ReadLine()); for (int i = 0; i < n; i++) { var t = r.ReadLine().Split(); w.WriteLine(int.Parse(t[0]) * int.Parse(t[1])); }
  w.Flush(); } }""",
        SUM_INPUT,
    ),
    (
        "stderr_and_stdout",
        """using System; class P { static void Main() { Console.Error.WriteLine("to stderr"); Console.WriteLine("to stdout"); } }""",
        b"",
    ),
    (
        "exit_code",
        """using System; class P { static void Main() { Console.WriteLine("x"); Environment.Exit(3); } }""",
        b"",
    ),
    (
        "main_returns_status",
        """using System; class P { static int Main() { Console.WriteLine("y"); return 4; } }""",
        b"",
    ),
    (
        "unhandled_exception",
        """using System; class P { static void Main() { Console.WriteLine("before"); throw new InvalidOperationException("boom"); } }""",
        b"",
    ),
    (
        "divide_by_zero",
        """using System; class P { static void Main(string[] a) { int z = a.Length; Console.WriteLine(1 / z); } }""",
        b"",
    ),
    (
        "index_out_of_range",
        """using System; class P { static void Main() { var x = new int[2]; Console.WriteLine(x[5]); } }""",
        b"",
    ),
    (
        "deep_recursion",
        """using System; class P { static int F(int n) { return n == 0 ? 0 : 1 + F(n - 1); }
  static void Main() { Console.WriteLine(F(100000)); } }""",
        b"",
    ),
    (
        "threads_and_collector",
        """using System; using System.Threading; using System.Collections.Generic;
class P { static void Main() { var kept = new List<int[]>(); for (int i = 0; i < 100; i++) kept.Add(new int[1000]);
  kept[0][0] = 7; long total = 0; var ts = new List<Thread>();
  for (int t = 0; t < 4; t++) { var th = new Thread(() => { var local = new List<int[]>(); for (int i = 0; i < 2000; i++) local.Add(new int[100]); Interlocked.Add(ref total, local.Count); }); th.Start(); ts.Add(th); }
  foreach (var th in ts) th.Join(); GC.Collect(); Console.WriteLine(total + " " + kept[0][0]); } }""",
        b"",
    ),
    (
        "big_integer_and_format",
        """using System; using System.Numerics; using System.Globalization;
class P { static void Main() { Console.WriteLine(BigInteger.Pow(3, 100));
  Console.WriteLine((1.0 / 3).ToString("F6", CultureInfo.InvariantCulture)); Console.WriteLine(string.Format("{0,5}|{1:X}", 42, 255)); } }""",
        b"",
    ),
    (
        "infinite_loop",
        """class P { static void Main() { long x = 0; while (true) x++; } }""",
        b"",
    ),
    (
        "allocates_past_the_limit",
        """using System; using System.Collections.Generic;
class P { static void Main() { var keep = new List<byte[]>(); while (true) { var b = new byte[16 << 20]; for (int i = 0; i < b.Length; i += 4096) b[i] = 1; keep.Add(b); } } }""",
        b"",
    ),
    (
        "prints_past_the_output_limit",
        """using System; class P { static void Main() { var line = new string('x', 1000); while (true) Console.WriteLine(line); } }""",
        b"",
    ),
    (
        "compile_error",
        """class P { static void Main() { int x = ; } }""",
        b"",
    ),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("csharp", CASES)
