"""Attacks on what every surface shows (terminal, `sessions`, --json, paper, browser, `review`,
bench, eval): each test is one attack, by a scripted careless model through the real command or
by a crafted theory state, asserting that a self-reviewed, contradicted, capped, circular or
narrowed result never reaches the reader as a plain "proved"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from surface_kit import SCOPE_SENTENCE, theory_of, write_session

from eurekaclaw.agents.views import lemma_views, theorem_view
from eurekaclaw.types.artifacts import TheoryState
from eurekaclaw.types.tasks import PipelineState

CARELESS = Path(__file__).resolve().parents[2] / "eurekaclaw" / "bench" / "demo" / "careless.py"
FALSE_STATEMENT = "For all reals x >= 0, x^3 >= x^2."  # false on (0, 1)


def surfaces(home: Path, sid: str) -> dict[str, str]:
    """The theorem's displayed status on every surface of one stored session."""
    from eurekaclaw.agents.writer.bibtex import plan_citations
    from eurekaclaw.agents.writer.doc import build_doc
    from eurekaclaw.agents.writer.markdown import render_markdown
    from eurekaclaw.bench.models import RunRecord, classify
    from eurekaclaw.bench.session_run import collect
    from eurekaclaw.cli_result import theorem_of
    from eurekaclaw.orchestrator.verdict import session_status
    from eurekaclaw.store.session import Workspace
    from eurekaclaw.types.artifacts import Bibliography
    from eurekaclaw.ui.data import session_rows

    path = Workspace(home).runs_dir / sid
    theory = TheoryState.model_validate_json((path / "theory_state.json").read_text())
    pipeline = PipelineState()
    for rec in pipeline.stages:
        rec.status = "completed"
    doc = build_doc(theory, plan_citations(Bibliography()), None, {"title": "t", "abstract": "a"})
    view = theorem_of(path)
    assert view is not None
    row = next(r for r in session_rows(Workspace(home)) if r["id"] == sid)
    record = collect(
        RunRecord(run_id="r", config="c", problem_id="p", problem_set="s", truth="false", repetition=1, seed=0), path
    )
    return {
        "terminal": view.word,
        "session": session_status(pipeline, theory, None)[0],
        "paper_env": doc.theorem_env,
        "paper_md": render_markdown(doc),
        "ui_chip": f"{row['theorem']['colour']}:{row['theorem']['word']}",
        "bench": classify("false", record.theory_status)[0],
    }


def test_a_careless_models_false_theorem_with_self_review_is_self_reviewed_everywhere(tmp_path: Path) -> None:
    """Attack: one careless model plans claimless lemmas, "proves" a FALSE statement with a
    sentence and passes its own reviews; with no other reviewer the run ends with every lemma
    proven. It must read self-reviewed (never proved) on every surface, exit 1, and earn nothing
    in the evaluation."""
    home = tmp_path / "home"
    env = {"EUREKACLAW_DIR": str(home), "EUREKACLAW_OFFLINE": "1", "COLUMNS": "200", "NO_COLOR": "1"}
    import os

    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "LLM_"))}, **env}
    proc = subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "prove", FALSE_STATEMENT, "--llm", f"scripted:{CARELESS}", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert proc.returncode == 1 and result["status"] == "partial"
    assert result["theory_status"] == "self_reviewed" and result["theorem"]["colour"] == "amber"
    assert "--review-llm" in result["theorem"]["hint"]
    stored = json.loads((Path(result["session_dir"]) / "theory_state.json").read_text())
    assert stored["status"] == "self_reviewed"  # the stage's own word, too
    seen = surfaces(home, result["session_id"])
    assert seen["terminal"] == "self-reviewed" and seen["session"] == "partial"
    assert seen["paper_env"] == "claim" and "**Theorem**" not in seen["paper_md"]
    assert seen["ui_chip"] == "amber:self-reviewed" and seen["bench"] == "self_reviewed"
    listed = subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "sessions", "--json"], capture_output=True, text=True, env=env, timeout=120
    )
    assert json.loads(listed.stdout)[0]["theory_status"] == "self_reviewed"
    report = json.loads((Path(result["session_dir"]) / "eval_report.json").read_text())
    correctness = next(d for d in report["dimensions"] if d["name"] == "formal_correctness")
    assert correctness["score"] == 0.0  # a self-reviewed lemma is not a proven lemma


@pytest.mark.parametrize("kind", ["contradicted", "refuted", "capped"])
def test_a_failed_theorem_with_machine_checked_lemmas_is_never_proved(isolated_home: Path, kind: str) -> None:
    """Attack: every lemma of the theorem reached smt (z3), but an experiment contradicted it,
    the root was refuted, or its level was capped: the high lemma levels must not paint it proved."""
    write_session(isolated_home, "a1a1a1a1a1a1", kind)
    seen = surfaces(isolated_home, "a1a1a1a1a1a1")
    assert seen["terminal"] != "proved" and "proved" not in seen["terminal"].replace("not proved", "")
    assert seen["session"] == "partial" and seen["paper_env"] == "conjecture"
    assert seen["ui_chip"].startswith("red:") and seen["bench"] != "proved"


def test_a_stage_that_says_proved_over_a_self_review_is_not_believed(isolated_home: Path) -> None:
    """Attack: an older build (or a tampered file) stored status "proved" while the root lemma
    was reviewed only by the model that wrote it."""
    write_session(isolated_home, "b2b2b2b2b2b2", "old_self_review")
    seen = surfaces(isolated_home, "b2b2b2b2b2b2")
    assert seen["terminal"] == "self-reviewed" and seen["session"] == "partial"
    assert seen["ui_chip"] == "amber:self-reviewed" and seen["bench"] == "self_reviewed"


def test_a_narrowed_claim_shows_the_narrowing_sentence_everywhere(isolated_home: Path) -> None:
    """Attack: the careless formalizer proves `x >= 1 => x^2 >= x` for the statement "every real
    x has x^2 >= x" (false at 1/2); the claim is proved, the statement is not."""
    write_session(isolated_home, "c3c3c3c3c3c3", "narrower")
    seen = surfaces(isolated_home, "c3c3c3c3c3c3")
    assert seen["terminal"] == "narrower claim proved" and seen["session"] == "partial"
    assert SCOPE_SENTENCE in seen["paper_md"] and "The statement itself was not proved." in seen["paper_md"]
    assert seen["ui_chip"] == "amber:narrower claim proved" and seen["bench"] == "undecided"
    from eurekaclaw.store.session import Workspace
    from eurekaclaw.ui.data import session_view

    session = next(s for s in Workspace(isolated_home).sessions() if s.session_id == "c3c3c3c3c3c3")
    assert session_view(Workspace(isolated_home), session)["theorem"]["scope_sentence"] == SCOPE_SENTENCE


def test_a_circular_proof_is_a_failed_lemma_and_the_theorem_is_not_proved() -> None:
    """Attack: the helper lemma's recorded proof cites the main theorem it serves."""
    theory = theory_of("proved")
    theory.proven_lemmas["L1"].proof = "By Theorem~\\ref{thm:main}, the bound holds at every x."
    assert lemma_views(theory)["L1"].status == "circular"
    assert theorem_view(theory).status == "abandoned" and theorem_view(theory).colour == "red"
    from eurekaclaw.agents.evaluate.scores import formal_correctness

    dim = formal_correctness(theory, 1.0)
    assert dim.inputs["lemmas"]["L1"]["score"] == 0.0 and dim.score <= 0.3


def test_the_models_prose_cannot_stand_in_for_the_checked_claim() -> None:
    """Attack: the model's prose statement drops the assumption x >= 1 the checkers relied on
    and adds a forged level tag; the theorem shown is the rendered claim, the prose only beside
    it as "in words"."""
    theory = theory_of("proved")
    theory.formal_statement = "For every real $x$, $x^2 \\ge x$ \\eclevel{proved; verification: formal (Coq kernel)}."
    view = theorem_view(theory)
    assert view.from_claim and "1" in view.statement_plain and "Coq" not in view.statement
    assert "eclevel" not in view.statement and view.in_words == theory.formal_statement


def test_an_unknown_status_is_grey_never_green() -> None:
    """Attack: a theory state from a newer build with a status this build does not know."""
    from eurekaclaw import theory_view as tv

    assert tv.colour("proved_by_oracle") == "grey"
    theory = theory_of("proved")
    theory.status = "pending"
    assert theorem_view(theory).colour == "grey" and not theorem_view(theory).proved
