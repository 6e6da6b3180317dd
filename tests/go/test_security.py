"""Go's security battery: os/exec, syscall's fork and exec, files outside the run directory,
the network, /proc, signals beyond the program, each refused; goroutines and files in its
own directory work, as in a plain run."""

from __future__ import annotations

from tests.languages.runtime_plain import probe_answers

GO_PROBES = """
package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
)

func probe(what string, err error) {
	if err != nil {
		fmt.Println(what, "refused")
	} else {
		fmt.Println(what, "done")
	}
}

func main() {
	probe("exec_command", exec.Command("/bin/sh", "-c", "true").Run())
	_, err := syscall.ForkExec("/bin/true", []string{"true"}, nil)
	probe("fork_exec", err)
	probe("exec_self", syscall.Exec("/proc/self/exe", []string{"x"}, nil))
	_, err = os.ReadFile("/etc/passwd")
	probe("read_passwd", err)
	probe("write_var_tmp", os.WriteFile("/var/tmp/mcprobe", []byte("x"), 0o644))
	_, err = os.ReadFile("/proc/1/cmdline")
	probe("proc_parent", err)
	_, err = net.Dial("tcp", "1.1.1.1:80")
	probe("tcp", err)
	_, err = net.Listen("tcp", "127.0.0.1:0")
	probe("listen", err)
	probe("kill_parent", syscall.Kill(os.Getppid(), 0))
	done := make(chan int)
	go func() { done <- 42 }()
	fmt.Println("goroutine", <-done)
	probe("own_file", os.WriteFile("mine.txt", []byte("ok"), 0o644))
}
"""


def test_go_reaches_nothing_past_the_program(languages_grader):
    refused = ["exec_command", "fork_exec", "exec_self", "read_passwd", "write_var_tmp",
               "proc_parent", "tcp", "listen", "kill_parent"]  # fmt: skip
    expected = [f"{name} refused" for name in refused] + ["goroutine 42", "own_file done"]
    result = probe_answers(languages_grader, "go", GO_PROBES, expected)
    assert result.verdict.value == "AC", result.message
