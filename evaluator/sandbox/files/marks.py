"""What a program can mark on an inode that outlives it (the run directory, the children's
/tmp, a stdio memfd), kept as made and put back between two children (:class:`Marks`)."""

from __future__ import annotations

import errno
import fcntl
import os
import stat

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
