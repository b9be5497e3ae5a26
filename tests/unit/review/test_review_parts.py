"""Pieces of `review`: citations resolved against the paper, the diff summary, version numbers,
the review's budget on top of the session's spending, and the checks on revised prose."""

from __future__ import annotations

from pathlib import Path

import pytest

from eurekaclaw.agents.writer.bibtex import plan_citations
from eurekaclaw.agents.writer.doc import build_doc
from eurekaclaw.agents.writer.machine_claims import status_sentence
from eurekaclaw.config import load_settings
from eurekaclaw.errors import BudgetExceededError
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.types import LLMRequest, Message, Usage
from eurekaclaw.review.agent import review_ledger
from eurekaclaw.review.facts import PaperFacts
from eurekaclaw.review.history import PaperVersion, ReviewStore
from eurekaclaw.review.qa import QAReply, _resolve_cite, check_answer
from eurekaclaw.review.revise import RevisionReply, checked_prose, diff_summary
from eurekaclaw.store.files import read_json
from eurekaclaw.store.session import SessionDir
from eurekaclaw.types.artifacts import PaperOutput, TheoryState

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "writer"
PROSE = {
    "title": "A gap-free regret bound for UCB1",
    "abstract": "We study a gap-free regret bound for UCB1 with explicit constants and state the setting first.",
    "introduction": "Lemma~\\ref{lem:L2} is the key step of the argument and bounds the pulls of each suboptimal arm.",
    "preliminaries": "Let $K$ be the number of arms.",
    "related_work": "",
    "limitations": "The horizon is assumed known.",
    "experiments": "",
}


def facts(tmp_path: Path, *, proved: bool = True) -> PaperFacts:
    state = TheoryState.model_validate_json((FIXTURES / "theory_proved.json").read_text())
    if not proved:
        state.status = "in_progress"
        del state.proven_lemmas["main"]
    plan = plan_citations(None)
    session = SessionDir(tmp_path)
    return PaperFacts(
        session=session,
        bus=KnowledgeBus("s", tmp_path),
        theory=state,
        paper=PaperOutput(tex_file="paper.tex"),
        plan=plan,
        experiment=None,
        version=PaperVersion(version=1),
        doc=build_doc(state, plan, None, PROSE),
    )


def test_citations_resolve_to_sections_lemmas_and_the_theorem(tmp_path: Path) -> None:
    f = facts(tmp_path)
    assert _resolve_cite(f, "section:introduction") == ("section", "introduction")
    assert _resolve_cite(f, "Limitations") == ("section", "limitations")
    assert _resolve_cite(f, "lemma:L2") == ("lemma", "L2")
    assert _resolve_cite(f, "lem:l2") == ("lemma", "L2")  # the writer's forgiving label map
    assert _resolve_cite(f, "lemma:main") == ("theorem", "")  # the root is the theorem
    assert _resolve_cite(f, "theorem") == ("theorem", "")
    assert _resolve_cite(f, "section:related_work") is None  # empty: not in the paper
    assert _resolve_cite(f, "lemma:L9") is None
    assert _resolve_cite(f, "Lemma L2") == ("lemma", "L2")
    assert _resolve_cite(f, "\\ref{lem:L3}") == ("lemma", "L3")
    assert _resolve_cite(f, "Section Introduction") == ("section", "introduction")


def test_an_answer_citing_nothing_is_marked_unsupported(tmp_path: Path) -> None:
    answer = check_answer(facts(tmp_path), "q", QAReply(answer="It is fine.", cites=[], answerable=False))
    assert any("cites no part of the paper" in n for n in answer.notes)
    assert any("do not answer this question" in n for n in answer.notes)
    assert answer.records == []


def test_an_uncited_lemma_mentioned_in_the_answer_still_gets_its_record(tmp_path: Path) -> None:
    answer = check_answer(
        facts(tmp_path), "q", QAReply(answer="Lemma L3 is the last step.", cites=["section:introduction"])
    )
    assert answer.records == ["Lemma L3: proved, level smt; checks: z3 passed"]


def test_the_diff_summary_names_each_changed_field() -> None:
    new = {
        **PROSE,
        "title": "Explicit constants for UCB1",
        "related_work": "Builds on the classic analysis.",
        "limitations": "",
    }
    new["introduction"] = PROSE["introduction"] + " The constant 8 comes from it."
    changes = diff_summary(PROSE, new)
    assert changes[0] == "title: 'A gap-free regret bound for UCB1' -> 'Explicit constants for UCB1'"
    assert changes[1] == "introduction: rewritten (+6/-0 words, 16 -> 22 words)"
    assert "related work: added (5 words)" in changes and "limitations: removed (5 words)" in changes
    assert diff_summary(PROSE, dict(PROSE)) == []


def test_revised_prose_passes_the_writers_checks_and_the_level_check(tmp_path: Path) -> None:
    f = facts(tmp_path, proved=False)
    reply = RevisionReply(
        title="Proof of a regret bound",  # claims a proof of an unproved statement
        abstract="Too short.",  # not prose: the earlier abstract is kept
        limitations="Lemma L2 was machine-checked. The horizon is finite.",
        experiments="Nothing to plot here.",  # no experiment in this session: stays empty
    )
    prose, notes = checked_prose(f, reply)
    assert prose["abstract"] == PROSE["abstract"] and prose["experiments"] == ""
    assert "Proof" not in prose["title"]
    # the model's sentence on how L2 was checked goes; the status sentence from the records stands
    assert prose["limitations"] == f"{status_sentence(f.theory)} The horizon is finite."
    assert "machine-checked" not in prose["limitations"]
    assert prose["introduction"] == PROSE["introduction"]
    assert any("abstract was not usable prose" in n for n in notes)
    assert any(
        n.startswith("removed claim(s) of machine verification: 1 sentence(s) of the limitations") for n in notes
    )


def test_version_numbers_skip_files_left_on_disk(tmp_path: Path) -> None:
    store = ReviewStore(tmp_path)
    assert store.next_version() == 2
    (tmp_path / "paper_v2.tex").write_text("left by an interrupted run")
    assert store.next_version() == 3
    store.add_version(PaperVersion(version=3, tex_file="paper_v3.tex"))
    assert store.next_version() == 4 and [v.version for v in store.revisions()] == [3]
    (store.dir / "versions.json").write_text("{not json")
    assert store.revisions() == []  # moved aside, never trusted
    assert list(store.dir.glob("versions.json.corrupt-*"))


def test_the_review_budget_is_added_to_what_the_session_spent(tmp_path: Path) -> None:
    session = SessionDir(tmp_path)
    spent = UsageLedger(session.file(SessionDir.USAGE))
    request = LLMRequest(role="prover", messages=[Message(role="user", content="x")], max_tokens=100)
    spent.record(request, Usage(input_tokens=5000, output_tokens=1000), "claude-sonnet-4-6", "anthropic")
    backend = ScriptedBackend(default={"answer": "x"})
    ledger = review_ledger(load_settings(), session, backend, None, 300)
    assert ledger.budget_tokens == 6300 and ledger.budget_usd is None
    big = LLMRequest(role="review", messages=[Message(role="user", content="y" * 4000)], max_tokens=2000)
    with pytest.raises(BudgetExceededError):
        ledger.reserve(big, "scripted-main", "scripted")
    ledger = review_ledger(load_settings(), session, backend, 0.5, None)
    assert ledger.budget_usd == pytest.approx(spent.cost + 0.5) and ledger.budget_tokens is None


def test_a_review_keeps_the_runs_own_caps_in_usage_json(tmp_path: Path) -> None:
    """`resume` reads the run's token cap from usage.json: a review without a cap must not lift it."""
    session = SessionDir(tmp_path)
    run = UsageLedger(session.file(SessionDir.USAGE), budget_usd=2.0, budget_tokens=100_000)
    request = LLMRequest(role="prover", messages=[Message(role="user", content="x")], max_tokens=100)
    run.record(request, Usage(input_tokens=500, output_tokens=100), "scripted-main", "scripted")
    ledger = review_ledger(load_settings(), session, ScriptedBackend(default={}), None, None)
    assert ledger.budget_tokens is None and ledger.budget_usd is None  # the review itself is uncapped
    review = LLMRequest(role="review", stage="review", messages=[Message(role="user", content="q")], max_tokens=100)
    ledger.record(review, Usage(input_tokens=50, output_tokens=10), "scripted-main", "scripted")
    stored = read_json(session.file(SessionDir.USAGE))
    assert (stored["budget_usd"], stored["budget_tokens"]) == (2.0, 100_000)
    assert stored["calls"] == 2 and stored["by_stage"]["review"]["calls"] == 1
    assert UsageLedger(session.file(SessionDir.USAGE)).budget_tokens == 100_000
