"""Where bench sessions run: in this process, in local worker processes, or as Ray tasks.

All three take a RunSpec as a dict and give back a RunRecord as a dict, so the bench writes the
same files whichever ran them. A worker that dies or a task that fails is a run with an error,
never a lost run and never a success.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import multiprocessing
from typing import Any, Protocol

from eurekaclaw.bench.session_run import run_one
from eurekaclaw.errors import BadInputError, MissingConfigError

Result = tuple[Any, dict[str, Any] | None, str | None]  # handle, record, error


class Executor(Protocol):
    capacity: int
    name: str

    def submit(self, spec: dict[str, Any]) -> Any: ...

    def wait_any(self, handles: list[Any]) -> list[Result]: ...

    def close(self) -> None: ...


class InProcess:
    """One session at a time, here: the default, and the easiest to debug."""

    capacity = 1
    name = "sequential"

    def __init__(self) -> None:
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


class LocalPool:
    """N worker processes (spawned, so no worker inherits another session's threads or loop)."""

    name = "local"

    def __init__(self, workers: int) -> None:
        self.capacity = workers
        self._pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))

    def submit(self, spec: dict[str, Any]) -> Any:
        return self._pool.submit(run_one, spec)

    def wait_any(self, handles: list[Any]) -> list[Result]:
        done, _ = cf.wait(handles, return_when=cf.FIRST_COMPLETED)
        results: list[Result] = []
        for future in done:
            try:
                results.append((future, future.result(), None))
            except KeyboardInterrupt:
                raise
            except Exception as exc:  # noqa: BLE001 - a dead worker is one failed run
                results.append((future, None, f"worker failed: {type(exc).__name__}: {exc}"))
        return results

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class RayExecutor:
    """Sessions as Ray tasks (one CPU each) on a local instance or an existing cluster. The
    bench folder must be reachable from the workers under the same path for their session
    folders to land beside the results (a shared file system on a cluster)."""

    name = "ray"

    def __init__(self, address: str, workers: int | None) -> None:
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
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.capacity = max(1, workers or cpus)
        self._remote = ray.remote(num_cpus=1, max_retries=0)(run_one)

    def submit(self, spec: dict[str, Any]) -> Any:
        return self._remote.remote(spec)

    def wait_any(self, handles: list[Any]) -> list[Result]:
        done, _ = self._ray.wait(handles, num_returns=1)
        results: list[Result] = []
        for ref in done:
            try:
                results.append((ref, self._ray.get(ref), None))
            except KeyboardInterrupt:
                raise
            except Exception as exc:  # noqa: BLE001 - a failed task is one failed run
                first = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
                results.append((ref, None, f"ray task failed: {first}"))
        return results

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()


def make_executor(workers: int, ray_address: str | None) -> Executor:
    if ray_address:
        return RayExecutor(ray_address, workers if workers > 1 else None)
    if workers <= 1:
        return InProcess()
    return LocalPool(workers)
