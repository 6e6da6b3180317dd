"""Java (javac, the JVM) programs, each run plainly (``tests/languages/runtime_plain.py``) and graded
in the sandbox: the same verdict, and for a run that ended by itself, the same stdout and
exit status. Every way to read and write, every exit path, exceptions, limits, deep
recursion, threads, the build failing."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test

CASES = [
    (
        "scanner_sum",
        """
import java.util.*;
public class Main { public static void main(String[] a) { Scanner s = new Scanner(System.in); int n = s.nextInt();
  for (int i = 0; i < n; i++) System.out.println(s.nextLong() + s.nextLong()); } }
""",
        SUM_INPUT,
    ),
    (
        "buffered_reader_no_public_class",
        """
import java.io.*;
class Solver { static long mul(long a, long b) { return a * b; } }
class Main { public static void main(String[] a) throws IOException {
  BufferedReader r = new BufferedReader(new InputStreamReader(System.in)); int n = Integer.parseInt(r.readLine().trim());
  StringBuilder out = new StringBuilder();
  for (int i = 0; i < n; i++) { String[] t = r.readLine().split(" "); out.append(Solver.mul(Long.parseLong(t[0]), Long.parseLong(t[1]))).append('\\n'); }
  System.out.print(out); } }
""",
        SUM_INPUT,
    ),
    (
        "public_class_not_main",
        """
public class Solution { public static void main(String[] a) { System.out.println("named"); } }
""",
        b"",
    ),
    (
        "packaged",
        """
package contest.a;
public class Main { public static void main(String[] a) { System.out.println("in a package"); } }
""",
        b"",
    ),
    (
        "print_writer_unflushed_then_exit",
        """
import java.io.*;
public class Main { public static void main(String[] a) { PrintWriter w = new PrintWriter(System.out); w.println("lost"); System.exit(0); } }
""",
        b"",
    ),
    (
        "exit_code",
        'public class Main { public static void main(String[] a) { System.out.println("x"); System.exit(3); } }',
        b"",
    ),
    (
        "uncaught_exception",
        'public class Main { public static void main(String[] a) { System.out.println("before"); throw new IllegalStateException("boom"); } }',
        b"",
    ),
    (
        "divide_by_zero",
        "public class Main { public static void main(String[] a) { int z = a.length; System.out.println(1 / z); } }",
        b"",
    ),
    (
        "deep_recursion_fits_64m",
        """
public class Main { static int f(int n) { return n == 0 ? 0 : 1 + f(n - 1); }
  public static void main(String[] a) { System.out.println(f(200000)); } }
""",
        b"",
    ),
    (
        "stack_overflow",
        """
public class Main { static int f(int n) { return 1 + f(n + 1); }
  public static void main(String[] a) { System.out.println(f(0)); } }
""",
        b"",
    ),
    (
        "infinite_loop",
        "public class Main { public static void main(String[] a) { long x = 0; while (true) x++; } }",
        b"",
    ),
    (
        "heap_exhausted",
        "public class Main { public static void main(String[] a) { long[] x = new long[100_000_000]; System.out.println(x.length); } }",
        b"",
    ),
    (
        "threads",
        """
import java.util.concurrent.*;
public class Main { public static void main(String[] a) throws Exception {
  ExecutorService e = Executors.newFixedThreadPool(4); Future<Integer> f = e.submit(() -> 6 * 7);
  System.out.println(f.get()); e.shutdown(); } }
""",
        b"",
    ),
    ("compile_error", "public class Main { void f( }", b""),
    (
        "write_file_in_cwd",
        """
import java.nio.file.*;
public class Main { public static void main(String[] a) throws Exception {
  Files.writeString(Path.of("x.txt"), "hi"); System.out.println(Files.readString(Path.of("x.txt"))); } }
""",
        b"",
    ),
]


test_sandbox_agrees_with_a_plain_run = conformance_test("java", CASES)
