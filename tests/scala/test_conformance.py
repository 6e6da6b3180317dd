"""Scala programs (scalac, the scala runner on the JVM), each run plainly (the distribution's
``scalac``, then its runner's JVM command line: ``tests/languages/runtime_plain.py``) and
graded in the sandbox: the same verdict, and for a run that ended by itself, the same stdout
and exit status. Reading stdin every common way, printing, every exit path (``sys.exit``,
an exception, ``App``'s body), deep recursion on the 64 MiB main stack, futures on threads,
limits, the build failing. No case overflows the stack: the JVM's peak memory then varies
from run to run across the memory limit, plainly too (222 to 520 MB measured at ``-Xmx256m``,
depending on what the JIT compiled when), so its verdict would test the JVM, not the
sandbox; Java's cases hold a stack overflow."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test, needs_runtime

pytestmark = needs_runtime("scala")

CASES = [
    (
        "stdin_lines",
        "object Main {\n  def main(args: Array[String]): Unit = {\n"
        "    val lines = scala.io.Source.stdin.getLines().toList\n"
        '    for (l <- lines.tail) { val Array(a, b) = l.split(" ").map(_.toLong); println(a + b) }\n'
        "  }\n}",
        SUM_INPUT,
    ),
    (
        "stdin_readline_and_tokens",
        "import scala.io.StdIn\nobject Main extends App {\n  val n = StdIn.readInt()\n"
        "  val xs = (1 to n).map(_ => StdIn.readLine().split(' ').map(_.toInt).product)\n"
        '  println(xs.mkString(","))\n}',
        SUM_INPUT,
    ),
    (
        "collections_and_format",
        "object Main { def main(a: Array[String]): Unit = {\n"
        "  val m = List(3, 1, 2).sorted.map(x => x -> x * x).toMap\n"
        '  println(m); printf("%.3f %5d|%s%n", math.Pi, 42, "s"); print("no newline")\n'
        '  System.err.println("to stderr") } }',
        b"",
    ),
    (
        "named_object_in_a_package",
        'package contest.a\nobject Solver { def main(a: Array[String]): Unit = println("pkg") }',
        b"",
    ),
    (
        "exit_code",
        'object Main { def main(a: Array[String]): Unit = { println("x"); sys.exit(3) } }',
        b"",
    ),
    (
        "exception",
        'object Main { def main(a: Array[String]): Unit = { println("x"); throw new IllegalStateException("boom") } }',
        b"",
    ),
    (
        "match_error",
        "object Main { def main(a: Array[String]): Unit = { val x: Any = 1; x match { case s: String => println(s) } } }",
        b"",
    ),
    (
        "deep_recursion",
        "object Main { def f(n: Int): Long = if (n == 0) 0 else 1 + f(n - 1)\n"
        "  def main(a: Array[String]): Unit = println(f(200000)) }",
        b"",
    ),
    (
        "futures",
        "import scala.concurrent._, duration._, ExecutionContext.Implicits.global\n"
        "object Main { def main(a: Array[String]): Unit = {\n"
        "  val fs = (1 to 4).map(i => Future(i * i))\n"
        "  println(Await.result(Future.sequence(fs), 10.seconds).sum) } }",
        b"",
    ),
    (
        "infinite_loop",
        "object Main { def main(a: Array[String]): Unit = { var x = 0L; while (true) x += 1 } }",
        b"",
    ),
    (
        "memory_hog",
        "object Main { def main(a: Array[String]): Unit = {\n"
        "  val b = scala.collection.mutable.ArrayBuffer[Array[Long]]()\n"
        "  while (true) b += new Array[Long](1 << 20) } }",
        b"",
    ),
    (
        "big_output",
        "object Main { def main(a: Array[String]): Unit = (1 to 100000).foreach(println) }",
        b"",
    ),
    (
        "compile_error",
        'object Main { def main(a: Array[String]): Unit = { val x: Int = "s" } }',
        b"",
    ),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("scala", CASES)
