"""Ruby programs run by ruby plainly and in the sandbox agree (verdict, stdout, exit status):
stdin by ``gets``, slurped, by ``readlines`` and ``ARGF``; the standard library and a bundled
gem (``require "prime"``: RubyGems at work); every way to write and every exit path (``exit``,
``abort``, an uncaught exception, a syntax error's 1); recursion within the VM stack and past
it (``SystemStackError``); limits. The plain run: ``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import (
    SUM_INPUT,
    conformance_test,
    needs_runtime,
)

pytestmark = needs_runtime("ruby")

CASES = [
    (
        "gets_lines",
        "n = gets.to_i\nn.times { a, b = gets.split.map(&:to_i); puts a + b }",
        SUM_INPUT,
    ),
    (
        "slurp_and_stdlib",
        """
require "set"; require "prime"
nums = $stdin.read.split.map(&:to_i)
puts nums.sum, nums.max, Set.new(nums).size, Prime.first(5).inspect, (2**100).to_s
""",
        SUM_INPUT,
    ),
    (
        "readlines",
        "lines = STDIN.readlines(chomp: true)\nputs lines.drop(1).map { |l| l.split.sum(&:to_i) }.join(' ')",
        SUM_INPUT,
    ),
    (
        "argf_each_line",
        'ARGF.each_line.with_index { |l, i| puts "#{i}:#{l.split.map(&:to_i).sum}" if i > 0 }',
        SUM_INPUT,
    ),
    (
        "write_forms",
        """
print "a", "b"; $stdout.write("c\\n"); printf("%05.1f|%-3s|\\n", 3.14159, "x"); p [1, "s", :sym]
STDOUT.puts [1, [2, 3]]; $stdout << "chained" << "\\n"; $stderr.puts "to stderr"; pp({k: 1})
""",
        b"",
    ),
    ("exit_code", 'puts "x"; exit 3', b""),
    ("abort", 'puts "before"; abort("aborted")', b""),
    ("uncaught_exception", 'puts "before"; raise ArgumentError, "boom"', b""),
    ("syntax_error", "def f(\nputs 1", b""),
    ("recursion_within_stack", "def f(n) = n.zero? ? 0 : 1 + f(n - 1)\nputs f(5000)", b""),
    ("stack_overflow", "def f(n) = n.zero? ? 0 : 1 + f(n - 1)\nputs f(1_000_000)", b""),
    ("infinite_loop", "x = 0\nloop { x += 1 }", b""),
    ("memory_hog", 'a = []\nloop { a << "x" * 1_000_000 }', b""),
    ("big_output", "puts (1..100_000).to_a", b""),
    ("thread", "t = Thread.new { 6 * 7 }\nputs t.value", b""),
    ("write_file_in_cwd", 'File.write("x.txt", "hi")\nputs File.read("x.txt")', b""),
    # a gem that only Debian's packages register (rubygems-integration): RubyGems lists it
    ("packaged_gem", 'require "webrick"\nputs WEBrick::VERSION.class', b""),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("ruby", CASES)
