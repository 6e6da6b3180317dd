"""Sandbox profiles: readable JSON files in ``sandbox_profiles/`` (or any path a user gives).

A profile says which syscalls a program may make (a seccomp filter written as rules), whether
Landlock confines its file access, whether it gets empty network and IPC namespaces, whether a
root grader runs its children as an unprivileged user of their own, and whether a child drops
its capabilities. Schema (see ``sandbox_profiles/default.json``)::

    {"name": str, "description": str,
     "seccomp": null | {"default_action": "allow" | "errno:EPERM" | "kill",
                        "rules": [RULE, ...],
                        "same_user_rules": [RULE, ...]},
     "landlock": bool, "network_namespace": bool, "ipc_namespace": bool,
     "unprivileged_child": bool, "child_id_base": int (optional),
     "drop_capabilities": bool}
    RULE = {"action": ..., "syscalls": [str, ...],
            "args": [{"index": 0-5, "op": "eq|ne|lt|le|gt|ge|masked_eq",
                      "value": int, "mask": int}]}

An action is ``allow``, ``kill`` (the process dies with SIGSYS) or ``errno:NAME`` (the call
fails with that errno, so Python raises ``OSError``/``PermissionError``). ``same_user_rules``
apply on top of ``rules`` only where a child keeps the grader's own user (a grader that is
not root, or a root one whose children's user could not be made to work): the calls that
only ownership of the grader's files, or being the same user as other children, would
otherwise let through.
"""

from __future__ import annotations

import base64
import errno as errno_module
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox_profiles import PROFILE_DIR

_OWN_DIRS = ("evaluator", "trainer_addon", "sandbox_profiles")  # never readable by programs


class ProfileError(ValueError):
    """A profile file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Profile:
    name: str
    path: str
    seccomp: dict[str, Any] | None
    landlock: bool
    network_namespace: bool
    drop_capabilities: bool
    ipc_namespace: bool = False
    unprivileged_child: bool = False
    child_id_base: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """What a fork server needs: the flags, and the seccomp filter compiled to BPF for
        this kernel (without Landlock, the filter also forbids opening files for writing):
        for a child that runs Python and one that executes a program file, each for a child
        of its own user and for one that keeps the grader's (``_same_user``)."""
        from evaluator.sandbox.kernel import landlock_abi

        filters: dict[str, str | None] = {}
        for suffix, same_user in (("", False), ("_same_user", True)):
            bpf = exec_bpf = None
            if self.seccomp is not None:
                spec = self.seccomp
                if self.landlock and landlock_abi() == 0:
                    spec = _without_landlock(spec)
                if same_user:
                    spec = {
                        **spec,
                        "rules": spec.get("rules", []) + spec.get("same_user_rules", []),
                    }
                bpf = base64.b64encode(compile_seccomp(spec, where=self.path)).decode()
                exec_spec = exec_variant(spec)
                exec_bpf = base64.b64encode(compile_seccomp(exec_spec, where=self.path)).decode()
            filters["seccomp_bpf" + suffix] = bpf
            filters["seccomp_exec_bpf" + suffix] = exec_bpf
        return {
            "name": self.name,
            **filters,
            "readable": readable_paths() if self.landlock else [],
            "landlock": self.landlock,
            "network_namespace": self.network_namespace,
            "ipc_namespace": self.ipc_namespace,
            "unprivileged_child": self.unprivileged_child,
            "child_id_base": self.child_id_base,
            "drop_capabilities": self.drop_capabilities,
        }


DEFAULT_PROFILE = "default"  # the profile a pool, a grader, a run and a server use unless told


def available_profiles() -> list[str]:
    return sorted(p.stem for p in PROFILE_DIR.glob("*.json"))


def load_profile(name_or_path: str | os.PathLike[str] = DEFAULT_PROFILE) -> Profile:
    """Load a shipped profile by name (``default``, ``permissive``) or any JSON file by path."""
    text = str(name_or_path)
    path = (
        Path(text) if (os.sep in text or text.endswith(".json")) else PROFILE_DIR / f"{text}.json"
    )
    if not path.is_file():
        raise ProfileError(
            f"sandbox profile {text!r} not found (shipped: {', '.join(available_profiles())})"
        )
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: a profile is a JSON object")
    profile = Profile(
        name=str(data.get("name", path.stem)),
        path=str(path),
        seccomp=data.get("seccomp"),
        landlock=bool(data.get("landlock", False)),
        network_namespace=bool(data.get("network_namespace", False)),
        drop_capabilities=bool(data.get("drop_capabilities", False)),
        ipc_namespace=bool(data.get("ipc_namespace", False)),
        unprivileged_child=bool(data.get("unprivileged_child", False)),
        child_id_base=_id_base(data.get("child_id_base"), path),
    )
    if profile.seccomp is not None:
        same = profile.seccomp.get("same_user_rules", [])
        for rule in [*profile.seccomp.get("rules", []), *same]:
            if isinstance(rule, dict) and rule.get("action") == _NOTIFY:
                raise ProfileError(f"{path}: the action {_NOTIFY!r} is the sandbox's own")
        compile_seccomp(profile.seccomp, where=str(path))  # validate now, with file context
        compile_seccomp({"rules": same}, where=f"{path}: same_user_rules")
    return profile


def _id_base(value: Any, path: Path) -> int | None:
    if value is None:
        return None
    top = (1 << 31) - (1 << 22)  # plus any pid (at most 2^22), below 2^31
    if not isinstance(value, int) or isinstance(value, bool) or not 1 << 16 <= value <= top:
        raise ProfileError(f"{path}: child_id_base must be an integer in [65536, {top}]")
    return value


def _action(spec: Any, where: str) -> Any:
    import pyseccomp

    if spec == "allow":
        return pyseccomp.ALLOW
    if spec == "kill":
        return pyseccomp.KILL_PROCESS
    if spec == _NOTIFY:  # the exec variant's own (see exec_variant), never a profile's
        return pyseccomp.NOTIFY
    if isinstance(spec, str) and spec.startswith("errno:"):
        code = getattr(errno_module, spec.removeprefix("errno:"), None)
        if isinstance(code, int):
            return pyseccomp.ERRNO(code)
    raise ProfileError(f"{where}: unknown action {spec!r} (allow, kill, errno:NAME)")


_OPS = ("eq", "ne", "lt", "le", "gt", "ge", "masked_eq")


def _arg(spec: dict[str, Any], where: str) -> Any:
    import pyseccomp

    op = spec.get("op")
    if op not in _OPS:
        raise ProfileError(f"{where}: field 'op' must be one of {', '.join(_OPS)}, not {op!r}")
    value = int(spec.get("value", 0))
    if op == "masked_eq":
        return pyseccomp.Arg(int(spec["index"]), pyseccomp.MASKED_EQ, int(spec["mask"]), value)
    return pyseccomp.Arg(int(spec["index"]), getattr(pyseccomp, op.upper()), value)


def compile_seccomp(spec: dict[str, Any], where: str = "profile") -> bytes:
    """Turn the profile's seccomp rules into a classic-BPF program for this architecture."""
    import pyseccomp

    flt = pyseccomp.SyscallFilter(_action(spec.get("default_action", "allow"), where))
    for number, rule in enumerate(spec.get("rules", [])):
        here = f"{where}: seccomp.rules[{number}]"
        action = _action(rule.get("action"), here)
        args = [_arg(a, here) for a in rule.get("args", [])]
        for name in rule.get("syscalls", []):
            call = name
            if (
                name in _NEWER_SYSCALLS
                and pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name) < 0
            ):
                call = _NEWER_SYSCALLS[name]  # newer than this libseccomp: by its number
            try:
                flt.add_rule(action, call, *args)
            except (ValueError, RuntimeError, OSError) as exc:
                # Unknown on this architecture (e.g. 'fork' on aarch64): nothing to filter.
                if "resolve" in str(exc).lower() or getattr(exc, "errno", 0) == errno_module.EINVAL:
                    continue
                raise ProfileError(f"{here}: syscall {name!r}: {exc}") from None
    with tempfile.TemporaryFile() as out:
        flt.export_bpf(out)
        out.seek(0)
        return out.read()


_NOTIFY = "notify"
# Syscalls newer than the libseccomp this project pins knows, by their number (the same on
# every architecture since 5.1's unified table).
_NEWER_SYSCALLS = {"setxattrat": 463, "removexattrat": 466, "file_setattr": 469}


def exec_variant(spec: dict[str, Any]) -> dict[str, Any]:
    """The filter of a child that runs a program file (``Job.executable``): the profile's
    rules, but every ``execveat`` goes to a user-space listener (``SECCOMP_RET_USER_NOTIF``)
    instead of the profile's action. The child holds the listener close-on-exec and lets its
    own exec of the program file through (:func:`evaluator.sandbox.kernel.let_one_call_through`);
    that exec closes the listener, and from then on the kernel fails every ``execveat``
    (``ENOSYS``: a notification nobody can answer) whatever its arguments, so no descriptor,
    path or file the program makes can be executed: exactly one exec, the program's own.
    Every other exec call stays as the profile says. The profile must refuse ``seccomp`` with
    ``SECCOMP_FILTER_FLAG_NEW_LISTENER`` (the default one does): a listener of the program's
    own, on a filter of its own, would answer its own execs."""
    rules = []
    for rule in spec.get("rules", []):
        names = [name for name in rule.get("syscalls", []) if name != "execveat"]
        if names:
            rules.append({**rule, "syscalls": names})
    rules.append({"action": _NOTIFY, "syscalls": ["execveat"]})
    return {**spec, "rules": rules}


def _without_landlock(spec: dict[str, Any]) -> dict[str, Any]:
    """No Landlock on this kernel: seccomp alone cannot tell paths apart, so the program may
    not open any file for writing (not even in its temp dir) nor delete or rename files."""
    flags = [(os.O_WRONLY, os.O_WRONLY), (os.O_RDWR, os.O_RDWR), (os.O_CREAT, os.O_CREAT)]
    rules = list(spec.get("rules", []))
    for mask, value in flags:
        for syscall, index in (("open", 1), ("openat", 2)):
            arg = {"index": index, "op": "masked_eq", "mask": mask, "value": value}
            rules.append({"action": "errno:EACCES", "syscalls": [syscall], "args": [arg]})
    rules.append(
        {
            "action": "errno:EPERM",
            "syscalls": [
                "unlink",
                "unlinkat",
                "rename",
                "renameat",
                "renameat2",
                "mkdir",
                "mkdirat",
                "rmdir",
                "truncate",
                "symlink",
                "symlinkat",
                "link",
                "linkat",
                "chmod",
                "fchmodat",
            ],
        }
    )
    return {**spec, "rules": rules}


def readable_paths() -> list[str]:
    """What a program may read: the interpreter's installation (minus this project's own
    packages and data), shared libraries, time zones, a few devices and /proc files.
    Never the caller's files, the problem or results files, or /proc/<other pid>."""
    import site
    import sysconfig

    site_dirs = {os.path.realpath(p) for p in site.getsitepackages() + [site.getusersitepackages()]}
    site_dirs |= {os.path.realpath(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")}
    stdlib = {os.path.realpath(sysconfig.get_paths()[k]) for k in ("stdlib", "platstdlib")}
    paths: set[str] = set()
    for root in stdlib | site_dirs:
        paths.update(_allowed_under(root, site_dirs))
    paths.update(
        p
        for p in (
            "/usr/lib",
            "/lib",
            "/lib64",
            "/usr/lib64",
            "/usr/local/lib",
            "/etc/ld.so.cache",
            "/etc/localtime",
            "/usr/share/zoneinfo",
            "/proc/cpuinfo",
            "/proc/meminfo",
            "/sys/devices/system/cpu",
            "/dev/urandom",
            "/dev/random",
            os.path.realpath(sys.executable),
        )
        if os.path.exists(p)
    )
    return sorted(paths)


def _is_own(name: str) -> bool:
    """This project's packages, whose data (the demo set's expected outputs) stays unreadable.
    Its dist-info and editable-install hooks hold nothing secret."""
    return name in _OWN_DIRS


def _allowed_under(root: str, site_dirs: set[str]) -> list[str]:
    """``root`` as one rule when it holds none of this project's packages (an editable
    install), else its entries one by one without ours: Landlock only allows, never carves
    out, and each rule costs every child a little."""
    if not os.path.isdir(root):
        return []
    entries = list(os.scandir(root))
    nested = [e.path for e in entries if os.path.realpath(e.path) in site_dirs]
    if not any(_is_own(e.name) for e in entries) and not any(
        _is_own(e.name) for path in nested for e in os.scandir(path)
    ):
        return [root]
    allowed = []
    for entry in entries:
        if _is_own(entry.name):
            continue
        if os.path.realpath(entry.path) in site_dirs:
            allowed += _allowed_under(entry.path, set())
        else:
            allowed.append(entry.path)
    return allowed
