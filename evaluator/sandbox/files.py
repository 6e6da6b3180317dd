"""File helpers shared by the pool, the fork server and the sandbox children: what a test wrote
on a memfd, a test's input and output files in the run directory, what the files a program
made hold, emptying that directory and putting back its own attributes, removing a worker's
directory. The walks are iterative and descriptor-relative (no full paths, no recursion, never
a link followed), so no tree a program can make defeats them; without ``shutil``, which
imports compression modules that every fork would pay for."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time

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


ENTRY_BYTES = 4096
"""What a file or directory in the run directory counts at least toward what a program holds:
an empty file or directory takes no block, but its inode and directory entry take kernel memory
(about 1.3 KB on ext4) and an inode of the file system; a page is what a one-byte file takes."""

CLEAR_ENTRIES = 200_000  # the most entries the server removes between two children ...
CLEAR_SECONDS = 5.0  # ... or the longest it spends on them: past either, the worker retires


class Unclean(Exception):
    """A directory could not be emptied (or its own attributes put back) within bounds: the
    worker that holds it retires."""


def held_bytes(info: os.stat_result) -> int:
    """What one entry counts toward the files a program holds (:data:`ENTRY_BYTES` at least)."""
    return max(info.st_blocks * 512, ENTRY_BYTES)


# -- walking a tree a program made -----------------------------------------------------------
#
# Every open is relative to the directory above it, with O_NOFOLLOW | O_DIRECTORY: a symbolic
# link is never followed and nothing outside the tree is ever opened, whatever the program
# renames while the walk goes on. No full paths (a chain deeper than PATH_MAX is walked like
# any other) and no recursion (a chain deeper than the interpreter's recursion limit too).

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
_KEEP = 16  # directories held open on the way down; those above are reopened through ".."


class _Moved(Exception):
    """A directory on the walk's path was moved (only a running program can): the walk stops
    rather than follow ``..`` anywhere it was not."""


class _Frame:
    __slots__ = ("fd", "name", "dev", "ino", "todo")

    def __init__(self, fd: int, name: str, dev: int, ino: int) -> None:
        self.fd, self.name, self.dev, self.ino = fd, name, dev, ino  # fd -1: closed
        self.todo: list[str] | None = None  # subdirectories still to visit, once listed


class _Tree:
    """An iterative depth-first walk below a directory the caller holds open. At most
    :data:`_KEEP` descriptors stay open on the way down; a directory above them is reopened
    through ``..`` on the way up, and only if it is the same directory (device and inode) as
    on the way down."""

    __slots__ = ("stack",)

    def __init__(self, root_fd: int) -> None:
        self.stack = [_Frame(root_fd, "", -1, -1)]  # the root is never reopened

    @property
    def top(self) -> _Frame:
        return self.stack[-1]

    def descend(self, name: str) -> os.stat_result | None:
        """Enter the subdirectory ``name`` of the top directory; its stat, or None when it is
        not a directory (any more: a running program may have replaced it) or is gone. Raises
        PermissionError for one this process may not open."""
        try:
            fd = os.open(name, _DIR, dir_fd=self.top.fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno in (errno.ENOTDIR, errno.ELOOP):
                return None
            raise
        try:
            info = os.fstat(fd)
        except BaseException:
            os.close(fd)
            raise
        self.stack.append(_Frame(fd, name, info.st_dev, info.st_ino))
        if len(self.stack) > _KEEP + 1:
            far = self.stack[-_KEEP - 1]
            if far.fd >= 0:
                os.close(far.fd)
                far.fd = -1
        return info

    def ascend(self) -> _Frame:
        """Leave the top directory (closed); the frame it had (its name in its parent)."""
        child = self.stack.pop()
        parent = self.stack[-1]
        try:
            if parent.fd < 0:
                fd = os.open("..", _DIR, dir_fd=child.fd)
                info = os.fstat(fd)
                if (info.st_dev, info.st_ino) != (parent.dev, parent.ino):
                    os.close(fd)
                    raise _Moved(parent.name)
                parent.fd = fd
        finally:
            os.close(child.fd)
            child.fd = -1
        return child

    def close(self) -> None:
        for frame in self.stack[1:]:
            if frame.fd >= 0:
                os.close(frame.fd)
                frame.fd = -1
        del self.stack[1:]


def tree_bytes(dir_fd: int, enough: int, keep: frozenset[str] = frozenset()) -> int:
    """What the files and directories below the directory open at ``dir_fd`` hold (each entry
    its allocated blocks, :data:`ENTRY_BYTES` at least: :func:`held_bytes`), at any depth,
    never following a link; the count stops once it passes ``enough``, so a walk costs at
    most ``enough / ENTRY_BYTES`` entries. A directory that cannot be listed, or a tree that
    keeps moving under the walk, counts as more than ``enough``: a program cannot hide what
    it holds that way. ``keep``: entries of the top directory left out (the sandbox's own)."""
    for _ in range(3):
        try:
            return _count(dir_fd, enough, keep)
        except _Moved:
            continue
        except OSError:
            break
    return enough + 1


class _Enough(Exception):
    """The count passed what it had to know: the walk stops."""


class _Visitor:
    """What a walk (:func:`_walk`) does at each entry of a directory it lists, at each
    subdirectory it enters, and at each it leaves."""

    __slots__ = ()

    def entry(self, dir_fd: int, entry: os.DirEntry[str]) -> bool:
        """Deal with one entry of the directory open at ``dir_fd``; True when it is a
        directory to walk into."""
        raise NotImplementedError

    def enter(self, tree: _Tree, name: str) -> None:
        """Walk into the subdirectory ``name`` of ``tree.top`` (``tree.descend``)."""
        raise NotImplementedError

    def leave(self, tree: _Tree, gone: _Frame) -> None:
        """The walk came back up from ``gone`` (``tree.top`` is its parent again)."""


def _walk(dir_fd: int, visitor: _Visitor, keep: frozenset[str] = frozenset()) -> None:
    """Walk the tree below the directory open at ``dir_fd``, depth first, each directory
    listed when first reached (again when its ``todo`` is reset to None), ``visitor`` told
    of each entry, each descent and each ascent; the entries of ``dir_fd`` named in ``keep``
    are passed over."""
    tree = _Tree(dir_fd)
    try:
        while True:
            top = tree.top
            if top.todo is None:
                top.todo = []
                skip = keep if len(tree.stack) == 1 else ()
                with os.scandir(top.fd) as listing:
                    for entry in listing:
                        if entry.name in skip:
                            continue
                        if visitor.entry(top.fd, entry):
                            top.todo.append(entry.name)
            if top.todo:
                visitor.enter(tree, top.todo.pop())
                continue
            if len(tree.stack) == 1:
                return
            visitor.leave(tree, tree.ascend())
    finally:
        tree.close()


class _Counter(_Visitor):
    """Adds up what the entries hold (:func:`held_bytes`); raises :class:`_Enough` past
    ``enough``."""

    __slots__ = ("total", "enough")

    def __init__(self, enough: int) -> None:
        self.total, self.enough = 0, enough

    def add(self, info: os.stat_result) -> None:
        self.total += held_bytes(info)
        if self.total > self.enough:
            raise _Enough

    def entry(self, dir_fd: int, entry: os.DirEntry[str]) -> bool:
        if entry.is_dir(follow_symlinks=False):
            return True
        try:
            self.add(entry.stat(follow_symlinks=False))
        except FileNotFoundError:
            pass
        return False

    def enter(self, tree: _Tree, name: str) -> None:
        info = tree.descend(name)
        if info is not None:
            self.add(info)


def _count(dir_fd: int, enough: int, keep: frozenset[str]) -> int:
    counter = _Counter(enough)
    try:
        _walk(dir_fd, counter, keep)
    except _Enough:
        pass
    return counter.total


class _Clearer(_Visitor):
    """Removes each file as it is listed and each directory once it is left empty, within
    a :class:`_Budget`; counts what it removed."""

    __slots__ = ("budget", "removed")

    def __init__(self, budget: _Budget) -> None:
        self.budget, self.removed = budget, 0

    def entry(self, dir_fd: int, entry: os.DirEntry[str]) -> bool:
        self.budget.charge()
        if entry.is_dir(follow_symlinks=False) or not _unlink(dir_fd, entry.name):
            return True
        self.removed += 1
        return False

    def enter(self, tree: _Tree, name: str) -> None:
        info = _enter(tree, name)
        if info is None:  # not a directory any more: a file in its place
            self.removed += _unlink(tree.top.fd, name)
        elif info.st_mode & 0o700 != 0o700:
            os.fchmod(tree.top.fd, stat.S_IMODE(info.st_mode) | 0o700)

    def leave(self, tree: _Tree, gone: _Frame) -> None:
        try:
            os.rmdir(gone.name, dir_fd=tree.top.fd)
            self.removed += 1
        except FileNotFoundError:
            pass
        except OSError as exc:
            if exc.errno != errno.ENOTEMPTY:
                raise
            tree.top.todo = None  # it filled again (a running program): list once more


def clear_dir(
    dir_fd: int,
    entries: int | None = CLEAR_ENTRIES,
    seconds: float | None = CLEAR_SECONDS,
    keep: frozenset[str] = frozenset(),
) -> int:
    """Remove everything below the directory open at ``dir_fd`` (it stays), at any depth,
    never following a link and never leaving it; the number of entries removed. Bounded:
    past ``entries`` entries seen or ``seconds`` spent (None: no bound), or on an entry that
    will not go, raises :class:`Unclean` (what is left stays for the caller to deal with).
    A directory whose owner took away its own rights is given them back (matters only when
    this process is not root). ``keep``: entries of ``dir_fd`` itself that stay (the
    sandbox's own, which a program cannot change)."""
    clearer = _Clearer(_Budget(entries, seconds))
    try:
        _walk(dir_fd, clearer, keep)
    except _Moved as exc:
        raise Unclean(f"a directory was moved during the cleanup ({exc})") from None
    except OSError as exc:
        raise Unclean(f"cannot remove {exc.filename or 'an entry'!r}: {exc.strerror}") from None
    return clearer.removed


class _Budget:
    __slots__ = ("left", "deadline", "entries", "seconds")

    def __init__(self, entries: int | None, seconds: float | None) -> None:
        self.entries, self.seconds = entries, seconds
        self.left = entries if entries is not None else -1
        self.deadline = time.monotonic() + seconds if seconds is not None else None

    def charge(self) -> None:
        self.left -= 1
        if self.left == -1:
            raise Unclean(f"more than {self.entries} entries")
        deadline = self.deadline
        if deadline is not None and not self.left & 1023 and time.monotonic() > deadline:
            raise Unclean(f"more than {self.seconds} s")


def _enter(tree: _Tree, name: str) -> os.stat_result | None:
    """:meth:`_Tree.descend`; a directory this process may not open (not root, its owner took
    its rights away) is given them back first."""
    try:
        return tree.descend(name)
    except PermissionError:
        _grant(tree.top.fd, name)
        return tree.descend(name)


def _grant(dir_fd: int, name: str) -> None:
    """Give the directory ``name`` its owner's rights back, through an O_PATH descriptor
    (which needs none, and never follows a link) and its /proc name."""
    fd = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        os.chmod(f"/proc/self/fd/{fd}", 0o700)
    finally:
        os.close(fd)


def _unlink(dir_fd: int, name: str) -> bool:
    """Remove a non-directory; False if ``name`` is a directory (now)."""
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        return False
    return True


def remove_tree(path: str) -> None:
    """Remove the directory ``path`` and everything below it, however deep, never following
    a link (``path`` itself included): :func:`clear_dir`'s walk, without bounds. Nothing to
    do if it is gone; raises OSError if something stays."""
    for attempt in range(3):
        try:
            fd = os.open(path, _DIR)
        except FileNotFoundError:
            return
        try:
            clear_dir(fd, entries=None, seconds=None)
        except Unclean:
            if attempt == 2:
                raise
        finally:
            os.close(fd)
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.ENOTEMPTY or attempt == 2:
                raise


# -- what a program can mark on an inode that outlives it ------------------------------------

_FS_IOC_GETFLAGS, _FS_IOC_SETFLAGS = 0x80086601, 0x40086602  # inode flags (chattr)
_FS_IOC_FSGETXATTR, _FS_IOC_FSSETXATTR = 0x801C581F, 0x401C5820  # xflags, extsize, project
_FS_IOC_GET_ENCRYPTION_POLICY = 0x400C6615
_F_GET_RW_HINT, _F_SET_RW_HINT = 1035, 1036  # the inode's write-life hint
_F_GETOWN, _F_SETOWN, _F_GETSIG, _F_SETSIG = 9, 8, 11, 10
_F_GETLEASE, _F_SETLEASE = 1025, 1024
_NOT_HERE = (errno.ENOTTY, errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS)


def _query(fd: int, request: int, size: int, fcntl_call: bool = False) -> bytes | None:
    """An ioctl (or fcntl) that reads ``size`` bytes; None where this kind of file has none."""
    try:
        call = fcntl.fcntl if fcntl_call else fcntl.ioctl
        return bytes(call(fd, request, bytes(size)))
    except OSError as exc:
        if exc.errno in _NOT_HERE:
            return None
        raise


def _fsx(raw: bytes | None) -> bytes | None:
    """struct fsxattr without fsx_nextents (which a directory's growth changes)."""
    return None if raw is None else raw[:4] + raw[4:8] + raw[12:20]


def _encryption(fd: int) -> int | None:
    """0: no encryption policy; 1: one (it cannot be removed); None: not on this file system."""
    try:
        fcntl.ioctl(fd, _FS_IOC_GET_ENCRYPTION_POLICY, bytes(12))
    except OSError as exc:
        if exc.errno == errno.ENODATA:
            return 0
        if exc.errno in _NOT_HERE:
            return None
    return 1


class Marks:
    """What a program can set on an inode it is given that outlives it, as the inode was made:
    its mode, owner, access and modification times, extended attributes (``user.*``, POSIX
    ACLs), inode flags (``chattr``), the ``fsxattr`` fields (flags, extent size, project), its
    write-life hint, and for a directory its size, link count and encryption policy (the
    last cannot be removed, and a directory on ext4 never shrinks back: one a program filled
    cannot be put back). With ``stream`` (a stdio memfd, which its tests write and the server
    refills anyway) the times are set to now rather than compared, and what a program can set
    on the open file description it shares with the server is reset too: the status flags
    (``O_APPEND``...), the ``SIGIO`` owner and signal, a lease. :meth:`restore` puts back
    what can be and checks the rest."""

    __slots__ = ("stream", "mode", "uid", "gid", "times", "size", "nlink", "xattrs", "flags")
    __slots__ += ("fsx", "hint", "encryption")

    def __init__(self, fd: int, stream: bool = False) -> None:
        info = os.fstat(fd)
        self.stream = stream
        self.mode, self.uid, self.gid = stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid
        self.times = (info.st_atime_ns, info.st_mtime_ns)
        self.size, self.nlink = info.st_size, info.st_nlink
        self.xattrs = {name: os.getxattr(fd, name) for name in os.listxattr(fd)}
        self.flags = _query(fd, _FS_IOC_GETFLAGS, 8)
        # a memfd's fsxattr is its flags (shmem refuses the rest)
        self.fsx = None if stream else _fsx(_query(fd, _FS_IOC_FSGETXATTR, 28))
        self.hint = _query(fd, _F_GET_RW_HINT, 8, fcntl_call=True)
        self.encryption = None if stream else _encryption(fd)

    def restore(self, fd: int) -> str | None:
        """Put the inode at ``fd`` back as it was made: None once it is, else what differs
        (then it cannot be reused)."""
        try:
            info, fixed = self._fix(fd)
            if self.stream:
                _reset_description(fd)
                os.utime(fd)
            else:
                os.utime(fd, ns=self.times)
            if fixed:  # read back what was put back
                return self._differs(os.fstat(fd), fd, recheck=True)
            return self._differs(info, fd, recheck=False)
        except OSError as exc:
            return f"{exc.strerror} while putting back its attributes"

    def _fix(self, fd: int) -> tuple[os.stat_result, bool]:
        """Put back what differs; the inode's stat from before its mode, owner and times were
        put back (which change neither its size nor its links), and whether anything was."""
        fixed = False
        names = os.listxattr(fd)
        if names or self.xattrs:
            for name in names:
                if name not in self.xattrs:
                    os.removexattr(fd, name)
                    fixed = True
            for name, value in self.xattrs.items():
                if name not in names or os.getxattr(fd, name) != value:
                    os.setxattr(fd, name, value)
                    fixed = True
        if self.flags is not None and _query(fd, _FS_IOC_GETFLAGS, 8) != self.flags:
            fcntl.ioctl(fd, _FS_IOC_SETFLAGS, self.flags)
            fixed = True
        if self.fsx is not None:
            now = _query(fd, _FS_IOC_FSGETXATTR, 28)
            if now is not None and _fsx(now) != self.fsx:
                fsx = self.fsx[:8] + now[8:12] + self.fsx[8:] + now[20:]
                fcntl.ioctl(fd, _FS_IOC_FSSETXATTR, fsx)
                fixed = True
        if self.hint is not None and _query(fd, _F_GET_RW_HINT, 8, fcntl_call=True) != self.hint:
            fcntl.fcntl(fd, _F_SET_RW_HINT, self.hint)
            fixed = True
        info = os.fstat(fd)
        if info.st_uid != self.uid or info.st_gid != self.gid:
            os.fchown(fd, self.uid, self.gid)  # clears set-id bits: the mode is set after
            fixed = True
        if stat.S_IMODE(info.st_mode) != self.mode:
            os.fchmod(fd, self.mode)
            fixed = True
        elif fixed:
            os.fchmod(fd, self.mode)
        return info, fixed

    def _differs(self, info: os.stat_result, fd: int, recheck: bool) -> str | None:
        if recheck:
            if stat.S_IMODE(info.st_mode) != self.mode:
                return "its mode"
            if (info.st_uid, info.st_gid) != (self.uid, self.gid):
                return "its owner"
            if not self.stream and (info.st_atime_ns, info.st_mtime_ns) != self.times:
                return "its times"
        if not self.stream:
            if info.st_size != self.size or info.st_nlink != self.nlink:
                return f"its size ({info.st_size} bytes, {info.st_nlink} links)"
            if self.encryption is not None and _encryption(fd) != self.encryption:
                return "an encryption policy"
        if recheck:
            if sorted(os.listxattr(fd)) != sorted(self.xattrs):
                return "its extended attributes"
            if self.flags is not None and _query(fd, _FS_IOC_GETFLAGS, 8) != self.flags:
                return "its inode flags"
            if self.fsx is not None and _fsx(_query(fd, _FS_IOC_FSGETXATTR, 28)) != self.fsx:
                return "its fsxattr"
        return None


def _reset_description(fd: int) -> None:
    """What a program can set on an open file description it shares with the server."""
    fcntl.fcntl(fd, fcntl.F_SETFL, 0)
    if fcntl.fcntl(fd, _F_GETSIG):
        fcntl.fcntl(fd, _F_SETSIG, 0)
    if fcntl.fcntl(fd, _F_GETOWN):
        fcntl.fcntl(fd, _F_SETOWN, 0)
    if fcntl.fcntl(fd, _F_GETLEASE) != fcntl.F_UNLCK:
        fcntl.fcntl(fd, _F_SETLEASE, fcntl.F_UNLCK)


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
            below = os.open(part, _DIR, dir_fd=fd)
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
