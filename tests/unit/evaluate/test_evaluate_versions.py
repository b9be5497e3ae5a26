"""The evaluation scores the session's current paper version and says which: the newest version
listed in review/versions.json, else the writer's paper (version 1); a prose revision is scored
again with the earlier novelty judgement reused."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from eurekaclaw.agents.evaluate import evaluate_session, render_eval_table
from eurekaclaw.agents.evaluate.paper_version import current_paper
from eurekaclaw.agents.evaluate.session import rescore_prose_revision
from eurekaclaw.config import load_settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.types.artifacts import Bibliography, LemmaNode, Paper, ProofRecord, TheoryState

CITE_A = "\\citet{alpha2020papera}"
CITE_AB = "\\citet{alpha2020papera} \\citep{beta2021paperb}"


def _session(tmp_path: Path, cite_v1: str) -> Path:
    sdir = tmp_path / "runs" / "abcdef123456"
    sdir.mkdir(parents=True)
    bus = KnowledgeBus(sdir.name, sdir)
    bus.put_theory_state(
        TheoryState(
            informal_statement="every x is nonnegative",
            lemma_dag={"main": LemmaNode(id="main", statement="$x \\ge 0$", is_root=True)},
            proven_lemmas={"main": ProofRecord(lemma_id="main", proof="Clear.", verification_level="formal")},
            status="proved",
        )
    )
    bus.put_bibliography(
        Bibliography(
            checks_ran=True,
            papers=[
                Paper(paper_id="a", title="PaperA", authors=["Ann Alpha"], year=2020, verification="verified"),
                Paper(paper_id="b", title="PaperB", authors=["Bob Beta"], year=2021, verification="verified"),
            ],
        )
    )
    _tex(sdir, "paper.tex", cite_v1)
    return sdir


def _tex(sdir: Path, name: str, cite: str) -> None:
    (sdir / name).write_text(f"\\documentclass{{article}}\\begin{{document}}{cite}\\end{{document}}\n")


def _revise(sdir: Path, *versions: int, cite: str = CITE_AB) -> None:
    """What `review --revise` leaves: paper_v<n>.tex and its entry in review/versions.json."""
    for n in versions:
        _tex(sdir, f"paper_v{n}.tex", cite)
    listed = [{"version": n, "tex_file": f"paper_v{n}.tex"} for n in reversed(versions)]  # order is not trusted
    (sdir / "review").mkdir(exist_ok=True)
    (sdir / "review" / "versions.json").write_text(json.dumps({"versions": listed}))


def _coverage(report) -> float | None:  # type: ignore[no-untyped-def]
    return next(d.score for d in report.dimensions if d.name == "citation_coverage")


def _judge(calls: list[str]) -> SessionLLM:
    def respond(request):  # type: ignore[no-untyped-def]
        calls.append(request.role)
        return {"score": 0.8, "rationale": "new"}

    return SessionLLM(ScriptedBackend(responder=respond, model="judge"), UsageLedger(None))


async def test_a_session_without_revisions_scores_the_writers_paper_as_version_1(tmp_path: Path) -> None:
    sdir = _session(tmp_path, CITE_A)
    report = await evaluate_session(sdir, load_settings(), None, embedder=None)
    assert report.paper_version == 1 and _coverage(report) == 0.5
    assert not any("paper version" in n for n in report.notes)  # the notes read as before revisions existed


async def test_eval_of_a_revised_session_scores_the_newest_version_and_names_it(tmp_path: Path) -> None:
    sdir = _session(tmp_path, CITE_A)
    _revise(sdir, 2, 3)
    report = await evaluate_session(sdir, load_settings(), None, embedder=None)
    # paper_v3.tex cites both papers; version 1 (paper.json / paper.tex) cites one
    assert report.paper_version == 3 and _coverage(report) == 1.0
    assert report.notes[0] == "scores paper version 3, the current one (paper_v3.tex)"
    saved = json.loads((sdir / "eval_report.json").read_text())
    assert saved["paper_version"] == 3
    console = Console(record=True, width=160)
    console.print(render_eval_table(report))
    assert "paper version 3" in console.export_text()


def test_a_damaged_version_list_falls_back_to_the_writers_paper(tmp_path: Path) -> None:
    sdir = _session(tmp_path, CITE_A)
    (sdir / "review").mkdir()
    (sdir / "review" / "versions.json").write_text("{not json")
    scored = current_paper(sdir, None)
    assert (scored.version, scored.tex_file, scored.note()) == (1, "paper.tex", "")


async def test_a_prose_revision_is_rescored_with_the_earlier_novelty_judgement(tmp_path: Path) -> None:
    sdir = _session(tmp_path, CITE_A)
    calls: list[str] = []
    first = await evaluate_session(sdir, load_settings(), _judge(calls), embedder=None)
    judged = next(d for d in first.dimensions if d.name == "novelty")
    assert calls == ["evaluate"] and judged.score is not None
    _revise(sdir, 2)
    report = await rescore_prose_revision(sdir, load_settings())
    assert report is not None and calls == ["evaluate"]  # no second model call
    assert report.paper_version == 2 and _coverage(report) == 1.0  # version 2's citations
    novelty = next(d for d in report.dimensions if d.name == "novelty")
    assert novelty.score == judged.score and novelty.explanation.endswith("(reused from the evaluation of version 1)")
    assert report.notes[0] == "scores paper version 2, the current one (paper_v2.tex)"
    assert report.notes[1].startswith("novelty: the judgement of the evaluation of version 1 is reused")
    assert json.loads((sdir / "eval_report.json").read_text())["paper_version"] == 2
    # a second prose revision still credits the judgement to the version it was made for
    _revise(sdir, 2, 3, cite=CITE_A)
    again = await rescore_prose_revision(sdir, load_settings())
    assert again is not None and again.paper_version == 3 and _coverage(again) == 0.5
    novelty = next(d for d in again.dimensions if d.name == "novelty")
    assert novelty.explanation.count("reused from") == 1 and novelty.explanation.endswith("version 1)")


async def test_a_session_never_evaluated_is_not_scored_by_a_prose_revision(tmp_path: Path) -> None:
    sdir = _session(tmp_path, CITE_A)
    _revise(sdir, 2)
    assert await rescore_prose_revision(sdir, load_settings()) is None
    assert not (sdir / "eval_report.json").exists()
