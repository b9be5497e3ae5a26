"""Warm workers: N long-lived processes that import the engine once and then take sessions one at
a time, each with its own home and settings (session_run.run_one; `isolated()` puts the
environment and working directory back after every session).

A fresh Python that imports the engine (pydantic models, sympy, scipy, the agents) costs seconds
before the first session; paid once per worker and measured, it is no longer paid inside the
sessions. Each worker has its own task pipe, so a session that outlives its wall limit
(`--session-timeout` plus a grace for the session to stop itself) is ended by killing that one
worker and starting another, never the whole pool; a worker that dies is one failed run.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import logging
import multiprocessing
import os
import signal
import socket
import time
from dataclasses import dataclass, field
from multiprocessing import connection as mp_connection
from typing import Any

from eurekaclaw.bench.session_run import isolated
from eurekaclaw.errors import EurekaError

# What a session imports on its way (measured: `python -X importtime`, one schema session)
WARM_MODULES = (
    "eurekaclaw.orchestrator.meta",
    "eurekaclaw.llm.schema_model",
    "eurekaclaw.verify.falsifier",
    "eurekaclaw.verify.portfolio",
    "eurekaclaw.verify.smt",
    "eurekaclaw.tools.symbolic",
    "eurekaclaw.tools.web_search",
    "eurekaclaw.agents.writer.tex_sandbox",
)
TARGET = "eurekaclaw.bench.session_run:run_one"
GRACE_S = 20.0  # after the wall limit, time for the session to checkpoint and stop itself
POLL_S = 0.5
READY_TIMEOUT_S = 300.0


def warm_up(modules: tuple[str, ...] = WARM_MODULES) -> float:
    """Import what sessions use; seconds it took."""
    started = time.monotonic()
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            continue  # an optional part that is not installed: the session does without it too
    return round(time.monotonic() - started, 3)


def resolve(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _log_like_the_parent(level: int) -> None:
    """A spawned worker starts with no logging set up: the bench's level and format, secrets
    scrubbed, as in the bench process."""
    from eurekaclaw.redact import ScrubFilter

    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(ScrubFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    for noisy in ("httpx", "httpcore", "anthropic", "filelock", "asyncio"):
        logging.getLogger(noisy).setLevel(max(level, logging.INFO))


def _worker_main(
    slot: int, target: str, modules: tuple[str, ...], spawned_at: float, tasks: Any, results: Any, log_level: int
) -> None:
    # Ctrl+C reaches the whole process group: the bench process handles it and stops the workers
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _log_like_the_parent(log_level)
    imports_s = warm_up(modules)
    run = resolve(target)
    host = f"{socket.gethostname()}:{os.getpid()}"
    results.send(("ready", {"worker": host, "startup_s": round(time.time() - spawned_at, 3), "imports_s": imports_s}))
    while True:
        try:
            job = tasks.recv()
        except EOFError:  # the bench went away
            return
        if job is None:
            return
        handle, spec = job
        results.send(("started", handle))  # its wall limit counts from here
        outcome: tuple[int, dict[str, Any] | None, str | None]
        try:
            with isolated():  # run_one isolates too; this holds for any target
                outcome = (handle, run(spec), None)
        except Exception as exc:  # noqa: BLE001 - run_one never raises; a target that does is one failed run
            message = exc.user_message() if isinstance(exc, EurekaError) else f"{type(exc).__name__}: {exc}"
            outcome = (handle, None, f"worker failed: {message}")
        results.send(("done", outcome))


@dataclass
class _Worker:
    process: Any
    tasks: Any  # our end of its task pipe
    results: Any  # our end of its result pipe: one per worker, so a killed worker blocks no other
    spawned: float
    ready: bool = False
    gone: bool = False  # its result pipe closed
    job: tuple[int, dict[str, Any]] | None = None  # handle, spec
    job_started: float | None = None  # monotonic, when the worker took the job
    info: dict[str, Any] = field(default_factory=dict)


class WarmPool:
    """The `--workers N` executor (see the module docstring)."""

    name = "warm"

    def __init__(
        self, workers: int, target: str = TARGET, grace_s: float = GRACE_S, modules: tuple[str, ...] = WARM_MODULES
    ) -> None:
        self.capacity = workers
        self.startups: list[dict[str, Any]] = []
        self._ctx = multiprocessing.get_context("spawn")  # no worker inherits another's threads or loop
        self._target = target
        self._modules = modules
        self._grace = grace_s
        self._ids = itertools.count()
        self._workers = {slot: self._start(slot) for slot in range(workers)}
        self._waiting: list[tuple[int, dict[str, Any]]] = []
        self._done: dict[int, tuple[Any, dict[str, Any] | None, str | None]] = {}

    def _start(self, slot: int) -> _Worker:
        task_out, task_in = self._ctx.Pipe(duplex=False)
        result_out, result_in = self._ctx.Pipe(duplex=False)
        spawned = time.time()
        process = self._ctx.Process(
            target=_worker_main,
            args=(slot, self._target, self._modules, spawned, task_out, result_in, logging.getLogger().level),
            name=f"eurekaclaw-bench-{slot}",
            daemon=True,
        )
        process.start()
        task_out.close()  # the worker's ends: closed here, so either side sees the other go
        result_in.close()
        return _Worker(process=process, tasks=task_in, results=result_out, spawned=spawned)

    def submit(self, spec: dict[str, Any]) -> Any:
        handle = next(self._ids)
        self._waiting.append((handle, spec))
        self._dispatch()
        return handle

    def _dispatch(self) -> None:
        for worker in self._workers.values():
            if not self._waiting:
                return
            if worker.job is None and not worker.gone and worker.process.is_alive():
                handle, spec = self._waiting.pop(0)
                worker.job, worker.job_started = (handle, spec), None
                try:
                    worker.tasks.send((handle, spec))
                except OSError:
                    worker.gone = True  # recorded as a failed run by _check_workers

    def wait_any(self, handles: list[Any]) -> list[tuple[Any, dict[str, Any] | None, str | None]]:
        wanted = set(handles)
        while True:
            ready = [self._done.pop(h) for h in list(self._done) if h in wanted]
            if ready:
                return ready
            pipes: dict[Any, int] = {w.results: slot for slot, w in self._workers.items() if not w.gone}
            conn: Any
            for conn in mp_connection.wait(list(pipes), timeout=POLL_S):
                try:
                    kind, payload = conn.recv()
                except (EOFError, OSError):
                    self._workers[pipes[conn]].gone = True
                    continue
                self._on_message(pipes[conn], kind, payload)
            self._check_workers()

    def _on_message(self, slot: int, kind: str, payload: Any) -> None:
        worker = self._workers[slot]
        if kind == "started" and worker.job is not None and worker.job[0] == payload:
            worker.job_started = time.monotonic()
        elif kind == "ready":
            worker.ready, worker.info = True, payload
            self.startups.append({**payload, "slot": slot})
        elif kind == "done" and worker.job is not None and worker.job[0] == payload[0]:
            self._done[payload[0]] = payload
            worker.job = None
            self._dispatch()

    def _check_workers(self) -> None:
        """Replace a worker that died or outlived its session's wall limit; its run is recorded."""
        for slot, worker in list(self._workers.items()):
            alive = worker.process.is_alive() and not worker.gone
            if worker.job is None:
                if not alive:
                    self._replace(slot)
                elif not worker.ready and time.time() - worker.spawned > READY_TIMEOUT_S:
                    self._replace(slot)
                continue
            handle, spec = worker.job
            overdue = self._overdue(worker)
            if alive and overdue is None:
                continue
            from eurekaclaw.bench.session_run import killed_record

            self._replace(slot)
            code = worker.process.exitcode
            if overdue is not None:
                who = worker.info.get("worker", "killed")
                self._done[handle] = (handle, killed_record(spec, overdue, who), None)
            else:
                self._done[handle] = (handle, None, f"worker process died (exit code {code})")
        self._dispatch()

    def _overdue(self, worker: _Worker) -> float | None:
        """Seconds the worker's session has run, when that is past its wall limit and grace."""
        limit = worker.job[1].get("timeout_s") if worker.job is not None else None
        if limit is None or worker.job_started is None:
            return None
        elapsed = time.monotonic() - worker.job_started
        return elapsed if elapsed > float(limit) + self._grace else None

    def _replace(self, slot: int) -> None:
        worker = self._workers[slot]
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join(timeout=10)
        for conn in (worker.tasks, worker.results):
            conn.close()
        self._workers[slot] = self._start(slot)

    def close(self) -> None:
        self._waiting.clear()
        for worker in self._workers.values():
            if worker.job is not None and worker.process.is_alive():
                worker.process.kill()  # Ctrl+C or an error: the session in flight is not recorded
            else:
                with contextlib.suppress(OSError):
                    worker.tasks.send(None)
        for worker in self._workers.values():
            worker.process.join(timeout=10)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(timeout=5)
            for conn in (worker.tasks, worker.results):
                conn.close()
