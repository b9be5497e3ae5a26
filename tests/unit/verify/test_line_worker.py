"""line_worker.Cancel: a cancelled request's worker (and its children) is killed at once, and a
request cancelled before it starts never starts a worker."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from eurekaclaw.line_worker import Cancel, WorkerPool

HERE = Path(__file__).resolve().parent


def gone(pid: int) -> bool:
    """No such process, or only its zombie (killed, not yet reaped by init)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except (OSError, IndexError):
        return True


def wait_for(predicate, what: str, limit_s: float = 60.0) -> None:
    """Poll (a generous limit against a hung test, not a timing assertion)."""
    end = time.monotonic() + limit_s
    while not predicate():
        if time.monotonic() > end:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.02)


@pytest.fixture
def slow_pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[WorkerPool]:
    monkeypatch.setenv("PYTHONPATH", str(HERE))
    pool = WorkerPool("slow_line_worker", "slow-line-worker-ready", "the slow worker")
    yield pool
    pool.close()


def run_in_thread(pool: WorkerPool, payload: dict, cancel: Cancel) -> dict:
    out: dict = {}
    thread = threading.Thread(target=lambda: out.update(reply=pool.request(payload, 3600.0, cancel)))
    thread.start()
    out["thread"] = thread
    return out


def test_cancel_kills_the_worker_and_its_children(slow_pool: WorkerPool, tmp_path: Path) -> None:
    pidfile = tmp_path / "pids.json"
    cancel = Cancel()
    out = run_in_thread(slow_pool, {"pidfile": str(pidfile)}, cancel)
    wait_for(lambda: pidfile.exists() and pidfile.read_text(), "the worker to take the request")
    worker_pid, child_pid = json.loads(pidfile.read_text())
    assert not gone(worker_pid) and not gone(child_pid)
    cancel.set()
    out["thread"].join(60)
    assert not out["thread"].is_alive()
    assert out["reply"]["status"] == "cancelled"
    assert gone(worker_pid)
    wait_for(lambda: gone(child_pid), "the worker's child to die")  # same process group
    assert slow_pool.idle == []  # a killed worker is never reused


def test_cancel_during_start_up(slow_pool: WorkerPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    start_file = tmp_path / "start.json"
    monkeypatch.setenv("SLOW_LINE_WORKER_START", str(start_file))
    cancel = Cancel()
    out = run_in_thread(slow_pool, {"pidfile": str(tmp_path / "never.json")}, cancel)
    wait_for(lambda: start_file.exists() and start_file.read_text(), "the worker to start")
    (pid,) = json.loads(start_file.read_text())
    cancel.set()
    out["thread"].join(60)
    assert out["reply"]["status"] == "cancelled" and gone(pid)


def test_cancelled_before_the_request_starts_no_worker(slow_pool: WorkerPool, tmp_path: Path) -> None:
    cancel = Cancel()
    cancel.set()
    reply = slow_pool.request({"pidfile": str(tmp_path / "p.json")}, 3600.0, cancel)
    assert reply["status"] == "cancelled"
    assert not (tmp_path / "p.json").exists() and slow_pool.idle == []


def test_an_unused_cancel_leaves_the_worker_reusable(monkeypatch: pytest.MonkeyPatch) -> None:
    """A request that answers before anything is cancelled gives its worker back to the pool."""
    pool = WorkerPool("eurekaclaw.verify.smt_worker", "eurekaclaw-smt-worker-ready", "the SMT worker")
    try:
        cancel = Cancel()
        reply = pool.request({"claim": {"conclusion": "1 > 0"}, "timeout_s": 5}, 30.0, cancel)
        assert reply.get("status") in ("unsat", "untranslatable", "error")
        assert len(pool.idle) == 1 and pool.idle[0].alive()
        cancel.set()  # after the request: signals nothing
        assert pool.idle[0].alive()
    finally:
        pool.close()
