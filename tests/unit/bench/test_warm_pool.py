"""Warm workers: long-lived processes that take one session at a time, keep sessions apart,
and turn a dead or runaway worker into one recorded run instead of a lost one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from eurekaclaw.bench.models import BenchConfig, RunSpec
from eurekaclaw.bench.problems import Problem
from eurekaclaw.bench.warm import WarmPool


def _spec(run_id: str, home: Path, **extra: Any) -> dict[str, Any]:
    problem = Problem(id="p", statement="x >= 0 for x >= 0.", truth="true", source="test")
    spec = RunSpec(run_id=run_id, config=BenchConfig(label="c"), problem=problem, repetition=1, seed=1, home=str(home))
    return {**spec.model_dump(mode="json"), **extra}


def _drain(pool: WarmPool, handles: list[Any]) -> dict[Any, tuple[Any, Any]]:
    out: dict[Any, tuple[Any, Any]] = {}
    pending = list(handles)
    while pending:
        for handle, data, error in pool.wait_any(pending):
            out[handle] = (data, error)
            pending.remove(handle)
    return out


def test_a_reused_worker_sees_nothing_an_earlier_session_left(tmp_path: Path) -> None:
    os.environ.pop("BENCH_TEST_LEAK", None)
    pool = WarmPool(1, target="warm_targets:leaky", modules=())
    try:
        handles = [pool.submit(_spec(f"r{i}", tmp_path)) for i in range(3)]
        results = _drain(pool, handles)
    finally:
        pool.close()
    records = [results[h][0] for h in handles]
    assert len({r["pid"] for r in records}) == 1  # one long-lived worker ran all three
    for record in records:
        assert record["seen"]["env"] is None and record["seen"]["cwd"] != str(tmp_path)
    assert len(pool.startups) == 1 and pool.startups[0]["startup_s"] > 0


def test_a_runaway_session_is_killed_and_recorded_timed_out_and_the_pool_goes_on(tmp_path: Path) -> None:
    pool = WarmPool(2, target="warm_targets:sleepy", modules=(), grace_s=0.2)
    try:
        slow = pool.submit(_spec("slow", tmp_path / "slow", sleep=600, timeout_s=0.5))
        fast = pool.submit(_spec("fast", tmp_path / "fast", sleep=0))
        results = _drain(pool, [slow, fast])
        # two at once: both slots busy, so the fresh worker that replaced the killed one ran one
        after = [pool.submit(_spec(f"after{i}", tmp_path / "after", sleep=0.5)) for i in range(2)]
        results.update(_drain(pool, after))
    finally:
        pool.close()
    record, error = results[slow]
    assert error is None and record["timed_out"] is True and record["verdict"] == "undecided"
    assert "session timeout" in record["reason"] and record["run_id"] == "slow"
    assert results[fast][0]["run_id"] == "fast"
    assert sorted(results[h][0]["run_id"] for h in after) == ["after0", "after1"]
    assert len(pool.startups) == 3  # two at the start, one replacing the killed worker
    assert {results[h][0]["pid"] for h in after} <= {int(s["worker"].split(":")[1]) for s in pool.startups}


def test_a_worker_that_dies_is_one_failed_run(tmp_path: Path) -> None:
    pool = WarmPool(1, target="warm_targets:crash", modules=())
    try:
        dead = pool.submit(_spec("dead", tmp_path, crash=True))
        alive = pool.submit(_spec("alive", tmp_path))
        results = _drain(pool, [dead, alive])
    finally:
        pool.close()
    assert results[dead] == (None, "worker process died (exit code 3)")
    assert results[alive][0]["run_id"] == "alive"


@pytest.mark.parametrize("workers", [1, 3])
def test_every_submitted_session_comes_back_exactly_once(tmp_path: Path, workers: int) -> None:
    pool = WarmPool(workers, target="warm_targets:sleepy", modules=())
    try:
        handles = [pool.submit(_spec(f"r{i}", tmp_path, sleep=0.01 * (i % 3))) for i in range(7)]
        results = _drain(pool, handles)
    finally:
        pool.close()
    assert sorted(r[0]["run_id"] for r in results.values()) == sorted(f"r{i}" for i in range(7))
