"""A Python worker subprocess that answers one JSON line per JSON request line, under a hard deadline.

Used by the SMT checker (verify/smt.py) and the `symbolic` tool (tools/symbolic.py): both run
code that may not end (a solver, a sympy expansion), and the only reliable way to stop it is to
kill the worker's whole process group. The parent side is `WorkerPool` (idle workers reused,
because starting Python with sympy costs about a second); the child side is `serve`. A request
may carry a `Cancel`: when another check has already decided (the SMT portfolio), setting it
kills the worker serving the request at once instead of letting it run to its deadline.

Standard library only, and cheap to import: the child imports it before its heavy modules.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

STARTUP_TIMEOUT_S = 60.0
MAX_USES = 200  # a worker is replaced after this many requests (sympy's caches only grow)


class WorkerStartError(RuntimeError):
    """The worker did not announce that it was ready in time."""


class WorkerCancelled(RuntimeError):
    """The request was cancelled while its worker was starting."""


class Cancel:
    """An off switch shared by the requests of one decision. `set()` kills the process group of
    every worker currently serving (or starting for) one of them, so a solver stuck in native
    code stops at once; the request then answers {"status": "cancelled"}. Thread-safe: the
    requests run in worker threads, `set()` comes from the event loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._set = False
        self._workers: set[LineWorker] = set()
        self._signalled: set[LineWorker] = set()

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        with self._lock:
            self._set = True
            # Signalled under the lock: a worker that left is never signalled afterwards (its pid
            # may be reaped and reused by then).
            for worker in self._workers:
                worker.signal_kill()
            self._signalled |= self._workers
            self._workers = set()

    def enter(self, worker: LineWorker) -> bool:
        """Register a worker for this request; False (and nothing registered) when already set."""
        with self._lock:
            if self._set:
                return False
            self._workers.add(worker)
            return True

    def leave(self, worker: LineWorker) -> bool:
        """Unregister (before the worker is reaped or reused); True if set() killed it."""
        with self._lock:
            self._workers.discard(worker)
            return worker in self._signalled


class LineWorker:
    """One worker process (`python -m <module> --serve`) and its reply buffer."""

    def __init__(
        self,
        module: str,
        ready: str,
        what: str,
        startup_timeout_s: float = STARTUP_TIMEOUT_S,
        cancel: Cancel | None = None,
    ) -> None:
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[1])
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # its own process group, so kill() reaches its children too
        )
        self.buffer = b""
        self.uses = 0
        if cancel is not None and not cancel.enter(self):
            self.kill()
            raise WorkerCancelled(f"{what}: cancelled")
        # A cancel during start-up kills the process, so this read ends at once with None.
        started = self.readline(time.monotonic() + startup_timeout_s) == ready
        if cancel is not None and cancel.leave(self):
            self.kill()
            raise WorkerCancelled(f"{what}: cancelled")
        if not started:
            self.kill()
            raise WorkerStartError(f"{what} did not start")

    def readline(self, deadline: float) -> str | None:
        """One line from the worker, or None on timeout or exit."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not sel.select(remaining):
                    return None
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", "replace")

    def ask(self, payload: dict[str, Any], deadline: float) -> dict[str, Any] | None:
        """The worker's JSON object reply, or None (timeout, exit, or not a JSON object)."""
        assert self.proc.stdin is not None
        self.uses += 1
        try:
            self.proc.stdin.write((json.dumps(payload) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        line = self.readline(deadline)
        if line is None:
            return None
        try:
            reply = json.loads(line)
        except json.JSONDecodeError:
            return None
        return reply if isinstance(reply, dict) else None

    def alive(self) -> bool:
        return self.proc.poll() is None

    def signal_kill(self) -> None:
        """SIGKILL to the worker's process group, without reaping (any thread may call it)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self) -> None:
        self.signal_kill()
        self.proc.wait()


class WorkerPool:
    """Idle workers of one kind, reused across requests; a request has one worker to itself and
    a hard deadline. `grace_s` is added to the deadline for workers that enforce the request's own
    timeout first and should be given the chance to answer "timeout" politely."""

    def __init__(self, module: str, ready: str, what: str, *, max_idle: int = 1, grace_s: float = 0.0) -> None:
        self.module, self.ready, self.what = module, ready, what
        self.max_idle = max_idle
        self.grace_s = grace_s
        self.idle: list[LineWorker] = []
        self.lock = threading.Lock()

    def request(self, payload: dict[str, Any], timeout_s: float, cancel: Cancel | None = None) -> dict[str, Any]:
        """The worker's reply, or {"status": "timeout"|"error"|"cancelled", "reason": ...}. Raises
        WorkerStartError (or OSError) when no worker can be started."""
        cancelled = {"status": "cancelled", "reason": f"{self.what} was stopped: another check decided first"}
        if cancel is not None and cancel.is_set():
            return cancelled
        with self.lock:
            worker = self.idle.pop() if self.idle else None
        if worker is None or not worker.alive():
            try:
                # start-up is not part of the deadline
                worker = LineWorker(self.module, self.ready, self.what, cancel=cancel)
            except WorkerCancelled:
                return cancelled
        if cancel is not None and not cancel.enter(worker):
            self._release(worker)  # set before the request was sent: the worker is still clean
            return cancelled
        reply = worker.ask(payload, time.monotonic() + timeout_s + self.grace_s)
        if cancel is not None and cancel.leave(worker):
            worker.kill()  # killed by set(), perhaps just after it answered: never reused
            return reply if reply is not None else cancelled
        if reply is None:
            timed_out = worker.alive()
            worker.kill()
            if timed_out:
                return {"status": "timeout", "reason": f"no answer within {timeout_s:g} s"}
            return {"status": "error", "reason": f"{self.what} died"}
        self._release(worker)
        return reply

    def _release(self, worker: LineWorker) -> None:
        with self.lock:
            if worker.uses < MAX_USES and len(self.idle) < self.max_idle:
                self.idle.append(worker)
                return
        worker.kill()

    def close(self) -> None:
        with self.lock:
            workers, self.idle = self.idle, []
        for w in workers:
            w.kill()


def private_stdout() -> TextIO:
    """A line-buffered private copy of stdout for the replies; sys.stdout is pointed at stderr so
    that anything a library prints cannot corrupt the protocol."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout = sys.stderr
    return out


def serve(out: TextIO, ready: str, answer: Callable[[Any], str]) -> None:
    """The child's loop: announce `ready`, then one reply line (`answer(request)`) per request
    line on stdin. A line that is not JSON gets an error reply, not a dead worker."""
    out.write(ready + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except json.JSONDecodeError as exc:
            out.write(json.dumps({"status": "error", "reason": f"bad JSON: {exc}"}) + "\n")
            continue
        out.write(answer(request) + "\n")
