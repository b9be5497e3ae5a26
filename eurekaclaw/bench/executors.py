"""Where bench sessions run: in this process, in warm local worker processes (warm.py), or in
warm Ray actors.

All three take a RunSpec as a dict and give back a RunRecord as a dict, so the bench writes the
same files whichever ran them. A worker that dies or a task that fails is a run with an error,
never a lost run and never a success; a session past its wall limit is a timed-out run.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
import time
from typing import Any, Protocol

from eurekaclaw.bench.session_run import run_one
from eurekaclaw.bench.warm import GRACE_S, POLL_S, WarmPool, warm_up
from eurekaclaw.errors import BadInputError, MissingConfigError

Result = tuple[Any, dict[str, Any] | None, str | None]  # handle, record, error


class Executor(Protocol):
    capacity: int
    name: str
    startups: list[dict[str, Any]]  # one per worker started: its start-up seconds

    def submit(self, spec: dict[str, Any]) -> Any: ...

    def wait_any(self, handles: list[Any]) -> list[Result]: ...

    def close(self) -> None: ...


class InProcess:
    """One session at a time, here: the default, and the easiest to debug."""

    capacity = 1
    name = "sequential"

    def __init__(self) -> None:
        self.startups: list[dict[str, Any]] = []
        self._queued: dict[int, dict[str, Any]] = {}
        self._ids = itertools.count()

    def submit(self, spec: dict[str, Any]) -> Any:
        handle = next(self._ids)
        self._queued[handle] = spec
        return handle

    def wait_any(self, handles: list[Any]) -> list[Result]:
        handle = handles[0]
        return [(handle, run_one(self._queued.pop(handle)), None)]

    def close(self) -> None:
        self._queued.clear()


class SessionActor:
    """A warm worker as a Ray actor: imports once, then runs the sessions it is given."""

    def __init__(self, spawned_at: float) -> None:
        imports_s = warm_up()
        import ray

        self.info = {
            "worker": f"{socket.gethostname()}:{os.getpid()}",
            "node": ray.get_runtime_context().get_node_id(),
            # from the driver's clock: exact on one machine, as good as the clocks' sync on a cluster
            "startup_s": round(time.time() - spawned_at, 3),
            "imports_s": imports_s,
        }

    def startup(self) -> dict[str, Any]:
        return self.info

    def run(self, spec: dict[str, Any]) -> dict[str, Any]:
        return run_one(spec)


class RayExecutor:
    """A pool of warm actors (one CPU each) on a local Ray or an existing cluster. The bench
    folder must be reachable from the workers under the same path for their session folders
    to land beside the results (a shared file system on a cluster)."""

    name = "ray"

    def __init__(self, address: str, workers: int | None, grace_s: float = GRACE_S) -> None:
        try:
            import ray
        except ImportError:
            raise MissingConfigError('--ray needs the `ray` extra: pip install -e ".[ray]"') from None
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            try:
                if address == "local":
                    ray.init(num_cpus=workers or None, include_dashboard=False, log_to_driver=False)
                else:
                    ray.init(address=address, include_dashboard=False, log_to_driver=False)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                raise BadInputError(
                    f"cannot connect to Ray at {address!r}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                ) from None
            self._started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]  # ray is untyped
        self.capacity = max(1, workers or cpus)
        self.startups: list[dict[str, Any]] = []
        self._grace = grace_s
        self._actor_class = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(SessionActor)
        self._free: list[Any] = []
        self._pending_startup: dict[Any, Any] = {}
        self._ready_at: dict[int, float] = {}
        for _ in range(self.capacity):
            self._spawn()
        self._ids = itertools.count()
        self._waiting: list[tuple[int, dict[str, Any]]] = []
        self._busy: dict[Any, tuple[int, Any, dict[str, Any], float]] = {}  # ref -> handle, actor, spec, started
        self._done: dict[int, Result] = {}

    def _spawn(self) -> None:
        actor: Any = self._actor_class.remote(time.time())
        self._pending_startup[actor.startup.remote()] = actor
        self._free.append(actor)

    def submit(self, spec: dict[str, Any]) -> Any:
        handle = next(self._ids)
        self._waiting.append((handle, spec))
        self._dispatch()
        return handle

    def _dispatch(self) -> None:
        while self._waiting and self._free:
            handle, spec = self._waiting.pop(0)
            actor = self._free.pop(0)
            self._busy[actor.run.remote(spec)] = (handle, actor, spec, time.monotonic())

    def _collect_startups(self, timeout: float) -> None:
        if not self._pending_startup:
            return
        done, _ = self._ray.wait(list(self._pending_startup), num_returns=len(self._pending_startup), timeout=timeout)
        for ref in done:
            actor = self._pending_startup.pop(ref)
            self._ready_at[id(actor)] = time.monotonic()
            with contextlib.suppress(Exception):  # an actor that failed to start fails its run instead
                self.startups.append(self._ray.get(ref))

    def wait_any(self, handles: list[Any]) -> list[Result]:
        wanted = set(handles)
        while True:
            ready = [self._done.pop(h) for h in list(self._done) if h in wanted]
            if ready:
                return ready
            self._collect_startups(0)
            done, _ = self._ray.wait(list(self._busy), num_returns=1, timeout=POLL_S)
            for ref in done:
                handle, actor, _, _ = self._busy.pop(ref)
                self._done[handle] = self._result(handle, ref)
                self._free.append(actor)
            self._kill_overdue()
            self._dispatch()

    def _result(self, handle: int, ref: Any) -> Result:
        try:
            return (handle, self._ray.get(ref), None)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # noqa: BLE001 - a failed task is one failed run
            first = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
            return (handle, None, f"ray task failed: {first}")

    def _kill_overdue(self) -> None:
        """An actor whose session outlived its wall limit and grace is killed and replaced."""
        from eurekaclaw.bench.session_run import killed_record

        now = time.monotonic()
        for ref, (handle, actor, spec, started) in list(self._busy.items()):
            limit, ready = spec.get("timeout_s"), self._ready_at.get(id(actor))
            if limit is None or ready is None:  # a session's wall limit counts once its actor is warm
                continue
            started = max(started, ready)
            if now - started <= float(limit) + self._grace:
                continue
            del self._busy[ref]
            self._ray.kill(actor, no_restart=True)
            self._done[handle] = (handle, killed_record(spec, now - started), None)
            self._spawn()

    def close(self) -> None:
        self._collect_startups(5)
        for actor in [*self._free, *(a for _, a, _, _ in self._busy.values())]:
            with contextlib.suppress(Exception):
                self._ray.kill(actor, no_restart=True)
        self._busy.clear()
        if self._started:
            self._ray.shutdown()


def make_executor(workers: int, ray_address: str | None) -> Executor:
    if ray_address:
        return RayExecutor(ray_address, workers if workers > 1 else None)
    if workers <= 1:
        return InProcess()
    return WarmPool(workers)
