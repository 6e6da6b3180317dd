"""Rust's security battery: std::process, files outside the run directory, the network,
/proc, signals beyond the program, and a raw fork through libc's syscall, each refused;
threads and files in its own directory work, as in a plain run."""

from __future__ import annotations

from tests.languages.runtime_plain import probe_answers

RUST_PROBES = r"""
use std::fs;
use std::io::Write;
extern "C" { fn syscall(n: i64, ...) -> i64; fn kill(pid: i32, sig: i32) -> i32; fn getppid() -> i32; }
fn probe(what: &str, ok: bool) { println!("{} {}", what, if ok { "done" } else { "refused" }); }
fn main() {
    probe("command", std::process::Command::new("/bin/sh").arg("-c").arg("true").status().is_ok());
    probe("exec_self", std::process::Command::new(std::env::current_exe().unwrap_or_default()).status().is_ok());
    probe("read_passwd", fs::read_to_string("/etc/passwd").is_ok());
    probe("write_var_tmp", fs::File::create("/var/tmp/mcprobe").and_then(|mut f| f.write_all(b"x")).is_ok());
    probe("proc_parent", fs::read_to_string("/proc/1/cmdline").is_ok());
    probe("tcp", std::net::TcpStream::connect("1.1.1.1:80").is_ok());
    probe("udp", std::net::UdpSocket::bind("127.0.0.1:0").is_ok());
    probe("raw_fork", unsafe { syscall(57) } >= 0);
    probe("kill_parent", unsafe { kill(getppid(), 0) } == 0);
    probe("thread", std::thread::spawn(|| 6 * 7).join().map(|v| v == 42).unwrap_or(false));
    probe("own_file", fs::write("mine.txt", "ok").and_then(|_| fs::read_to_string("mine.txt")).map(|s| s == "ok").unwrap_or(false));
}
"""


def test_rust_reaches_nothing_past_the_program(languages_grader):
    refused = ["command", "exec_self", "read_passwd", "write_var_tmp", "proc_parent", "tcp", "udp",
               "raw_fork", "kill_parent"]  # fmt: skip
    expected = [f"{name} refused" for name in refused] + ["thread done", "own_file done"]
    result = probe_answers(languages_grader, "rust", RUST_PROBES, expected)
    assert result.verdict.value == "AC", result.message
