"""Perl programs run by perl plainly and in the sandbox agree (verdict, stdout, exit status):
<STDIN> by lines and slurped, core modules from @INC (List::Util, POSIX), every exit path
(exit, die, a syntax error's 255), deep recursion, limits. The plain run:
``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test

CASES = [
    (
        "lines",
        """
my $n = <STDIN>; for (1..$n) { my ($a, $b) = split ' ', <STDIN>; print $a + $b, "\\n"; }
""",
        SUM_INPUT,
    ),
    (
        "slurp_and_core_modules",
        """
use strict; use warnings; use List::Util qw(sum max); use POSIX qw(floor);
local $/; my @n = split ' ', <STDIN>; print sum(@n), " ", max(@n), " ", floor(7 / 2), "\\n";
""",
        SUM_INPUT,
    ),
    ("exit_code", 'print "x\\n"; exit 3;', b""),
    ("die", 'print "before\\n"; die "boom\\n";', b""),
    ("syntax_error", "my $x = ;", b""),
    (
        "deep_recursion",
        """
no warnings 'recursion'; sub f { my $n = shift; return $n == 0 ? 0 : 1 + f($n - 1) } print f(100000), "\\n";
""",
        b"",
    ),
    ("infinite_loop", "my $x = 0; while (1) { $x++ }", b""),
    ("memory_hog", "my @a; while (1) { push @a, 'x' x 1000000 }", b""),
    (
        "write_file_in_cwd",
        """
open(my $f, '>', 'x.txt') or die; print $f "hi"; close $f; open($f, '<', 'x.txt') or die; print <$f>, "\\n";
""",
        b"",
    ),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("perl", CASES)
