"""Where a session's time went, derived from the files a session writes (events.jsonl, the
theory state) and the CPU marks the bench takes at stage events."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from eurekaclaw.bench.timing import breakdown, cpu_now, stage_cpu, top_items

T0 = datetime(2026, 11, 28, 12, 0, 0, tzinfo=UTC)


def _write_events(session_dir: Path, rows: list[tuple[float, dict]]) -> None:
    session_dir.mkdir(parents=True)
    lines = [json.dumps({"ts": (T0 + timedelta(seconds=t)).isoformat(), **row}) for t, row in rows]
    lines.insert(3, '{"ts": "2026-11-28T12:00:0')  # a line torn by a kill is skipped
    (session_dir / "events.jsonl").write_text("\n".join(lines) + "\n")


EVENTS = [
    (0.0, {"kind": "stage", "name": "formalize", "status": "running"}),
    (0.5, {"kind": "llm_call", "call": 1, "phase": "start", "stage": "formalize"}),
    (1.5, {"kind": "llm_call", "call": 1, "phase": "end"}),
    (2.0, {"kind": "stage", "name": "formalize", "status": "completed"}),
    (2.0, {"kind": "stage", "name": "theory", "status": "running"}),
    (2.1, {"kind": "lemma", "lemma_id": "L1", "state": "pending"}),
    (2.2, {"kind": "lemma", "lemma_id": "L1", "state": "checking"}),
    (5.2, {"kind": "lemma", "lemma_id": "L1", "state": "in_progress"}),
    (2.3, {"kind": "lemma", "lemma_id": "L2", "state": "pending"}),
    (2.8, {"kind": "lemma", "lemma_id": "L2", "state": "refuted"}),
    (12.0, {"kind": "stage", "name": "theory", "status": "completed"}),
    (12.0, {"kind": "stage", "name": "write", "status": "running"}),
    (12.0, {"kind": "write", "message": "compiling paper.tex with latexmk in the sandbox"}),
    (14.0, {"kind": "llm_call", "call": 2, "phase": "start", "stage": "write"}),
    (15.0, {"kind": "llm_call", "call": 2, "phase": "end"}),
    (17.0, {"kind": "write", "message": "paper written and compiled"}),
    (17.5, {"kind": "stage", "name": "write", "status": "completed"}),
    # a stage run a second time (a re-plan) adds to the first
    (20.0, {"kind": "stage", "name": "formalize", "status": "running"}),
    (21.0, {"kind": "stage", "name": "formalize", "status": "completed"}),
]

THEORY = {
    "proven_lemmas": {
        "L1": {"checks": [{"checker": "z3", "seconds": 0.25}, {"checker": "cvc5", "seconds": 9.5}]},
    },
    "failed_attempts": [{"checks": [{"checker": "cvc5", "seconds": 10.0}, {"checker": "llm_review", "seconds": None}]}],
    "consistency_check": {"checker": "consistency", "seconds": 0.5},
}


def test_the_breakdown_by_stage_checker_model_and_tex(tmp_path: Path) -> None:
    session = tmp_path / "s"
    _write_events(session, EVENTS)
    marks = [("formalize", "running", 1.0), ("formalize", "completed", 1.5), ("theory", "running", 1.5)]
    marks += [("theory", "completed", 4.0), ("formalize", "running", 5.0), ("formalize", "completed", 5.25)]
    timing = breakdown(session, THEORY, marks)
    assert timing["stages"]["formalize"] == {"wall_s": 3.0, "cpu_s": 0.75}
    assert timing["stages"]["theory"] == {"wall_s": 10.0, "cpu_s": 2.5}
    assert timing["stages"]["write"] == {"wall_s": 5.5, "cpu_s": None}
    assert timing["checkers"] == {
        "consistency": {"count": 1, "wall_s": 0.5},
        "cvc5": {"count": 2, "wall_s": 19.5},
        "llm_review": {"count": 1, "wall_s": 0.0},
        "z3": {"count": 1, "wall_s": 0.25},
    }
    assert timing["model"]["calls"] == 2 and timing["model"]["wall_s"] == pytest.approx(2.0)
    assert timing["model"]["by_stage"]["write"] == {"calls": 1, "wall_s": 1.0}
    # compiling from 12 s to 17 s, less the 1 s compile-repair model call in between
    assert timing["tex_wall_s"] == pytest.approx(4.0)
    # L1's checks (2.2 → 5.2) and L2 refuted straight from pending (2.3 → 2.8)
    assert timing["precheck_wall_s"] == pytest.approx(3.5)
    assert top_items(timing, 3) == [("cvc5 ×2", 19.5), ("stage theory", 10.0), ("stage write", 5.5)]


def test_a_session_without_files_has_an_empty_breakdown() -> None:
    timing = breakdown(None, None, [])
    assert timing["stages"] == {} and timing["checkers"] == {} and timing["tex_wall_s"] is None
    assert top_items(timing) == []


def test_stage_cpu_ignores_a_stage_that_never_ended() -> None:
    assert stage_cpu([("survey", "running", 0.0), ("survey", "skipped", 0.5), ("theory", "running", 1.0)]) == {
        "survey": 0.5
    }


def test_cpu_now_counts_a_live_child_process() -> None:
    import subprocess
    import sys
    import time

    before = cpu_now()
    child = subprocess.Popen([sys.executable, "-c", "import time\nt=time.process_time()\nwhile time.process_time()-t<0.6: pass\ninput()"], stdin=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while cpu_now() - before < 0.5 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert child.poll() is None  # still alive: its CPU came from /proc, not from a reaped child
        assert cpu_now() - before >= 0.5 or not os.path.isdir("/proc")
    finally:
        child.communicate(b"\n", timeout=30)
