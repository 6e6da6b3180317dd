"""Perl's security battery: system, backticks, exec, fork, open of a pipe, files outside the
run directory, sockets, signals beyond the program: each refused; files in its own
directory work, as in a plain run."""

from __future__ import annotations

from tests.languages.runtime_plain import probe_answers

PERL_PROBES = r"""
use Socket;
sub probe { my ($what, $ok) = @_; print "$what ", ($ok ? "done" : "refused"), "\n"; }
probe("system", system("/bin/true") == 0);
my $out = `echo hi`; probe("backticks", defined $out && $out eq "hi\n");
probe("fork", defined(my $pid = fork()) && ($pid == 0 ? exit(0) : 1));
my $p; probe("pipe_open", open($p, "-|", "/bin/echo", "hi") && defined(<$p>));
probe("read_passwd", open(my $f, "<", "/etc/passwd"));
probe("write_var_tmp", open(my $g, ">", "/var/tmp/mcprobe"));
probe("socket", socket(my $s, PF_INET, SOCK_STREAM, 0));
probe("kill_parent", kill(0, getppid()));
my $h; probe("own_file", open($h, ">", "mine.txt") && print($h "ok") && close($h));
probe("exec", exec("/bin/true"));
"""


def test_perl_reaches_nothing_past_the_program(languages_grader):
    refused = ["system", "backticks", "fork", "pipe_open", "read_passwd", "write_var_tmp",
               "socket", "kill_parent"]  # fmt: skip
    expected = [f"{name} refused" for name in refused] + ["own_file done", "exec refused"]
    result = probe_answers(languages_grader, "perl", PERL_PROBES, expected)
    assert result.verdict.value == "AC", result.message
