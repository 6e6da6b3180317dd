"""A test's files in the run directory, by name or relative path (``Job.input_file``,
``output_file``, ``files``, ``fetch_files``): the names checked, the files written and read
back through the directory's descriptor, never following a link and never reading anything
but a regular file of one link."""

from __future__ import annotations

import os
import stat

from evaluator.sandbox.files.sizes import held_bytes
from evaluator.sandbox.files.walk import DIR_FLAGS


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


def write_file(dir_fd: int, name: str, data: bytes, mode: int | None = None) -> int:
    """Create ``name`` in the directory ``dir_fd`` (it must not exist: the caller emptied the
    directory) holding ``data``, with ``mode`` if given (whatever the umask), else 0o644
    less the umask; what it counts toward the files held (:func:`held_bytes`)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(name, flags, 0o644, dir_fd=dir_fd)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        return held_bytes(os.fstat(fd))
    finally:
        os.close(fd)


MAX_PATH_PARTS = 16  # directories (and the file) a job's given or fetched path may name


def is_relative_path(path: object) -> bool:
    """Whether ``path`` names a file below a directory: plain names (:func:`is_plain_name`)
    joined by ``/``, at most :data:`MAX_PATH_PARTS` of them (``Job.files``, ``fetch_files``).
    Never absolute, never ``.`` or ``..``, no empty part: it cannot leave the directory."""
    if not isinstance(path, str) or len(path) > 4096:
        return False
    parts = path.split("/")
    if len(parts) > MAX_PATH_PARTS:
        return False
    try:
        return all(is_plain_name(part) for part in parts)
    except UnicodeEncodeError:  # a lone surrogate no file name can hold
        return False


def _open_dirs(dir_fd: int, parts: list[str], make: bool) -> int:
    """The directory ``parts`` names below ``dir_fd``, opened (made first with ``make``:
    writable by anyone, as the program's user needs them); each step opened without
    following a link. The caller closes the descriptor."""
    fd = os.dup(dir_fd)
    try:
        for part in parts:
            made = False
            if make:
                try:
                    os.mkdir(part, 0o700, dir_fd=fd)
                    made = True
                except FileExistsError:  # an earlier file's directory
                    pass
            below = os.open(part, DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = below
            if made:  # through the descriptor: the name may have been swapped since
                os.fchmod(fd, 0o777)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_path(dir_fd: int, path: str, data: bytes) -> int:
    """Create the file ``path`` (:func:`is_relative_path`) below ``dir_fd`` holding ``data``,
    with the directories it names; the file readable and writable by the program's user
    (a job's given files are the program's to change). What it counts toward the files
    held (:func:`held_bytes`). Raises ``OSError`` where a part exists and is not a
    directory, or the file exists."""
    *parts, name = path.split("/")
    fd = _open_dirs(dir_fd, parts, make=True)
    try:
        return write_file(fd, name, data, 0o666)
    finally:
        os.close(fd)


def read_path(dir_fd: int, path: str, limit: int) -> tuple[bytes, str | None]:
    """:func:`read_regular` of ``path`` (:func:`is_relative_path`) below ``dir_fd``: each
    directory on the way opened without following a link; ``missing`` when one is not
    there or is not a directory."""
    *parts, name = path.split("/")
    try:
        fd = _open_dirs(dir_fd, parts, make=False)
    except FileNotFoundError:
        return b"", "missing"
    except OSError as exc:  # a link or a file where a directory should be (ELOOP, ENOTDIR)
        return b"", f"unreadable ({exc.strerror})"
    try:
        return read_regular(fd, name, limit)
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
