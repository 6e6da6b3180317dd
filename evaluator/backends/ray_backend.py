"""Grading on a Ray cluster: the same results as :class:`~evaluator.runner.Grader`, on many
machines.

:class:`RayGrader` has the grader's interface (``submit``, ``grade``, ``grade_many``, plus an
ordered, bounded ``imap``) and sends the work to :class:`GradingActor` s, each owning a local
:class:`~evaluator.runner.Grader` (and so a :class:`~evaluator.sandbox.SandboxPool` of fork
servers) on its node, built in the actor's ``__init__``. The sandbox is the node's: Landlock,
seccomp and rlimits apply there exactly as in a local run.

How work travels. Programs are grouped by problem into batches (at most ``batch_size``
programs of one problem; a batch leaves when full or when it has waited ``linger`` seconds).
A problem travels as our plain record (:func:`~evaluator.formats.schema.problem_to_ours`),
put into Ray's object store once; batches carry its reference, so its tests reach each node
once (the node's object store keeps them) and each actor decodes them once, however many
batches follow. Results come back as plain tuples with exact timings; nothing of this package
is pickled but the options.

Back-pressure. At most ``max_in_flight`` batches are outstanding on the cluster; the rest
wait in the driver. :meth:`RayGrader.grade_many` and :meth:`RayGrader.imap` read their input
lazily (any iterable or generator) and keep at most ``max_pending`` programs submitted and
unfinished, so a run of millions of programs never holds them all.

Fault tolerance. A batch whose actor dies (``RayActorError``: the actor was killed, crashed,
or its node went away) or whose task fails is sent again, preferably to another actor, and
the dead actor is replaced by a new one (Ray places it on any node with room; it takes work
once it answers, so a replacement that no node has room for holds nothing back). An actor
that is only unreachable for a moment (``ActorUnavailableError``) keeps its place. A batch is
tried at most ``1 + max_retries`` times; then each of its programs gets an ``ERROR`` result
whose message gives the reason. A batch's results are only used when the whole batch came
back, so no program is lost or reported twice.

Threads. A single dispatcher thread in the driver batches, sends, waits and retries;
futures are resolved (and ``progress`` called) from that thread.
"""

from __future__ import annotations

import asyncio
import collections
import os
import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import asdict, dataclass, field
from typing import Any

from evaluator.formats.schema import problem_to_ours, rebuild_problem
from evaluator.languages import DEFAULT_LANGUAGE, BuildLimits, Language
from evaluator.problem import Problem, Verdict
from evaluator.runner import GradeOptions, Grader, GradeResult
from evaluator.runner.grading import BaseGrader, TestResult
from evaluator.sandbox import DEFAULT_PROFILE, Isolation, Limits

__all__ = ["GradingActor", "RayGrader"]

# Ray must never phone home (usage stats) from a grading cluster; set before ray is imported.
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


def _ray():
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            'the ray backend needs Ray: pip install "microcoder[ray]" (on every node)'
        ) from exc
    return ray


# -- the wire: plain data between the driver and the actors ----------------------------------


def _options_to_wire(options: GradeOptions) -> dict[str, Any]:
    data = asdict(options)
    data["isolation"] = Isolation(options.isolation).value
    if options.compile_flags is not None:  # any mapping: plain data on the wire
        data["compile_flags"] = {
            name: flags if isinstance(flags, str) else list(flags)
            for name, flags in options.compile_flags.items()
        }
    return data


def _options_from_wire(data: dict[str, Any]) -> GradeOptions:
    return GradeOptions(
        **{
            **data,
            "isolation": Isolation(data["isolation"]),
            "build_limits": BuildLimits(**data["build_limits"]),
        }
    )


def _language_to_wire(language: Language | str | None) -> str | None:
    """A program's language as the actor gets it: its name (the actor's grader looks it up),
    None for Python (Python batches travel as before languages did)."""
    if isinstance(language, Language):
        return None if language.name == DEFAULT_LANGUAGE else language.name
    return language


def _problem_from_wire(record: dict[str, Any]) -> Problem:
    """The problem ``problem_to_ours`` wrote, rebuilt without the schema's checks: a problem
    built in code may hold values the reader refuses (the local grader reports those as
    ERROR itself), and the actor grades exactly what the driver had."""
    return rebuild_problem(record)


_Wire = tuple[
    str,
    str,
    str,
    list[tuple[str, float, float, int, str, str, str, str | None]],
    dict[str, Any] | None,
    bool,
]


def _result_to_wire(result: GradeResult) -> _Wire:
    tests = [
        (
            str(t.verdict),
            t.cpu_time,
            t.wall_time,
            t.peak_memory_kb,
            t.message,
            t.stdout,
            t.stderr,
            t.limit,
        )
        for t in result.tests
    ]
    limits = None if result.limits is None else asdict(result.limits)
    return (result.problem_id, str(result.verdict), result.message, tests, limits, result.unchecked)


def _result_from_wire(data: _Wire) -> GradeResult:
    problem_id, verdict, message, tests, limits, unchecked = data
    return GradeResult(
        problem_id,
        Verdict(verdict),
        [TestResult(Verdict(v), *rest) for v, *rest in tests],
        message,
        None if limits is None else Limits(**limits),
        unchecked,
    )


# -- the actor ---------------------------------------------------------------------------------

_PROBLEMS_KEPT = 512  # decoded problems an actor keeps (and, in the driver, object references)


class GradingActor:
    """One node's grader, as a Ray actor (an async one: many batches share its pool).

    Plain class: :class:`RayGrader` wraps it with ``ray.remote``, so a subclass (tests,
    custom setup on the node) can be passed as ``actor_cls``.
    """

    def __init__(
        self, options: dict[str, Any], workers: int | None, profile: str = DEFAULT_PROFILE
    ) -> None:
        self.grader = Grader(_options_from_wire(options), workers=workers, profile=profile)
        # Problems by object id: a problem travels to a node once (Ray's object store keeps
        # it there) and is decoded once per actor, however many of its batches come.
        self.problems: collections.OrderedDict[str, Problem] = collections.OrderedDict()
        self.decoded = 0  # problems decoded from the object store

    def info(self) -> dict[str, Any]:
        """Where this actor runs (host, Ray node) and what sandbox it got (pool size,
        Landlock ABI...)."""
        import socket

        context = _ray().get_runtime_context()
        return {
            "host": socket.gethostname(),
            "node_id": context.get_node_id(),
            "pid": os.getpid(),
            "workers": self.grader.pool.size,
            "sandbox": dict(self.grader.pool.info),
            "problems_decoded": self.decoded,
        }

    async def grade_batch(
        self,
        problem: Any,
        codes: list[str | None],
        languages: list[str | None] | None = None,
    ) -> list[_Wire]:
        """Grade ``codes`` on ``problem`` (a record of our schema, or a one-item list holding
        the object reference of one), each in its language (None: all Python); results in
        order."""
        graded = self._problem(problem)
        languages = languages or [None] * len(codes)
        running = [
            asyncio.wrap_future(self.grader.submit(graded, code, language))
            for code, language in zip(codes, languages, strict=True)
        ]
        return [_result_to_wire(result) for result in await asyncio.gather(*running)]

    def _problem(self, problem: Any) -> Problem:
        if isinstance(problem, dict):
            return _problem_from_wire(problem)
        ref = problem[0]
        key = ref.hex()
        found = self.problems.get(key)
        if found is None:
            found = self.problems[key] = _problem_from_wire(_ray().get(ref))
            self.decoded += 1
            while len(self.problems) > _PROBLEMS_KEPT:
                self.problems.popitem(last=False)
        else:
            self.problems.move_to_end(key)
        return found

    def shutdown(self) -> None:
        self.grader.close()


# -- the driver --------------------------------------------------------------------------------


@dataclass(eq=False)
class _Batch:
    problem: Problem
    codes: list[str | None] = field(default_factory=list)
    languages: list[str | None] = field(default_factory=list)
    futures: list[Future[GradeResult]] = field(default_factory=list)
    created: float = field(default_factory=time.monotonic)
    attempts: int = 0
    failed_on: set[int] = field(default_factory=set)  # actor slots it failed on
    reasons: list[str] = field(default_factory=list)


@dataclass(eq=False)
class _Slot:
    number: int
    handle: Any
    in_flight: int = 0
    alive: bool = True
    # a replacement takes work only once it answered a ping: an actor Ray cannot place yet
    # (no node with room) would hold its batches forever
    ping: Any = None
    started: float = field(default_factory=time.monotonic)

    @property
    def ready(self) -> bool:
        return self.alive and self.ping is None


class RayGrader(BaseGrader):
    """Grades programs on Ray actors; a :class:`~evaluator.runner.protocol.ProgramGrader`, as
    :class:`~evaluator.runner.Grader` is.

    ``address``: the cluster (``"auto"``, ``"ray://head:10001"``, ``"10.0.0.1:6379"``); None
    joins the Ray already initialised in this process, else starts a local one (on
    loopback, no dashboard) that :meth:`close` shuts down. ``actors``: how many
    :class:`GradingActor` s (default: one per alive node with CPUs for one; a head with
    ``num_cpus=0`` gets none). ``workers_per_actor``: each
    actor's fork servers (default: its node's CPUs, or the cluster's CPUs / ``actors``).
    ``actor_num_cpus``: the CPUs Ray reserves per actor (default: ``workers_per_actor``, so
    Ray never packs more sandboxes on a node than it has cores). ``max_retries``: extra
    tries of a failed batch before its programs are ERROR. ``max_in_flight``: batches
    outstanding on the cluster (default: two per fork server, at least four per actor).
    ``batch_size``/``linger``: the batching (module doc). ``max_pending``: programs
    ``grade_many``/``imap`` keep submitted and unfinished (default: enough to fill the
    window twice). ``actor_cls``: the actor class (a :class:`GradingActor` subclass).
    ``init_kwargs``: more keywords for ``ray.init``. ``actor_options``: more for
    ``.options()`` of each actor (``resources``, ``runtime_env``...). ``share_problems``
    (default): problems go through the object store (module doc); False sends each batch its
    problem's whole record. ``bytes_sent`` counts what the driver serialised for the cluster.
    """

    def __init__(
        self,
        options: GradeOptions | None = None,
        *,
        address: str | None = None,
        actors: int | None = None,
        workers_per_actor: int | None = None,
        actor_num_cpus: float | None = None,
        profile: str = DEFAULT_PROFILE,
        max_retries: int = 3,
        max_in_flight: int | None = None,
        batch_size: int = 16,
        linger: float = 0.005,
        max_pending: int | None = None,
        actor_cls: type = GradingActor,
        init_kwargs: dict[str, Any] | None = None,
        actor_options: dict[str, Any] | None = None,
        start_timeout: float = 300.0,
        share_problems: bool = True,
    ) -> None:
        ray = _ray()
        self.options = options or GradeOptions()
        self.start_timeout = float(start_timeout)
        self.max_retries = max(0, int(max_retries))
        self.batch_size = max(1, int(batch_size))
        self.linger = max(0.0, float(linger))
        self._started_ray = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if address is None:
                # "local": a fresh Ray of our own, never a cluster that some other process
                # left in /tmp/ray/ray_current_cluster (ray.init's default would join it)
                address = "local"
                kwargs["_node_ip_address"] = "127.0.0.1"
            kwargs.update(init_kwargs or {})
            ray.init(address=address, **kwargs)
            self._started_ray = True

        nodes = [n for n in ray.nodes() if n.get("Alive")]
        cluster_cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
        per_node: list[dict[str, Any]] = []
        if actors is None:
            # one actor per node, pinned there (softly: it may move if the node goes away)
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            for node in nodes:
                cpus = float(node.get("Resources", {}).get("CPU", 0))
                workers = workers_per_actor or int(cpus)
                wanted = workers if actor_num_cpus is None else actor_num_cpus
                if workers < 1 or cpus < wanted or (cpus == 0 and wanted == 0):
                    continue  # no room for an actor (e.g. a head kept free of work): skip
                strategy = NodeAffinitySchedulingStrategy(node["NodeID"], soft=True)
                per_node.append({"workers": workers, "scheduling_strategy": strategy})
            if not per_node:
                per_node.append({"workers": workers_per_actor or cluster_cpus})
        else:
            workers = workers_per_actor or max(1, cluster_cpus // max(1, actors))
            per_node = [{"workers": workers, "scheduling_strategy": "SPREAD"}] * max(1, actors)

        self._remote = ray.remote(actor_cls)
        self._wire_options = _options_to_wire(self.options)
        self._profile = profile
        self._actor_num_cpus = actor_num_cpus
        self._actor_options = dict(actor_options or {})
        self._placements = per_node
        self._slots: list[_Slot] = []
        for placement in per_node:
            self._slots.append(self._start_actor(placement))
        self.workers = sum(p["workers"] for p in per_node)
        self.max_in_flight = max_in_flight or max(4 * len(per_node), 2 * self.workers)
        self.max_pending = max_pending or max(64, 2 * self.max_in_flight * self.batch_size)
        self.max_replacements = len(per_node) * (self.max_retries + 1) + 4
        self.replacements = 0
        self.retried_batches = 0
        self.failed_batches = 0
        # A problem goes into Ray's object store once and batches carry its reference, so
        # its tests reach each node once (``share_problems=False``: inside every batch).
        self.share_problems = share_problems
        self._shared: collections.OrderedDict[int, tuple[Problem, Any]] = collections.OrderedDict()
        self.bytes_sent = 0  # problems and programs the driver serialised for the cluster
        try:
            infos = ray.get([s.handle.info.remote() for s in self._slots], timeout=start_timeout)
        except BaseException:
            self._kill_actors()
            if self._started_ray:
                ray.shutdown()
            raise
        self.actor_info: list[dict[str, Any]] = list(infos)
        # the first actor's sandbox facts (Landlock ABI, seccomp...), as Grader.pool.info
        self.sandbox_info: dict[str, Any] = dict(infos[0]["sandbox"]) if infos else {}

        self._queue: queue.SimpleQueue[
            tuple[Problem, str | None, str | None, Future[GradeResult]] | None
        ]
        self._queue = queue.SimpleQueue()
        self._closing = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._dispatch, name="ray-grader", daemon=True)
        self._thread.start()

    # -- the ProgramGrader interface (runner.protocol; grade, imap, grade_many: BaseGrader's) --

    @property
    def capacity(self) -> int:
        """Programs run at once: every actor's fork servers."""
        return self.workers

    @property
    def actors(self) -> list[Any]:
        """Handles of the live actors (for inspection, or to kill one in a test)."""
        return [slot.handle for slot in self._slots if slot.alive]

    def submit(
        self, problem: Problem, code: str | None, language: Language | str | None = None
    ) -> Future[GradeResult]:
        """Queue one program (in ``language``; None: Python); the future resolves to its
        result. Never blocks (the caller bounds what it submits; ``grade_many``/``imap``
        do)."""
        future: Future[GradeResult] = Future()
        with self._lock:
            if self._closing:
                raise RuntimeError("this RayGrader is closed")
            self._queue.put((problem, code, language, future))
        return future

    def close(self) -> None:
        """Finish what was submitted, stop the actors (and Ray, when this grader started it)."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            self._queue.put(None)
        self._thread.join()
        self._kill_actors(graceful=True)
        if self._started_ray:
            _ray().shutdown()

    # -- actors ----------------------------------------------------------------------------

    def _start_actor(self, placement: dict[str, Any]) -> _Slot:
        options: dict[str, Any] = {
            "num_cpus": placement["workers"]
            if self._actor_num_cpus is None
            else self._actor_num_cpus,
            "max_restarts": 0,  # this grader replaces dead actors and re-sends their work
            "max_concurrency": 1000,
        }
        if "scheduling_strategy" in placement:
            options["scheduling_strategy"] = placement["scheduling_strategy"]
        options.update(self._actor_options)
        handle = self._remote.options(**options).remote(
            self._wire_options, placement["workers"], self._profile
        )
        number = len(getattr(self, "_slots", []))
        return _Slot(number, handle)

    def _replace(self, slot: _Slot) -> None:
        ray = _ray()
        if not slot.alive:
            return
        slot.alive = False
        try:
            ray.kill(slot.handle, no_restart=True)
        except Exception:  # noqa: BLE001 - already gone
            pass
        if self.replacements >= self.max_replacements:
            return
        self.replacements += 1
        placement = dict(self._placements[slot.number % len(self._placements)])
        placement.pop("scheduling_strategy", None)  # its node may be the one that died
        new = self._start_actor(placement)
        new.number = len(self._slots)
        new.ping = new.handle.info.remote()
        self._placements.append(placement)
        self._slots.append(new)

    def _check_starting(self, ray: Any, answered: set[Any]) -> None:
        """Replacements that answered their ping take work; one whose ping failed is replaced
        again; one Ray has not placed within ``start_timeout`` is given up while another
        actor works (else replaced, within ``max_replacements``)."""
        now = time.monotonic()
        for slot in list(self._slots):
            if not slot.alive or slot.ping is None:
                continue
            if slot.ping in answered:
                try:
                    ray.get(slot.ping)
                except Exception:  # noqa: BLE001 - any failure to start: try another
                    slot.ping = None
                    self._replace(slot)
                    continue
                slot.ping = None
            elif now - slot.started > self.start_timeout:
                if any(other.ready for other in self._slots):
                    slot.alive = False
                    try:
                        ray.kill(slot.handle, no_restart=True)
                    except Exception:  # noqa: BLE001
                        pass
                else:
                    slot.ping = None
                    self._replace(slot)

    def _kill_actors(self, graceful: bool = False) -> None:
        ray = _ray()
        live = [slot for slot in self._slots if slot.alive]
        started = [slot for slot in live if slot.ready]  # one still unplaced cannot answer
        if graceful and started:
            try:
                ray.get([s.handle.shutdown.remote() for s in started], timeout=30)
            except Exception:  # noqa: BLE001 - killed below anyway
                pass
        for slot in live:
            slot.alive = False
            try:
                ray.kill(slot.handle, no_restart=True)
            except Exception:  # noqa: BLE001
                pass

    # -- the dispatcher thread -------------------------------------------------------------

    def _dispatch(self) -> None:
        ray = _ray()
        open_batches: dict[int, _Batch] = {}  # id(problem) -> batch being filled
        ready: collections.deque[_Batch] = collections.deque()
        in_flight: dict[Any, tuple[_Batch, _Slot]] = {}
        stopping = False
        try:
            while True:
                # 1. take what was submitted (wait only when there is nothing else to do)
                idle = not in_flight and not ready and not open_batches
                timeout = None if idle else 0.0
                while True:
                    try:
                        entry = self._queue.get() if timeout is None else self._queue.get_nowait()
                    except queue.Empty:
                        break
                    timeout = 0.0
                    if entry is None:
                        stopping = True
                        continue
                    problem, code, language, future = entry
                    batch = open_batches.get(id(problem))
                    if batch is None:
                        batch = open_batches[id(problem)] = _Batch(problem)
                    batch.codes.append(code)
                    batch.languages.append(_language_to_wire(language))
                    batch.futures.append(future)
                    if len(batch.codes) >= self.batch_size:
                        ready.append(open_batches.pop(id(problem)))
                # 2. batches that waited long enough leave (all of them when stopping)
                now = time.monotonic()
                for key, batch in list(open_batches.items()):
                    if stopping or now - batch.created >= self.linger:
                        ready.append(open_batches.pop(key))
                # 3. send, up to the window (batches wait while the only actors are starting)
                while ready and len(in_flight) < self.max_in_flight:
                    slot = self._pick(ready[0])
                    if slot is None:
                        if any(s.alive for s in self._slots):
                            break
                        self._give_up(ready.popleft(), "no live grading actor left")
                        continue
                    batch = ready.popleft()
                    batch.attempts += 1
                    # languages only when one is named: Python batches travel as before
                    named = batch.languages if any(batch.languages) else None
                    args = [self._wire_problem(batch), batch.codes]
                    # (an actor class written for Python batches keeps its signature)
                    ref = slot.handle.grade_batch.remote(*args, *([named] if named else []))
                    slot.in_flight += 1
                    in_flight[ref] = (batch, slot)
                if stopping and not in_flight and not ready and not open_batches:
                    return
                pings = [s.ping for s in self._slots if s.alive and s.ping is not None]
                if not in_flight and not pings:
                    if open_batches:
                        time.sleep(self.linger)
                    continue
                # 4. collect what finished (and the pings of starting actors)
                wait = self.linger if (open_batches or not self._queue.empty()) else 0.05
                waiting = [*in_flight, *pings]
                done, _ = ray.wait(waiting, num_returns=1, timeout=wait)
                if done:
                    rest = [ref for ref in waiting if ref not in done]
                    more, _ = ray.wait(rest, num_returns=len(rest), timeout=0) if rest else ([], [])
                    done = [*done, *more]
                answered = set()
                for ref in done:
                    if ref not in in_flight:
                        answered.add(ref)
                        continue
                    batch, slot = in_flight.pop(ref)
                    slot.in_flight -= 1
                    self._settle(ray, ref, batch, slot, ready)
                if pings:
                    self._check_starting(ray, answered)
        except BaseException as exc:  # noqa: BLE001 - a bug here must not hang the callers
            pending = [*open_batches.values(), *ready, *(b for b, _ in in_flight.values())]
            for batch in pending:
                for future in batch.futures:
                    if not future.done():
                        future.set_exception(exc)
            raise

    def _settle(self, ray: Any, ref: Any, batch: _Batch, slot: _Slot, ready: Any) -> None:
        try:
            wires = ray.get(ref)
        except ray.exceptions.ActorUnavailableError as exc:
            # unreachable for now (its node is failing, or it is restarting): retry elsewhere;
            # if it is gone for good, its next task says so and it is replaced then
            reason = f"actor unavailable: {_first_line(exc)}"
        except ray.exceptions.RayActorError as exc:
            reason = f"actor died: {_first_line(exc)}"
            self._replace(slot)
        except ray.exceptions.RayError as exc:
            reason = f"ray task failed: {_first_line(exc)}"
        else:
            for future, wire in zip(batch.futures, wires, strict=True):
                future.set_result(_result_from_wire(wire))
            return
        batch.failed_on.add(slot.number)
        batch.reasons.append(reason)
        if batch.attempts > self.max_retries:
            self._give_up(batch, reason)
        else:
            self.retried_batches += 1
            ready.appendleft(batch)  # retried first: older work finishes first

    def _wire_problem(self, batch: _Batch) -> Any:
        """What a batch carries of its problem: the record itself, or (shared) a one-item
        list holding its object reference (a list, so Ray passes the reference on instead
        of fetching the record into every task)."""
        problem = batch.problem
        self.bytes_sent += sum(len(code or "") for code in batch.codes)
        if not self.share_problems:
            record = problem_to_ours(problem)
            self.bytes_sent += _size(record)
            return record
        found = self._shared.get(id(problem))
        if found is None or found[0] is not problem:
            record = problem_to_ours(problem)
            self.bytes_sent += _size(record)
            found = self._shared[id(problem)] = (problem, _ray().put(record))
            while len(self._shared) > _PROBLEMS_KEPT:
                self._shared.popitem(last=False)
        else:
            self._shared.move_to_end(id(problem))
        return [found[1]]

    def _pick(self, batch: _Batch) -> _Slot | None:
        live = [slot for slot in self._slots if slot.ready]
        if not live:
            return None
        fresh = [slot for slot in live if slot.number not in batch.failed_on] or live
        return min(fresh, key=lambda slot: slot.in_flight)

    def _give_up(self, batch: _Batch, reason: str) -> None:
        self.failed_batches += 1
        tries = batch.attempts
        message = f"ray backend: not graded after {tries} tries ({reason})"
        for future in batch.futures:
            future.set_result(GradeResult(batch.problem.id, Verdict.ERROR, message=message))


def _size(record: dict[str, Any]) -> int:
    """Bytes of a problem record as it travels (its tests dominate)."""
    tests = record.get("tests") or []
    text = sum(len(t.get("input", "")) + len(t.get("output", "")) for t in tests)
    return text + len(record.get("prompt", "")) + len(record.get("test_code", "")) + 256


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    return f"{type(exc).__name__}: {line}"[:300]
