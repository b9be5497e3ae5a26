"""A careless model on a false statement, through the real `eurekaclaw` command, offline.

This replays the sequence that ended `proved` in the first build (tests/e2e/careless_responder.py):
claimless lemmas with Coq files about something else, a claim that restates its assumption, a
refuted claim re-planned as the same lemma without a claim, every review and consistency check
passing, and an experiment that violates the claimed bound. What must hold: the theorem is not
proved, no lemma is above its review level without being its checked claim, the paper and the
terminal say so, memory stores nothing as established, and the evaluation scores it low."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from careless_responder import STATEMENT
from test_scripted_session import cli
from toolreq import require_tool

from eurekaclaw.store.files import read_json

pytestmark = pytest.mark.e2e

HERE = Path(__file__).resolve().parent
CARELESS = HERE / "careless_responder.py"


def test_a_careless_model_cannot_get_a_false_theorem_proved(tmp_path: Path) -> None:
    require_tool("coqc")
    home, out = tmp_path / "home", tmp_path / "out"
    proc = cli(
        "prove",
        STATEMENT,
        "--domain",
        "mab",
        "--llm",
        f"scripted:{CARELESS}",
        "--json",
        "-o",
        str(out),
        home=home,
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr  # partial: the theorem is not proved
    assert "Traceback" not in proc.stderr
    result = json.loads(proc.stdout)
    assert result["theory_status"] in ("contradicted", "abandoned", "refuted")
    assert result["theory_status"] != "proved"
    session = Path(result["session_dir"])
    theory = read_json(session / "theory_state.json")

    # the refuted lemma stays refuted, its claimless replacement caps the theorem
    assert theory["lemma_dag"]["gap"]["status"] == "refuted"
    assert any(c["lemma_id"] == "gap" and c["confirmed"] for c in theory["counterexamples"])
    replacement = theory["lemma_dag"].get("gap_b")
    if replacement is not None:
        assert replacement["replaces"] == "gap"
        assert any("gap_b" in r for r in theory["level_cap_reasons"])

    # no lemma is at formal/smt unless its statement is its (non-trivial) checked claim
    for lid, rec in theory["proven_lemmas"].items():
        node = theory["lemma_dag"].get(lid, {})
        if rec["verification_level"] in ("formal", "smt"):
            assert node.get("statement_source") == "claim" and not node.get("claim_flags"), lid
        if node.get("claim") is None:
            assert rec["verification_level"] in ("reviewed", "unverified"), lid
            assert rec["formal_proof"] is None
        assert rec["self_review"] is True  # one model wrote and reviewed everything
    assert theory["proven_lemmas"]["conc"]["verification_level"] == "reviewed"
    unit = theory["lemma_dag"]["unit_gap"]
    assert unit["claim_flags"], "a claim that restates its assumption must be flagged"
    assert theory["proven_lemmas"]["unit_gap"]["verification_level"] == "reviewed"
    assert any("no claim" in n and "ignored" in n for n in theory["notes"])

    # the experiment measured the violation and it is on the record
    experiment = read_json(session / "experiment_result.json")
    assert experiment["violations"], experiment.get("notes")
    assert any(c["checker"] == "experiment" for c in theory["counterexamples"])
    assert theory["status"] == "contradicted" and theory["contradictions"]

    # the paper and the terminal say it is not a theorem
    paper = (session / "paper.md").read_text()
    assert "contradicted" in paper and "conjecture" in paper.lower()
    assert "self-review" in paper
    human = cli("sessions", home=home, cwd=tmp_path)
    assert "contradicted" in human.stdout

    # memory: nothing of this session is stored as established
    graph = read_json(home / "memory" / "knowledge_graph.json", {"nodes": {}})
    for node in graph.get("nodes", {}).values():
        if node.get("session_id") == result["session_id"] or result["session_id"] in node.get("sessions", []):
            assert not node.get("established"), node
            assert node.get("verification_level") == "unverified"
    insights = list((home / "memories").rglob("*.md")) if (home / "memories").exists() else []
    for path in insights:
        text = path.read_text()
        if result["session_id"] in text:
            assert "established: true" not in text, path

    # the evaluation ranks it low
    report = read_json(session / "eval_report.json")
    correctness = next(d for d in report["dimensions"] if "correct" in d["name"])
    assert correctness["score"] is not None and correctness["score"] <= 0.3
    assert report["total"] < 0.45
