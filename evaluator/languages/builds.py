"""Building programs of compiled languages for a grader: each source once, in parallel,
confined.

A :class:`Builder` runs at most ``workers`` builds at once (each in a private directory,
through :class:`ConfinedTool`, the grader's one launcher for trusted programs:
:mod:`evaluator.sandbox.launcher`) and keeps what it built by the
hash of the language, its toolchain's version, the flags and the source: a program submitted
again (the same completion twice in an RL group, a rerun) is built once. Binaries are kept
in memory up to ``keep_bytes`` (the oldest finished builds go first). A language's
:meth:`~evaluator.languages.base.Language.prepare` work (C++: the precompiled header) runs
once per trusted flag set in the background; builds go on without it until it is ready, and
it changes nothing they build. A language whose programs need that work
(:attr:`~evaluator.languages.base.Language.needs_prepared`: Rust tests' crates) has it made
whatever the builder's ``prepare``, and its builds wait for it and fail as it failed.

Trusted flag sets are the grader's own: the language's defaults and
:attr:`~evaluator.languages.base.Language.known_flags`, and those a caller names with
:meth:`Builder.trust` (the operator's options, an endpoint's fixed flags). Prepared work runs
under :data:`PREPARE_LIMITS`, far above a build's, on input it takes for the toolchain's own:
flags from data (a problem's ``cpp_flags``) could put code into it (``-D`` defines a macro
the header expands) or fill the builder's few prepared sets, so they never start it; a build
with them uses prepared work only when their set is a trusted one.
"""

from __future__ import annotations

import collections
import hashlib
import os
import shutil
import tempfile
import threading
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from evaluator.sandbox.launcher import TrustedLimits, launch, trusted_user

from .base import Build, BuildLimits, Language, ToolRun

__all__ = ["Builder", "ConfinedTool"]

_PREPARED_KEPT = 8  # flag sets prepared per builder (each C++ one is a 100 MB header)
# Prepared work builds trusted input (the toolchain's own headers), whatever the builds'
# limits: room enough on a loaded machine (the C++ header takes ~4 s of CPU, ~1 GB).
PREPARE_LIMITS = BuildLimits(time_limit=120.0, wall_limit=300.0, memory_limit=4096)


@dataclass(frozen=True)
class ConfinedTool:
    """A :class:`~evaluator.languages.base.Tool`: runs a compiler through the grader's
    launcher (:func:`evaluator.sandbox.launcher.launch`, which says how it is confined) under
    ``limits``, reading the toolchain and ``readable``, writing only its build directory; a
    set ``stop`` ends the run at once. A root grader runs it as its unprivileged user
    (:func:`~evaluator.sandbox.launcher.trusted_user`)."""

    limits: BuildLimits
    readable: tuple[str, ...] = ()
    stop: threading.Event | None = None

    def __call__(self, argv: list[str], work: str) -> ToolRun:
        limits = TrustedLimits(
            time_limit=self.limits.time_limit,
            memory_limit=self.limits.memory_limit,
            output_bytes=self.limits.output_bytes,
            wall_limit=self.limits.effective_wall_limit,
        )
        with tempfile.TemporaryFile() as output:  # unlinked: the compiler cannot name it
            run = launch(
                argv, work, limits, out=output, err=output,
                readable=self.readable, stop=self.stop,
            )  # fmt: skip
            output.seek(0)
            text = output.read(self.limits.message_bytes)
        return ToolRun(run.status, run.limit, text, run.seconds)


class Builder:
    """Builds programs; a context manager that removes its directory when closed."""

    def __init__(
        self,
        workers: int = 1,
        limits: BuildLimits | None = None,
        *,
        prepare: bool = True,
        keep_bytes: int = 256 << 20,
        tmp_dir: str | None = None,
    ) -> None:
        self.limits = limits or BuildLimits()
        self.prepare = prepare
        self.keep_bytes = keep_bytes
        self._tmp_dir = tmp_dir
        self._workers = max(1, workers)
        self._trusted: set[tuple[str, tuple[str, ...]]] = set()
        self._closed = False
        self.built = 0  # builds run (not answered from the cache)
        self._start_empty()
        _LIVE_BUILDERS.add(self)

    def _start_empty(self) -> None:
        """No builds, no directory, fresh threads and locks. Also what a copy forked into a
        child (a fork process pool's worker) starts from: the parent's build threads do not
        exist there (a build queued behind them never ran), its unfinished builds never
        finish there, and its directory is the parent's (the child's exit must not remove
        it)."""
        self._root: str | None = None
        self._executor = ThreadPoolExecutor(self._workers, thread_name_prefix="build")
        self._builds: collections.OrderedDict[str, Future[Build]] = collections.OrderedDict()
        self._sizes: dict[str, int] = {}
        self._prepared: dict[tuple[str, tuple[str, ...]], Future[tuple[tuple[str, ...], str]]]
        self._prepared = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def submit(
        self,
        language: Language,
        source: str,
        flags: tuple[str, ...],
        limits: BuildLimits | None = None,
    ) -> Future[Build]:
        """The build of ``source`` (a future; shared with every earlier submit of the same
        source, language, flags and limits), under ``limits`` (default: the builder's: a
        request's own, SandboxFusion's ``compile_timeout``). The future raises ``OSError``
        when the toolchain cannot run at all (not installed, no confinement possible)."""
        limits = limits or self.limits
        # The limits are part of the key: a build that timed out under a short limit must
        # not answer a request that allows more, nor one that built under a long limit a
        # request that allows less (SandboxFusion would time it out).
        key = _key(language, source, flags, limits)
        with self._lock:
            if self._closed:
                raise RuntimeError("the builder is closed")
            found = self._builds.get(key)
            if found is not None:
                self._builds.move_to_end(key)
                return found
            future = self._executor.submit(self._build, language, source, flags, limits)
            self._builds[key] = future
        future.add_done_callback(lambda done: self._kept(key, done))
        return future

    def trust(self, language: Language, flags: tuple[str, ...]) -> None:
        """Count ``flags`` among the grader's own for ``language`` (the operator's, an
        endpoint's fixed ones, never a problem's): builds with them get the language's
        prepared work (the module's docstring says why only these)."""
        with self._lock:
            self._trusted.add((language.name, tuple(flags)))

    def trusts(self, language: Language, flags: tuple[str, ...]) -> bool:
        """Whether ``flags`` are a trusted set for ``language`` (its defaults, its known
        sets, or named by :meth:`trust`)."""
        if flags == language.default_flags or flags in language.known_flags:
            return True
        with self._lock:
            return (language.name, flags) in self._trusted

    def prepared(self, language: Language, flags: tuple[str, ...]) -> tuple[str, ...]:
        """Do the language's prepared work for ``flags`` now if it is not done (waiting for
        it); the flags later builds add (none when there is nothing, it failed, or
        ``flags`` are not trusted)."""
        future = self._future(language, flags)
        if future is None:
            return ()
        try:
            return future.result()[0]
        except Exception:  # noqa: BLE001 - builds go on without it
            return ()

    def close(self) -> None:
        """Finish the builds submitted, stop preparing, remove the builder's directory."""
        with self._lock:
            self._closed = True
        self._stop.set()
        self._executor.shutdown(wait=True)
        for future in list(self._prepared.values()):
            try:
                future.result()
            except Exception:  # noqa: BLE001 - the builds that needed it said so
                pass
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)

    def __enter__(self) -> Builder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- in the build threads -------------------------------------------------------------

    def _build(
        self, language: Language, source: str, flags: tuple[str, ...], limits: BuildLimits
    ) -> Build:
        if language.needs_prepared:
            extra, readable = self._needed(language, flags)
        else:
            extra, readable = self._prepared_for(language, flags)
        tool = ConfinedTool(limits, (*language.toolchain_paths, *readable))
        with tempfile.TemporaryDirectory(prefix="build-", dir=self._directory()) as work:
            try:
                build = language.build(source, (*flags, *extra), work, tool)
            except UnicodeEncodeError as exc:  # a lone surrogate: no file can hold it
                build = Build(None, f"the program is not UTF-8 text (at character {exc.start})")
        with self._lock:
            self.built += 1
        return build

    def _directory(self) -> str:
        with self._lock:
            if self._root is None:
                self._root = tempfile.mkdtemp(prefix="mcbuild-", dir=self._tmp_dir)
                if trusted_user() is not None:  # builds run as a user that owns nothing
                    os.chmod(self._root, 0o711)  # the way to the builds (not their listing)
            return self._root

    def _prepared_for(
        self, language: Language, flags: tuple[str, ...]
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The flags and readable paths of the language's prepared work for ``flags``, once
        it is ready (started now, in the background, the first time): else none, and none
        for flags that are not trusted."""
        future = self._future(language, flags)
        if future is None or not future.done() or future.exception() is not None:
            return (), ()
        extra, directory = future.result()
        return (extra, (directory,)) if extra else ((), ())

    def _needed(
        self, language: Language, flags: tuple[str, ...]
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The flags and readable paths of the prepared work that a build of ``language``
        cannot go without (:attr:`~evaluator.languages.base.Language.needs_prepared`),
        waited for. Raises what preparing raised (``ToolchainMissing``: the program is
        ``UNSUPPORTED``, the message naming what to install), ``OSError`` when none can
        be made for ``flags`` (not trusted, the builder closed)."""
        future = self._future(language, flags)
        if future is None:
            if not self.trusts(language, flags):
                raise OSError(f"{language.name} programs build with prepared work, made only "
                              f"for the grader's own flags, not {' '.join(flags)!r}")  # fmt: skip
            raise OSError("the builder is closed")
        extra, directory = future.result()
        return extra, (directory,)

    def _future(
        self, language: Language, flags: tuple[str, ...]
    ) -> Future[tuple[tuple[str, ...], str]] | None:
        """The language's prepared work for ``flags``, started now (in the background) the
        first time; None for none: the builder prepares nothing and the language does not
        need it, the flags are not trusted, the builder is closed, or it holds as many sets
        as it keeps (a language that needs its work gets it all the same)."""
        needed = language.needs_prepared
        if not (self.prepare or needed) or not self.trusts(language, flags):
            return None
        key = (language.name, flags)
        with self._lock:
            future = self._prepared.get(key)
            room = needed or len(self._prepared) < _PREPARED_KEPT
            start = future is None and room and not self._closed
            if start:
                future = self._prepared[key] = Future()
        if start:
            threading.Thread(
                target=self._prepare, args=(language, flags, future), daemon=True
            ).start()
        return future

    def _prepare(self, language: Language, flags: tuple[str, ...], future: Future) -> None:
        try:
            directory = tempfile.mkdtemp(prefix="prepared-", dir=self._directory())
            tool = ConfinedTool(PREPARE_LIMITS, language.toolchain_paths, self._stop)
            future.set_result((language.prepare(flags, directory, tool), directory))
        except BaseException as exc:  # noqa: BLE001 - builds go on without it (or say why not)
            future.set_exception(exc)

    def _kept(self, key: str, done: Future[Build]) -> None:
        """Account a finished build's binary; drop the oldest finished ones past the budget
        (and a failed toolchain run at once: the next submit tries again)."""
        with self._lock:
            if done.exception() is not None:
                if self._builds.get(key) is done:
                    del self._builds[key]
                return
            self._sizes[key] = done.result().size
            total = sum(self._sizes.values())
            for old in list(self._builds):
                if total <= self.keep_bytes or len(self._builds) <= 1:
                    break
                if old in self._sizes and old != key:
                    total -= self._sizes.pop(old)
                    del self._builds[old]


_LIVE_BUILDERS: weakref.WeakSet[Builder] = weakref.WeakSet()


def _start_forked_builders_empty() -> None:
    for builder in list(_LIVE_BUILDERS):
        builder._start_empty()


os.register_at_fork(after_in_child=_start_forked_builders_empty)


def _key(language: Language, source: str, flags: tuple[str, ...], limits: BuildLimits) -> str:
    digest = hashlib.sha256()
    for part in (language.name, language.version(), "\0".join(flags), repr(limits)):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0\1")
    digest.update(source.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()
