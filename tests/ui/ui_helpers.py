"""Sessions for the UI tests: written through the store's own models (like a finished run
would leave them), and a way to drive a real scripted run."""

from __future__ import annotations

import importlib.util
import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from toolreq import tools_required

from eurekaclaw.store.files import atomic_write_json
from eurekaclaw.store.session import SessionDir, Workspace
from eurekaclaw.types.tasks import PipelineState, SessionMeta

RESPONDER = Path(__file__).resolve().parents[1] / "e2e" / "demo_responder.py"
STATEMENT = "For all real x, x^2 - 2x + 1 >= 0"
TOKEN = "test-token-0123456789abcdef"
HOST = "127.0.0.1:8765"


def make_session(
    home: Path,
    sid: str,
    *,
    statement: str = STATEMENT,
    status: str = "completed",
    theory_status: str | None = "proved",
    cost_known: bool = True,
    paper_md: str | None = "# A paper\n\nThe theorem holds.\n",
) -> SessionDir:
    session = SessionDir(Workspace(home).runs_dir / sid)
    session.path.mkdir(parents=True)
    session.save_meta(
        SessionMeta(
            session_id=sid,
            mode="prove",
            statement=statement,
            status=status,
            domain="general",
            backend="scripted",
            cost_usd=0.0125,
            theory_status=theory_status,
        )
    )
    pipeline = PipelineState()
    for rec in pipeline.stages:
        rec.status = "completed"
        rec.started_at = datetime(2026, 11, 26, 10, 0, 0, tzinfo=UTC)
        rec.finished_at = datetime(2026, 11, 26, 10, 0, 4, tzinfo=UTC)
    atomic_write_json(session.file("pipeline.json"), pipeline)
    atomic_write_json(
        session.file("theory_state.json"),
        {
            "status": theory_status or "pending",
            "lemma_dag": {
                "L1": {"id": "L1", "statement": "(x-1)^2 >= 0", "status": "proved", "dependencies": []},
                "L2": {"id": "L2", "statement": "x >= x - 1", "status": "refuted", "dependencies": []},
                "T": {
                    "id": "T",
                    "statement": "x^2 - 2x + 1 >= 0",
                    "status": "proved",
                    "is_root": True,
                    # L2 was refuted and dropped from the proof; T's own proof is a self-review
                    "dependencies": ["L1"],
                },
            },
            "proven_lemmas": {
                "L1": {
                    "lemma_id": "L1",
                    "proof": "square",
                    "verification_level": "smt",
                    "checks": [{"checker": "z3", "verdict": "passed", "detail": "unsat"}],
                },
                "T": {
                    "lemma_id": "T",
                    "proof": "by L1",
                    "verification_level": "reviewed",
                    "self_review": True,
                    "checks": [{"checker": "llm_review", "verdict": "passed"}],
                },
            },
            "counterexamples": [{"lemma_id": "L2", "assignment": {"x": "-3"}, "checker": "falsifier"}],
            "failed_attempts": [
                {"lemma_id": "L2", "attempt": 1, "error_category": "counterexample", "verifier_text": "fails at x = -3"}
            ],
        },
    )
    usage: dict[str, Any] = {
        "calls": 9,
        "cost_known": cost_known,
        "cost_usd": 0.0125 if cost_known else None,
        "priced_cost_usd": 0.0125,
        "total": {"input_tokens": 1000, "output_tokens": 234},
    }
    atomic_write_json(session.file("usage.json"), usage)
    atomic_write_json(
        session.file("eval_report.json"),
        {
            "session_id": sid,
            "total": 0.71,
            "dimensions": [
                {"name": "formal_correctness", "score": 0.9, "weight": 0.3},
                {"name": "novelty", "score": None, "weight": 0.2, "explanation": "no judge"},
            ],
        },
    )
    if paper_md is not None:
        session.file("paper.md").write_text(paper_md, encoding="utf-8")
    session.file("paper.pdf").write_bytes(b"%PDF-1.4\n% test\n")
    for kind, extra in (
        ("session_started", {"mode": "prove"}),
        ("stage", {"name": "theory", "status": "completed"}),
        ("session_stopped", {"status": status}),
    ):
        session.event(kind, **extra)
    return session


def wait_for(predicate: Any, timeout: float = 300.0, what: str = "condition") -> Any:
    """Poll until `predicate()` is truthy (a generous bound that only stops a hung test)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def meta_of(home: Path, sid: str) -> dict[str, Any]:
    return json.loads((Workspace(home).runs_dir / sid / "session.json").read_text())


def need_ui_extra() -> None:
    """At the top of a test module: skip it without the ui extra, fail under REQUIRE_TOOLS."""
    for module in ("starlette", "uvicorn", "multipart"):
        if importlib.util.find_spec(module) is None:
            message = f"python module {module} is not installed (pip install 'eurekaclaw[ui]')"
            if tools_required():
                pytest.fail(f"required tool missing: {message}", pytrace=False)
            pytest.skip(message, allow_module_level=True)


UI_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ui"


def add_mab_experiment(session: SessionDir) -> None:
    """A real MAB experiment's results (UCB1, Thompson, KL-UCB on a 5-arm Bernoulli instance,
    20 runs, the UCB1 and KL-UCB bounds), as the Experiment stage writes them."""
    import shutil

    shutil.copy(UI_FIXTURES / "mab_regret_curves.csv", session.path / "regret_curves.csv")
    shutil.copy(UI_FIXTURES / "mab_experiment_result.json", session.file("experiment_result.json"))
