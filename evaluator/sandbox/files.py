"""File helpers shared by the fork server and the sandbox children: what a test wrote on a
memfd, a test's input and output files in the run directory, and emptying that directory
(without ``shutil``, which imports compression modules that every fork would pay for)."""

from __future__ import annotations

import os
import stat

STDERR_KEEP = 16 << 10  # keep the end of stderr, where the traceback is


def read_output(fd: int, limit: int) -> bytes:
    """What a test wrote on a memfd (at most ``limit`` bytes), which is then emptied."""
    size = min(os.fstat(fd).st_size, limit)
    if not size:
        return b""
    data = os.pread(fd, size, 0)
    os.ftruncate(fd, 0)
    return data


def read_all(fd: int) -> bytes:
    """The whole content of a memfd or regular file, from offset 0."""
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0) if size else b""


def fill(fd: int, data: bytes) -> None:
    """Replace the content of a memfd with ``data``."""
    os.ftruncate(fd, 0)
    view, offset = memoryview(data), 0
    while offset < len(data):
        offset += os.pwrite(fd, view[offset:], offset)


def tree_bytes(path: str, enough: int) -> int:
    """Bytes the files under ``path`` hold (their allocated blocks: a sparse file holds
    what it wrote), not following symlinks; the count stops once it passes ``enough``."""
    total, todo = 0, [path]
    while todo and total <= enough:
        try:
            entries = list(os.scandir(todo.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    todo.append(entry.path)
                else:
                    total += entry.stat(follow_symlinks=False).st_blocks * 512
            except OSError:
                pass
    return total


def clear_dir(path: str) -> None:
    """Remove what is inside ``path`` (not following symlinks); errors are ignored."""
    try:
        entries = list(os.scandir(path))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                remove_tree(entry.path)
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def remove_tree(path: str) -> None:
    """``shutil.rmtree`` without importing shutil."""
    clear_dir(path)
    try:
        os.rmdir(path)
    except OSError:
        pass


def is_plain_name(name: object) -> bool:
    """Whether ``name`` names a file directly inside a directory: no ``/``, not ``.`` or
    ``..``, no NUL, not empty (a test's input and output files, ``Job.input_file``)."""
    return (
        isinstance(name, str)
        and name not in ("", ".", "..")
        and "/" not in name
        and "\0" not in name
        and len(name.encode("utf-8", "surrogateescape")) <= 255
    )


def write_file(dir_fd: int, name: str, data: bytes) -> int:
    """Create ``name`` in the directory ``dir_fd`` (it must not exist: the caller emptied the
    directory) holding ``data``; the bytes it takes on disk."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(name, flags, 0o644, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        return os.fstat(fd).st_blocks * 512
    finally:
        os.close(fd)


OVER_LIMIT = "over the limit"  # read_regular's reason for a file of more than ``limit`` bytes


def read_regular(dir_fd: int, name: str, limit: int) -> tuple[bytes, str | None]:
    """The content of ``name`` in the directory ``dir_fd`` and None, when it is a regular file
    of one link and at most ``limit`` bytes; else ``b""`` and why not (``missing``, ``a
    symbolic link``..., :data:`OVER_LIMIT`). Never follows a symbolic link (one could name a
    file of the host), never opens anything but a regular file (a FIFO would block, a device
    act), and never reads a hard link (its other name may be outside the directory)."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return b"", "missing"
    except OSError as exc:
        return b"", f"unreadable ({exc.strerror})"
    if not stat.S_ISREG(info.st_mode):
        return b"", _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError as exc:  # replaced since the stat: by a symlink (ELOOP), say
        return b"", f"unreadable ({exc.strerror})"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return b"", "not a regular file"
        if info.st_nlink != 1:
            return b"", "a hard link"
        if info.st_size > limit:
            return b"", OVER_LIMIT
        chunks, offset = [], 0
        while offset < info.st_size:
            chunk = os.pread(fd, info.st_size - offset, offset)
            if not chunk:  # truncated since the fstat
                break
            chunks.append(chunk)
            offset += len(chunk)
        return b"".join(chunks), None
    finally:
        os.close(fd)


_KINDS = {
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
}
