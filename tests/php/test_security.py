"""PHP's security battery: system, exec, shell_exec, backticks, passthru, popen, proc_open,
pcntl_fork, pcntl_exec, files outside the run directory, sockets, signals beyond the program:
each refused; files in its own directory work, as in a plain run."""

from __future__ import annotations

from tests.languages.runtime_plain import needs_runtime, probe_answers

pytestmark = needs_runtime("php")

PHP_PROBES = r"""<?php
function probe($what, $act) {
    try { $ok = $act(); } catch (Throwable $e) { $ok = false; }
    echo $what, " ", $ok ? "done" : "refused", "\n"; flush();
}
probe("system", function () { ob_start(); $r = system("echo hi", $rc); ob_end_clean(); return $r === "hi" && $rc === 0; });
probe("exec", function () { $r = exec("echo hi", $out, $rc); return $r === "hi" && $rc === 0; });
probe("shell_exec", fn () => shell_exec("echo hi") === "hi\n");
probe("backticks", fn () => `echo hi` === "hi\n");
probe("passthru", function () { ob_start(); passthru("echo hi", $rc); return ob_get_clean() === "hi\n" && $rc === 0; });
probe("popen", function () { $p = popen("echo hi", "r"); return $p !== false && fgets($p) === "hi\n"; });
probe("proc_open", function () {
    $p = proc_open(["/bin/echo", "hi"], [1 => ["pipe", "w"]], $pipes);
    return $p !== false && stream_get_contents($pipes[1]) === "hi\n";
});
probe("pcntl_fork", function () { $pid = pcntl_fork(); if ($pid === 0) { exit(0); } return $pid > 0; });
probe("read_passwd", fn () => @file_get_contents("/etc/passwd") !== false);
probe("write_var_tmp", fn () => @file_put_contents("/var/tmp/mcprobe", "x") !== false);
probe("socket", fn () => @stream_socket_server("tcp://127.0.0.1:0") !== false);
probe("kill_parent", fn () => posix_kill(posix_getppid(), 0));
probe("own_file", fn () => file_put_contents("mine.txt", "ok") === 2);
probe("pcntl_exec", fn () => pcntl_exec("/bin/true"));
"""


def test_php_reaches_nothing_past_the_program(languages_grader):
    refused = ["system", "exec", "shell_exec", "backticks", "passthru", "popen", "proc_open",
               "pcntl_fork", "read_passwd", "write_var_tmp", "socket", "kill_parent"]  # fmt: skip
    expected = [f"{name} refused" for name in refused] + ["own_file done", "pcntl_exec refused"]
    result = probe_answers(languages_grader, "php", PHP_PROBES, expected)
    assert result.verdict.value == "AC", result.message
