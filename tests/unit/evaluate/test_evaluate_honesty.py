"""Eval honesty: a careless run on a false statement must score clearly below an honest run on
a true one, and every self-review or self-judgement is labelled where it counts.

Three synthetic sessions share the statement, the literature and the paper's citations, so only
what was checked differs:
  honest       proved; 8 lemmas, 2 formal, 6 reviewed by an independent model; 6/6 bounds held;
               novelty judged by another model than the prover
  honest-self  the same proofs, but every review and the novelty judgement by the prover itself
  careless     contradicted; 8 lemmas reviewed by self-review; 0/6 bounds held with violations;
               novelty judged high by the model that proved it
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from eurekaclaw.agents.evaluate import evaluate_session
from eurekaclaw.config import load_settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.types.artifacts import (
    Bibliography,
    BoundCheck,
    EvalReport,
    ExperimentResult,
    LemmaNode,
    Paper,
    PaperOutput,
    ProofRecord,
    TheoryState,
)

PROVER = "prover"  # ScriptedBackend(model="prover") answers as "scripted:prover-main"
INDEPENDENT = "scripted:reviewer-main"


class MarkerEmbedder:
    """Deterministic unit vectors chosen by a marker word in the text."""

    name = "marker-test"
    dim = 3
    VECTORS = {
        "STATEMENT": [1.0, 0.0, 0.0],
        "PaperA": [0.6, 0.8, 0.0],
        "PaperB": [0.6, 0.0, 0.8],
        "PaperC": [0.0, 0.6, 0.8],
    }

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.array([next(v for k, v in self.VECTORS.items() if k in t) for t in texts], dtype=float)


def _theory(*, status: str, formal: int, reviewer: str, self_review: bool, contradictions: list[str]) -> TheoryState:
    # a chain L1 <- L2 <- ... <- L7 <- T: eight lemmas, a long dependency chain
    ids = [f"L{i}" for i in range(1, 8)] + ["T"]
    dag = {
        lid: LemmaNode(
            id=lid,
            statement=f"$b_{{{lid}}} \\le c$",
            dependencies=[ids[i - 1]] if i else [],
            is_root=lid == "T",
            status="proved",
        )
        for i, lid in enumerate(ids)
    }
    proven = {
        lid: ProofRecord(
            lemma_id=lid,
            proof="By the previous lemma.",
            verification_level="formal" if i < formal else "reviewed",
            reviewer=reviewer,
            self_review=self_review,
        )
        for i, lid in enumerate(ids)
    }
    return TheoryState(
        informal_statement="STATEMENT: the UCB1 regret bound",
        formal_statement="$R_T \\le C \\log T$",
        lemma_dag=dag,
        proven_lemmas=proven,
        status=status,  # type: ignore[arg-type]
        contradictions=contradictions,
    )


def _experiment(held: bool) -> ExperimentResult:
    checks = [
        BoundCheck(
            name="regret",
            horizon=10**k,
            empirical_mean=5.0 * k if held else 900.0 * k,
            std_error=1.0,
            theoretical=10.0 * k,
            held=held,
            from_theorem=True,
        )
        for k in range(1, 7)
    ]
    violations = (
        []
        if held
        else [f"regret at T={c.horizon}: empirical {c.empirical_mean} > bound {c.theoretical}" for c in checks]
    )
    return ExperimentResult(status="completed", spec={"source": "designer"}, bound_checks=checks, violations=violations)


def _bib() -> Bibliography:
    return Bibliography(
        checks_ran=True,
        papers=[
            Paper(paper_id="a", title="PaperA on bounds", authors=["Ann Alpha"], year=2020, verification="verified"),
            Paper(paper_id="b", title="PaperB on rates", authors=["Bob Beta"], year=2021, verification="verified"),
            Paper(paper_id="c", title="PaperC on games", authors=["Cy Gamma"], year=2022, verification="unverified"),
        ],
    )


def _save(root: Path, sid: str, theory: TheoryState, experiment: ExperimentResult) -> Path:
    sdir = root / "runs" / sid
    sdir.mkdir(parents=True)
    bus = KnowledgeBus(sid, sdir)
    bus.put_theory_state(theory)
    bus.put_bibliography(_bib())
    bus.put_experiment_result(experiment)
    bus.put("paper", PaperOutput(tex_file="paper.tex", weakest_level=theory.weakest_level()))
    (sdir / "paper.tex").write_text(
        "\\begin{document}\\citet{alpha2020papera} \\citep{beta2021paperb}\\end{document}\n"
    )
    return sdir


def _judge(model: str, score: float) -> SessionLLM:
    rules = [{"role": "evaluate", "output": "NoveltyJudgement", "reply": {"score": score, "rationale": "r"}}]
    return SessionLLM(ScriptedBackend(rules=rules, model=model), UsageLedger(None))


async def _score(tmp_path: Path, which: str) -> EvalReport:
    prover = f"scripted:{PROVER}-main"
    if which == "honest":
        theory = _theory(status="proved", formal=2, reviewer=INDEPENDENT, self_review=False, contradictions=[])
        sdir = _save(tmp_path, "honest000001", theory, _experiment(held=True))
        # the running session knows who proved; the judge is another model
        return await evaluate_session(
            sdir, load_settings(), _judge("reviewer", 0.5), embedder=MarkerEmbedder(), prover=prover
        )
    if which == "honest-self":
        theory = _theory(status="proved", formal=2, reviewer=prover, self_review=True, contradictions=[])
        sdir = _save(tmp_path, "honestself01", theory, _experiment(held=True))
        # the prover is known from its self-reviews only
        return await evaluate_session(sdir, load_settings(), _judge(PROVER, 0.5), embedder=MarkerEmbedder())
    careless = "scripted:careless-main"
    theory = _theory(
        status="contradicted",
        formal=0,
        reviewer=careless,
        self_review=True,
        contradictions=["regret at T=1000000: empirical 5400.0 > bound 60.0"],
    )
    sdir = _save(tmp_path, "careless0001", theory, _experiment(held=False))
    return await evaluate_session(sdir, load_settings(), _judge("careless", 0.95), embedder=MarkerEmbedder())


def _dims(report: EvalReport) -> dict[str, float | None]:
    return {d.name: d.score for d in report.dimensions}


def _explained(report: EvalReport) -> dict[str, str]:
    return {d.name: d.explanation for d in report.dimensions}


async def test_a_careless_false_run_scores_clearly_below_an_honest_true_run(tmp_path: Path) -> None:
    honest = await _score(tmp_path, "honest")
    honest_self = await _score(tmp_path, "honest-self")
    careless = await _score(tmp_path, "careless")
    for name, report in (("honest", honest), ("honest-self", honest_self), ("careless", careless)):
        print(name, round(report.total, 3), {k: None if v is None else round(v, 3) for k, v in _dims(report).items()})

    # honest: (2·1.0 + 6·0.6)/8 = 0.7; every bound held; 8 lemmas and a chain of 8
    assert _dims(honest)["formal_correctness"] == pytest.approx(0.7)
    assert _dims(honest)["experimental_alignment"] == 1.0 and _dims(honest)["proof_depth"] == 1.0
    # a self-reviewed lemma is not a proven lemma: (2·1.0 + 6·0)/8; for the depth the six weak
    # lemmas are half a lemma each
    assert _dims(honest_self)["formal_correctness"] == pytest.approx(0.25)
    assert _dims(honest_self)["proof_depth"] == pytest.approx(0.5 * 5 / 8 + 0.5)
    # contradicted: capped at 0.1 whatever the lemmas say, and its self-reviews count nothing;
    # 0/6 held, capped anyway
    assert _dims(careless)["formal_correctness"] == pytest.approx(0.0)
    assert _dims(careless)["experimental_alignment"] == 0.0
    # the careless model's 0.95 counts a quarter as much as the embedding part
    assert _dims(careless)["novelty"] < 0.5 * (_dims(careless)["novelty"] + 0.95)

    assert careless.total < honest_self.total < honest.total
    assert honest.total - careless.total >= 0.3
    assert honest_self.total - careless.total >= 0.15
    # no dimension rewards the careless run above the honest one
    for name, score in _dims(careless).items():
        assert score is None or score <= (_dims(honest)[name] or 0.0) + 1e-9, name


async def test_every_self_review_and_self_judgement_is_labelled(tmp_path: Path) -> None:
    careless = await _score(tmp_path, "careless")
    text = _explained(careless)
    assert "8 reviewed by self-review" in text["formal_correctness"]
    assert "8 self-reviewed lemma(s) count 0.0" in text["formal_correctness"]
    assert "not proven" in text["formal_correctness"]
    assert "8 self-review(s)" in text["proof_depth"]
    assert "self-judged" in text["novelty"]
    assert "0/6 bound checks held" in text["experimental_alignment"]
    assert any("only self-reviewed" in n for n in careless.notes)
    novelty = next(d for d in careless.dimensions if d.name == "novelty")
    assert novelty.inputs["judge"] == "scripted:careless-main" and novelty.inputs["judge_independence"] == "self"

    honest_self = await _score(tmp_path, "honest-self")
    text = _explained(honest_self)
    assert "6 reviewed by self-review" in text["formal_correctness"] and "self-judged" in text["novelty"]
    assert "6 self-review(s)" in text["proof_depth"]

    honest = await _score(tmp_path, "honest")
    text = _explained(honest)
    assert "self-review" not in text["formal_correctness"] and "self-judged" not in text["novelty"]
    assert "6 reviewed by an independent model" in text["formal_correctness"]
    assert "independent model judgement" in text["novelty"]


async def test_violations_pull_alignment_down_even_when_most_checks_hold(tmp_path: Path) -> None:
    experiment = _experiment(held=True)
    experiment.bound_checks[0].held = False
    experiment.violations = ["regret at T=10: empirical 950.0 > bound 10.0"]
    theory = _theory(status="in_progress", formal=8, reviewer=INDEPENDENT, self_review=False, contradictions=[])
    sdir = _save(tmp_path, "violated0001", theory, experiment)
    report = await evaluate_session(sdir, load_settings(), None, embedder=MarkerEmbedder())
    alignment = next(d for d in report.dimensions if d.name == "experimental_alignment")
    # 5/6 held, but a bound of the theorem failed beyond tolerance
    assert alignment.score == 0.2 and "capped at 0.2" in alignment.explanation
    assert alignment.inputs["held_fraction"] == pytest.approx(5 / 6)


async def test_a_level_cap_keeps_correctness_low(tmp_path: Path) -> None:
    theory = _theory(status="in_progress", formal=8, reviewer=INDEPENDENT, self_review=False, contradictions=[])
    theory.level_cap_reasons = ["lemma L3 was refuted and replaced by one without a claim"]
    sdir = _save(tmp_path, "levelcap0001", theory, _experiment(held=True))
    report = await evaluate_session(sdir, load_settings(), None, embedder=MarkerEmbedder())
    correctness = report.dimensions[0]
    assert correctness.score == 0.3 and "level is capped" in correctness.explanation
