"""The one launcher for trusted programs (evaluator/sandbox/launcher.py), through both of its
callers: a checker (the problem setter's program, or open-r1/codeforces' Python checker) and
a build (the compiler, and any tool a build runs). Each may read the toolchain and its own
files, write only its own directory, and has no network: a checker or a build that tries to
connect to a listener on the grader's loopback, or to read a file the test made elsewhere,
is refused, and its verdict says so."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import sys
import tempfile
from collections.abc import Iterator

import pytest

from evaluator.judges.checker import build_checker
from evaluator.languages import BuildLimits, get_language
from evaluator.languages.builds import ConfinedTool
from evaluator.problem import Verdict
from tests.as_nobody import NOBODY, run_as_nobody

SECRET = "launcher-secret-7c1f"


@pytest.fixture
def listeners() -> Iterator[tuple[socket.socket, socket.socket]]:
    """A TCP listener and a UDP socket on the grader's loopback, both non-blocking."""
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for sock in (tcp, udp):
        sock.bind(("127.0.0.1", 0))
        sock.setblocking(False)
    tcp.listen(8)
    yield tcp, udp
    tcp.close()
    udp.close()


def _nothing_arrived(tcp: socket.socket, udp: socket.socket) -> bool:
    for receive in (tcp.accept, lambda: udp.recvfrom(64)):
        try:
            receive()
        except BlockingIOError:
            continue
        return False
    return True


def _shell_probe(listeners, secret: str) -> str:
    """What a shell tries (bash's /dev/tcp and /dev/udp, cat, a redirection), each refusal a
    line of its own."""
    tcp, udp = listeners
    beside = os.path.join(os.path.dirname(secret), "written")
    return (
        f"exec 3<>/dev/tcp/127.0.0.1/{tcp.getsockname()[1]} || echo tcp refused; "
        f"echo x >/dev/udp/127.0.0.1/{udp.getsockname()[1]} || echo udp refused; "
        f"cat {secret} /etc/hostname || echo read refused; "
        f": >{beside} || echo write refused; : >own && echo own written"
    )


SHELL_REFUSED = ("tcp refused", "udp refused", "read refused", "write refused", "own written")


@pytest.fixture
def secret() -> Iterator[str]:
    """A file outside every launched program's files, in a directory of its own under /tmp
    that every user may read (but only root write)."""
    directory = tempfile.mkdtemp(prefix="mc-secret-")
    os.chmod(directory, 0o755)  # open to every user: only Landlock keeps a program out
    path = os.path.join(directory, "secret.h")
    with open(path, "w") as handle:
        handle.write(f'#error "{SECRET}"\n')
    os.chmod(path, 0o644)
    yield path
    shutil.rmtree(directory)


# What both checkers try: a TCP connection and a UDP datagram to the listeners, then reading
# the secret and /etc/hostname, then writing beside the secret. Each attempt prints its
# outcome (the error's name: EACCES is Landlock's and the seccomp filter's refusal); any that
# worked accepts (the checker got through).
PROBE = """
import errno, os, socket, sys
def attempt(what, action):
    try:
        action()
    except OSError as exc:
        return f"{{what}} {{errno.errorcode[exc.errno]}}"
    return f"{{what}} worked"
def tcp():
    with socket.create_connection(("127.0.0.1", {tcp}), timeout=5):
        pass
def udp():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"x", ("127.0.0.1", {udp}))
outcomes = [
    attempt("tcp", tcp),
    attempt("udp", udp),
    attempt("secret", lambda: open({secret!r}).read()),
    attempt("hostname", lambda: open("/etc/hostname").read()),
    attempt("write", lambda: open({beside!r}, "w").close()),
    attempt("own input", lambda: open(sys.argv[1]).read()),
]
print("; ".join(outcomes), file=sys.stderr)
"""
PROGRAM_END = "sys.exit(0 if any(o.endswith('worked') for o in outcomes[:-1]) else 3)\n"
CODEFORCES_END = "print(1 if any(o.endswith('worked') for o in outcomes[:-1]) else 0)\n"
REFUSED = "tcp EACCES; udp EACCES; secret EACCES; hostname EACCES; write EACCES; own input worked"


def _probe(listeners, secret: str) -> str:
    tcp, udp = listeners
    beside = os.path.join(os.path.dirname(secret), "written")
    return PROBE.format(
        tcp=tcp.getsockname()[1], udp=udp.getsockname()[1], secret=secret, beside=beside
    )


def test_a_program_checker_gets_no_network_and_no_file_beyond_its_own(listeners, secret, tmp_path):
    path = tmp_path / "checker.py"
    path.write_text(f"#!{sys.executable}\n" + _probe(listeners, secret) + PROGRAM_END)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    checker = build_checker({"type": "program", "path": str(path)}, str(tmp_path))
    verdict, message = checker.run("12\n", b"2 6\n", "2 6\n")
    assert (verdict, message) == (Verdict.ERROR, f"checker failed with exit status 3: {REFUSED}")
    assert _nothing_arrived(*listeners)
    assert not os.path.exists(os.path.join(os.path.dirname(secret), "written"))


def test_a_codeforces_checker_gets_no_network_and_no_file_beyond_its_own(listeners, secret):
    checker = build_checker(
        {"type": "codeforces", "code": _probe(listeners, secret) + CODEFORCES_END}
    )
    verdict, message = checker.run("12\n", b"2 6\n", "2 6\n")
    assert (verdict, message) == (Verdict.WA, "rejected by the checker: it printed '0'")
    assert _nothing_arrived(*listeners)
    assert not os.path.exists(os.path.join(os.path.dirname(secret), "written"))


def test_a_checker_that_gets_through_is_accepted(tmp_path):
    """The probe's other side: the same checker accepts when an attempt works (here its own
    input), so the refusals above are the launcher's, not a broken probe."""
    code = "import sys\nprint(1 if open(sys.argv[1]).read() == '12\\n' else 0)\n"
    checker = build_checker({"type": "codeforces", "code": code})
    assert checker.run("12\n", b"2 6\n", "2 6\n") == (Verdict.AC, "")


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++")
def test_a_build_cannot_read_a_file_beyond_the_toolchain(secret):
    cpp = get_language("cpp")
    source = f'#include "{secret}"\nint main() {{}}\n'
    with tempfile.TemporaryDirectory() as work:
        tool = ConfinedTool(BuildLimits())
        build = cpp.build(source, cpp.default_flags, work, tool)
    assert not build.ok
    assert f"{secret}: Permission denied" in build.output, build.output
    assert SECRET not in build.output


def test_a_build_tool_gets_no_network_and_no_file_beyond_its_own(listeners, secret):
    """Any tool a build runs, here a shell: no socket (bash's /dev/tcp), no file outside
    the toolchain, nothing written outside its directory."""
    script = _shell_probe(listeners, secret)
    with tempfile.TemporaryDirectory() as work:
        run = ConfinedTool(BuildLimits())(["/bin/bash", "-c", script], work)
        assert os.path.isfile(os.path.join(work, "own"))
    output = run.output.decode()
    assert run.status == 0 and run.limit is None, run
    for line in SHELL_REFUSED:
        assert line in output.splitlines(), output
    assert SECRET not in output and output.count("Permission denied") >= 5, output
    assert _nothing_arrived(*listeners)
    assert not os.path.exists(os.path.join(os.path.dirname(secret), "written"))


NOT_ROOT = """
import os, sys, tempfile
from evaluator.sandbox.launcher import TrustedLimits, launch
with tempfile.TemporaryDirectory() as work, tempfile.TemporaryFile() as out:
    os.chmod(work, 0o755)  # the launcher's work, as a grader's
    limits = TrustedLimits(time_limit=5.0, memory_limit=512, output_bytes=1 << 20, wall_limit=60.0)
    run = launch(["/bin/bash", "-c", sys.argv[1]], work, limits, out=out, err=out)
    out.seek(0)
    print("uid", os.geteuid(), "status", run.status, "limit", run.limit)
    print(out.read().decode(), end="")
"""


def test_a_grader_that_is_not_root_gives_no_network_and_no_file_either(listeners, secret):
    """The fallback: a grader run as ``nobody`` has no network namespace to give and no
    user to switch to; the seccomp filter (no socket) and Landlock still hold."""
    done = run_as_nobody(NOT_ROOT, _shell_probe(listeners, secret))
    assert done.returncode == 0, done.stderr[-3000:]
    first, *output = done.stdout.splitlines()
    assert first == f"uid {NOBODY} status 0 limit None", done.stdout
    for line in SHELL_REFUSED:
        assert line in output, done.stdout
    assert SECRET not in done.stdout and done.stdout.count("Permission denied") >= 5, done.stdout
    assert _nothing_arrived(*listeners)
    assert not os.path.exists(os.path.join(os.path.dirname(secret), "written"))
