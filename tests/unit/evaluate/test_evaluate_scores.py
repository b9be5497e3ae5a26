"""Scientist-Bench scores of crafted sessions against hand-computed values."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.evaluate import EvaluateStage, evaluate_session, render_eval_table
from eurekaclaw.agents.evaluate.novelty import closest_papers
from eurekaclaw.config import load_settings
from eurekaclaw.errors import SessionNotFoundError
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.memory.episodic import EpisodicMemory
from eurekaclaw.tools.base import ToolRegistry
from eurekaclaw.types.artifacts import (
    Bibliography,
    BoundCheck,
    ExperimentResult,
    LemmaNode,
    Paper,
    ProofRecord,
    TheoryState,
)
from eurekaclaw.types.tasks import InputSpec


class FixedEmbedder:
    """Unit vectors chosen by a marker word, so similarities are known exactly:
    statement·A = 0.6, statement·B = 0.6, statement·C = 0; A·B = 0.36, A·C = 0.48, B·C = 0.64."""

    name = "fixed-test"
    dim = 3
    VECTORS = {
        "STATEMENT": [1.0, 0.0, 0.0],
        "PaperA": [0.6, 0.8, 0.0],
        "PaperB": [0.6, 0.0, 0.8],
        "PaperC": [0.0, 0.6, 0.8],
    }

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = []
        for text in texts:
            key = next(k for k in self.VECTORS if k in text)
            rows.append(self.VECTORS[key])
        return np.array(rows, dtype=float)


# top-3 mean similarity 0.4; reference similarity mean(0.42, 0.50, 0.56) = 0.49333...
EMB_NOVELTY = 1 - 0.4 / ((0.42 + 0.50 + 0.56) / 3)  # 0.189189...


def _lemma(lid: str, deps: list[str] | None = None, root: bool = False) -> LemmaNode:
    return LemmaNode(id=lid, statement=f"$x_{lid} \\ge 0$", dependencies=deps or [], is_root=root)


def _theory(levels: dict[str, str | None], status: str, reviewer: str = "scripted:reviewer-main") -> TheoryState:
    dag = {
        "L1": _lemma("L1"),
        "L2": _lemma("L2", ["L1"]),
        "L3": _lemma("L3"),
        "main": _lemma("main", ["L2", "L3"], root=True),
    }
    proven = {
        lid: ProofRecord(lemma_id=lid, proof="Clear.", verification_level=level, reviewer=reviewer)  # type: ignore[arg-type]
        for lid, level in levels.items()
        if level is not None
    }
    return TheoryState(
        informal_statement="STATEMENT: every x is nonnegative.",
        formal_statement="$x \\ge 0$",
        lemma_dag=dag,
        proven_lemmas=proven,
        status=status,  # type: ignore[arg-type]
    )


def _bib() -> Bibliography:
    return Bibliography(
        checks_ran=True,
        papers=[
            Paper(paper_id="a", title="PaperA on bounds", authors=["Ann Alpha"], year=2020, verification="verified"),
            Paper(paper_id="b", title="PaperB on rates", authors=["Bob Beta"], year=2021, verification="verified"),
            Paper(paper_id="c", title="PaperC on games", authors=["Cy Gamma"], year=2022, verification="unverified"),
            # not literature: ignored by coverage and novelty
            Paper(paper_id="d", title="PaperA clone", authors=["Ghost"], year=2023, verification="not_found"),
        ],
    )


def _experiment(held: list[bool]) -> ExperimentResult:
    return ExperimentResult(
        status="completed",
        bound_checks=[
            BoundCheck(name=f"b{i}", horizon=100, empirical_mean=1.0, std_error=0.1, theoretical=2.0, held=h)
            for i, h in enumerate(held)
        ],
    )


def _session(tmp_path: Path, theory: TheoryState, *, experiment: ExperimentResult | None, cite: str) -> Path:
    sdir = tmp_path / "runs" / "abcdef123456"
    sdir.mkdir(parents=True)
    bus = KnowledgeBus(sdir.name, sdir)
    bus.put_theory_state(theory)
    bus.put_bibliography(_bib())
    if experiment is not None:
        bus.put_experiment_result(experiment)
    (sdir / "paper.tex").write_text(f"\\documentclass{{article}}\\begin{{document}}{cite}\\end{{document}}\n")
    return sdir


def _dims(report) -> dict[str, float | None]:  # type: ignore[no-untyped-def]
    return {d.name: d.score for d in report.dimensions}


ALL_FORMAL = {"L1": "formal", "L2": "formal", "L3": "formal", "main": "formal"}


async def test_all_formal_session(tmp_path: Path) -> None:
    sdir = _session(
        tmp_path,
        _theory(ALL_FORMAL, "proved"),
        experiment=_experiment([True, True]),
        cite="\\citet{alpha2020papera} \\citep[p.~2]{beta2021paperb}",
    )
    report = await evaluate_session(sdir, load_settings(), None, embedder=FixedEmbedder())
    dims = _dims(report)
    assert dims["formal_correctness"] == 1.0
    assert dims["novelty"] == pytest.approx(EMB_NOVELTY, abs=1e-6)
    assert dims["experimental_alignment"] == 1.0
    # 4 proven lemmas (size 4/8) and the chain main -> L2 -> L1 (3/4)
    assert dims["proof_depth"] == pytest.approx(0.5 * 0.5 + 0.5 * 0.75)
    # relevant: a, b, c (d was not found); verified and cited: a, b
    assert dims["citation_coverage"] == pytest.approx(2 / 3, abs=1e-6)
    expected = 0.35 * 1 + 0.25 * EMB_NOVELTY + 0.15 * 1 + 0.15 * 0.625 + 0.10 * (2 / 3)
    assert report.total == pytest.approx(expected, abs=1e-5)
    novelty = next(d for d in report.dimensions if d.name == "novelty")
    assert novelty.inputs["mean_top_k_similarity"] == pytest.approx(0.4)
    assert "no LLM" in novelty.explanation
    # written next to the session, with the inputs behind every number
    saved = json.loads((sdir / "eval_report.json").read_text())
    assert saved["total"] == pytest.approx(expected, abs=1e-5)
    assert saved["dimensions"][0]["inputs"]["lemmas"]["L1"] == {
        "level": "formal",
        "checked_by": "mechanical",
        "score": 1.0,
        "reviewer": "scripted:reviewer-main",
    }


async def test_half_unverified_session(tmp_path: Path) -> None:
    levels = {"L1": "formal", "L2": "formal", "L3": "unverified", "main": "unverified"}
    sdir = _session(tmp_path, _theory(levels, "in_progress"), experiment=_experiment([True, False]), cite="")
    report = await evaluate_session(sdir, load_settings(), None, embedder=FixedEmbedder())
    correctness = report.dimensions[0]
    # mean (1 + 1 + 0.1 + 0.1) / 4 = 0.55, capped at 0.5 for an unproved theorem
    assert correctness.inputs["mean_level_score"] == pytest.approx(0.55)
    assert correctness.score == 0.5
    assert "capped at 0.5" in correctness.explanation
    dims = _dims(report)
    assert dims["experimental_alignment"] == 0.5
    assert dims["citation_coverage"] == 0.0  # nothing cited


async def test_reviewed_and_open_lemmas_below_the_cap(tmp_path: Path) -> None:
    levels = {"L1": "reviewed", "L2": "cited", "L3": None, "main": None}
    sdir = _session(tmp_path, _theory(levels, "in_progress"), experiment=None, cite="")
    report = await evaluate_session(sdir, load_settings(), None, embedder=FixedEmbedder())
    # (0.6 + 0.5 + 0 + 0) / 4 = 0.275 < cap 0.5
    assert _dims(report)["formal_correctness"] == pytest.approx(0.275)
    # two proven lemmas, chain L2 -> L1
    assert _dims(report)["proof_depth"] == pytest.approx(0.5 * 2 / 8 + 0.5 * 2 / 4)


async def test_a_review_whose_reviewer_was_not_recorded_counts_as_a_self_review(tmp_path):
    levels = {"L1": "reviewed", "L2": "cited", "L3": None, "main": None}
    sdir = _session(tmp_path, _theory(levels, "in_progress", reviewer=""), experiment=None, cite="")
    report = await evaluate_session(sdir, load_settings(), None, embedder=FixedEmbedder())
    correctness = report.dimensions[0]
    # (0 + 0.5 + 0 + 0) / 4: independence of the L1 review cannot be shown, so it is not proven
    assert correctness.score == pytest.approx(0.125)
    assert correctness.inputs["lemmas"]["L1"]["checked_by"] == "reviewer not recorded"
    assert "1 reviewed by reviewer not recorded" in correctness.explanation
    # and it is half a lemma for the depth: 1.5 credited lemmas, chain 2
    assert _dims(report)["proof_depth"] == pytest.approx(0.5 * 1.5 / 8 + 0.5 * 2 / 4)


async def test_refuted_session_is_capped(tmp_path: Path) -> None:
    levels = {"L1": "formal", "L2": "formal", "L3": "formal", "main": None}
    sdir = _session(tmp_path, _theory(levels, "refuted"), experiment=None, cite="")
    report = await evaluate_session(sdir, load_settings(), None, embedder=FixedEmbedder())
    correctness = report.dimensions[0]
    assert correctness.inputs["mean_level_score"] == pytest.approx(0.75)
    assert correctness.score == 0.1
    assert "refuted" in correctness.explanation


async def test_no_experiment_renormalises_the_weights(tmp_path: Path) -> None:
    sdir = _session(
        tmp_path, _theory(ALL_FORMAL, "proved"), experiment=None, cite="\\cite{alpha2020papera,beta2021paperb}"
    )
    report = await evaluate_session(sdir, load_settings(), None, embedder=FixedEmbedder())
    alignment = next(d for d in report.dimensions if d.name == "experimental_alignment")
    assert alignment.score is None and "no experiment" in alignment.explanation
    expected = (0.35 * 1 + 0.25 * EMB_NOVELTY + 0.15 * 0.625 + 0.10 * (2 / 3)) / 0.85
    assert report.total == pytest.approx(expected, abs=1e-5)
    assert any("experimental_alignment" in n and "renormalised" in n for n in report.notes)
    assert alignment.inputs["effective_weight"] == 0.0
    assert report.dimensions[0].inputs["effective_weight"] == pytest.approx(0.35 / 0.85, abs=1e-6)


async def test_default_spec_experiment_does_not_count_as_alignment(tmp_path: Path) -> None:
    experiment = _experiment([True, True])
    experiment.spec = {"source": "default"}
    sdir = _session(tmp_path, _theory(ALL_FORMAL, "proved"), experiment=experiment, cite="")
    report = await evaluate_session(sdir, load_settings(), None, embedder=FixedEmbedder())
    alignment = next(d for d in report.dimensions if d.name == "experimental_alignment")
    assert alignment.score is None and "default spec" in alignment.explanation


async def test_custom_weights_from_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_WEIGHTS", "1,0,0,0,0")
    sdir = _session(tmp_path, _theory(ALL_FORMAL, "proved"), experiment=None, cite="")
    report = await evaluate_session(sdir, load_settings(), None, embedder=FixedEmbedder())
    assert report.total == 1.0


async def test_llm_judgement_is_combined_with_the_embedding(tmp_path: Path) -> None:
    sdir = _session(tmp_path, _theory(ALL_FORMAL, "proved"), experiment=None, cite="")
    backend = ScriptedBackend(
        rules=[
            {"role": "evaluate", "output": "NoveltyJudgement", "reply": {"score": 0.5, "rationale": "A known setting."}}
        ]
    )
    llm = SessionLLM(backend, UsageLedger(None))
    # the judge (scripted:scripted-main) is not the model that wrote the proofs
    report = await evaluate_session(sdir, load_settings(), llm, embedder=FixedEmbedder(), prover="scripted:prover-main")
    novelty = next(d for d in report.dimensions if d.name == "novelty")
    assert novelty.score == pytest.approx((EMB_NOVELTY + 0.5) / 2, abs=1e-6)
    assert novelty.inputs["llm_judgement"]["score"] == 0.5
    assert novelty.inputs["judge_independence"] == "independent"
    assert "independent model judgement 0.500" in novelty.explanation
    prompt = backend.calls[0].prompt_text()
    # the model sees the closest papers, most similar first
    assert prompt.index("paper_id=a") < prompt.index("paper_id=c")
    assert len(backend.calls) == 1


async def test_a_self_judged_novelty_is_labelled_and_discounted(tmp_path: Path) -> None:
    sdir = _session(tmp_path, _theory(ALL_FORMAL, "proved"), experiment=None, cite="")
    rules = [{"role": "evaluate", "output": "NoveltyJudgement", "reply": {"score": 0.9, "rationale": "New!"}}]
    llm = SessionLLM(ScriptedBackend(rules=rules), UsageLedger(None))
    report = await evaluate_session(
        sdir, load_settings(), llm, embedder=FixedEmbedder(), prover="scripted:scripted-main"
    )
    novelty = next(d for d in report.dimensions if d.name == "novelty")
    # the model part weighs a quarter of the embedding part
    assert novelty.score == pytest.approx((EMB_NOVELTY + 0.25 * 0.9) / 1.25, abs=1e-6)
    assert novelty.inputs["judge_independence"] == "self" and "self-judged" in novelty.explanation
    # without embeddings the self-judged opinion is all there is: the dimension weighs half
    report = await evaluate_session(sdir, load_settings(), llm, embedder=None)
    novelty = next(d for d in report.dimensions if d.name == "novelty")
    assert novelty.inputs["judge_independence"] == "unknown" and novelty.score == pytest.approx(0.9)
    assert novelty.weight == pytest.approx(0.125) and "not shown independent" in novelty.explanation


def test_prover_identities_come_from_self_reviews_and_the_llm_log(tmp_path: Path) -> None:
    from eurekaclaw.agents.evaluate.session import prover_identities

    theory = _theory(ALL_FORMAL, "proved")
    theory.proven_lemmas["L1"].self_review = True
    theory.proven_lemmas["L1"].reviewer = "anthropic:claude-x"
    (tmp_path / "llm_log.jsonl").write_text(
        json.dumps({"request": {"role": "prover", "model": "qwen-7b"}})
        + "\n"
        + json.dumps({"request": {"role": "verifier", "model": "other"}})
        + "\n"
        + 'not json "prover"\n'
    )
    assert prover_identities(theory, tmp_path, "local:me") == {"anthropic:claude-x", "qwen-7b", "local:me"}
    assert prover_identities(None, None) == set()


async def test_unusable_llm_judgement_falls_back_to_embedding(tmp_path: Path) -> None:
    sdir = _session(tmp_path, _theory(ALL_FORMAL, "proved"), experiment=None, cite="")
    llm = SessionLLM(ScriptedBackend(rules=[{"role": "evaluate", "reply": {"score": 7}}]), UsageLedger(None))
    report = await evaluate_session(sdir, load_settings(), llm, embedder=FixedEmbedder())
    novelty = next(d for d in report.dimensions if d.name == "novelty")
    assert novelty.score == pytest.approx(EMB_NOVELTY, abs=1e-6)
    assert "unusable" in novelty.explanation


async def test_partial_session_without_theory_or_paper(tmp_path: Path) -> None:
    sdir = tmp_path / "runs" / "0123456789ab"
    sdir.mkdir(parents=True)
    KnowledgeBus(sdir.name, sdir).put_bibliography(_bib())
    report = await evaluate_session(sdir, load_settings(), None, embedder=FixedEmbedder())
    dims = _dims(report)
    assert dims["formal_correctness"] == 0.0 and dims["proof_depth"] == 0.0
    assert dims["novelty"] is None and dims["experimental_alignment"] is None
    assert dims["citation_coverage"] == 0.0
    coverage = report.dimensions[-1]
    assert "no paper was written" in coverage.explanation
    assert report.total == 0.0
    assert any("no theory state" in n for n in report.notes)


async def test_unknown_session_directory_is_a_bad_input(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFoundError) as info:
        await evaluate_session(tmp_path / "nope", load_settings(), None)
    assert info.value.exit_code == 2


async def test_default_embedder_is_used_when_none_is_given(tmp_path: Path) -> None:
    sdir = _session(tmp_path, _theory(ALL_FORMAL, "proved"), experiment=None, cite="")
    report = await evaluate_session(sdir, load_settings(), None)
    novelty = next(d for d in report.dimensions if d.name == "novelty")
    assert novelty.score is not None and 0.0 <= novelty.score <= 1.0
    assert novelty.inputs["papers_compared"] == 3


def test_closest_papers_ranks_by_similarity() -> None:
    papers = _bib().papers
    closest, inputs = closest_papers("STATEMENT", papers, FixedEmbedder())
    assert [c["paper_id"] for c in closest] == ["a", "b", "c"]
    assert inputs["reference_similarity"] == pytest.approx((0.42 + 0.50 + 0.56) / 3)


async def test_evaluate_stage_puts_the_report_on_the_bus(tmp_path: Path) -> None:
    sdir = _session(tmp_path, _theory(ALL_FORMAL, "proved"), experiment=_experiment([True]), cite="")
    bus = KnowledgeBus.load(sdir.name, sdir)
    backend = ScriptedBackend(rules=[{"role": "evaluate", "reply": {"score": 0.2, "rationale": "r"}}])
    ctx = AgentContext(
        session_id=sdir.name,
        settings=load_settings(),
        bus=bus,
        llm=SessionLLM(backend, UsageLedger(None)),
        tools=ToolRegistry(),
        episodic=EpisodicMemory(sdir.name),
    )
    outcome = await EvaluateStage().run(ctx, InputSpec(mode="prove", statement="x"))
    assert outcome.status == "completed" and outcome.summary.startswith("total ")
    assert bus.get("eval_report") is not None
    assert (sdir / "eval_report.json").is_file()


def test_render_eval_table_shows_every_dimension() -> None:
    from eurekaclaw.types.artifacts import EvalDimension, EvalReport

    report = EvalReport(
        session_id="abc",
        dimensions=[
            EvalDimension(name="formal_correctness", score=0.5, weight=0.35, explanation="capped"),
            EvalDimension(name="experimental_alignment", score=None, weight=0.15, explanation="no experiment"),
        ],
        total=0.5,
        notes=["not applicable: experimental_alignment", "self-referential"],
    )
    console = Console(record=True, width=120)
    console.print(render_eval_table(report))
    text = console.export_text()
    assert "Formal correctness" in text and "0.500" in text
    assert "Experimental alignment" in text and "n/a" in text
    assert "Total" in text
