"""Questions about a finished scripted session: answers cite the paper and the records, a
careless model's overclaim is caught and corrected, history and cost go into the session."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from reviewkit import (
    careless_reply,
    copy_session,
    finished_session,
    read_history,
    scripted,
    verbose_reply,
)

from eurekaclaw.config import load_settings
from eurekaclaw.errors import BadInputError, BudgetExceededError
from eurekaclaw.review.runner import ReviewRunner
from eurekaclaw.store.files import read_json, read_jsonl
from eurekaclaw.store.session import SessionDir, Workspace


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> SessionDir:
    return finished_session(tmp_path_factory.mktemp("finished"))


@pytest.fixture
def session(finished: SessionDir, isolated_home: Path) -> SessionDir:
    return copy_session(finished, isolated_home)


def runner(session: SessionDir, backend, **kwargs) -> ReviewRunner:
    return ReviewRunner(load_settings(), session, backend=backend, **kwargs)


def test_a_verbose_answer_cites_sections_and_lemma_records(session: SessionDir) -> None:
    backend = scripted(qa=verbose_reply)
    answer = asyncio.run(runner(session, backend).ask("Which lemma carries the main difficulty?"))
    assert answer.corrections == []
    assert answer.lemmas == ["L1", "L2", "L3"] and answer.sections == ["limitations"] and answer.theorem
    assert "Lemma L2: proved, level reviewed; checks: falsifier passed; llm_review passed" in answer.records
    assert "Lemma L3: proved, level smt; checks: z3 passed" in answer.records
    assert answer.records[0] == "Main theorem: proved; weakest level of its lemmas: cited"
    assert answer.shown == answer.raw  # nothing to correct
    # the model saw the records, not just the prose
    prompt = backend.calls[0].prompt_text()
    assert "Record: Lemma L2: proved, level reviewed" in prompt and '<section name="introduction">' in prompt


def test_a_careless_formal_claim_is_removed_and_corrected(session: SessionDir) -> None:
    answer = asyncio.run(runner(session, scripted(qa=careless_reply)).ask("Is the key lemma machine-checked?"))
    assert "formally" not in answer.shown and "Coq" not in answer.shown
    # generate, don't filter: even the true "Lemma L3 was proved by Z3." is the records' to say
    assert answer.shown == "The key step is Lemma L2, which bounds the pulls of a suboptimal arm."
    assert [c.split(" (a sentence")[0] for c in answer.corrections] == [
        "Lemma L2 is recorded at level reviewed",
        # "so the whole argument is machine-checked": every lemma is named
        "Lemma L1 is recorded at level cited; Lemma L2 is recorded at level reviewed; Lemma L3 is recorded at level smt",
        "Lemma L3 is recorded at level smt",
    ]
    assert any("appendix_b" in n and "not part of this paper" in n for n in answer.notes)
    text = answer.text()
    assert "Corrected from the session's records" in text and "level reviewed" in text
    # what the model said is kept, marked, next to what was shown
    entry = read_history(session)[-1]
    assert entry["kind"] == "question" and "formally verified in Coq" in entry["model_answer"]
    assert entry["corrections"] == answer.corrections and entry["model"] == "scripted:reviewer-main"
    assert any(e["kind"] == "review_correction" for e in read_jsonl(session.file(SessionDir.EVENTS)))


def test_a_self_reviewed_lemma_is_not_independently_reviewed(tmp_path: Path, isolated_home: Path) -> None:
    session = copy_session(finished_session(tmp_path / "h", self_review=True), isolated_home)

    def reply(request):
        return {"answer": "Lemma L2 was independently reviewed in a fresh context.", "cites": ["lemma:L2"]}

    answer = asyncio.run(runner(session, scripted(qa=reply)).ask("Who reviewed L2?"))
    assert answer.shown == ""
    assert "self-review" in answer.corrections[0] and "independently" not in answer.corrections[0]
    assert answer.records == [
        "Lemma L2: proved, level reviewed (self-review); checks: falsifier passed; llm_review passed"
    ]


def test_history_is_saved_and_fed_back_and_calls_are_on_the_session_ledger(session: SessionDir) -> None:
    before = read_json(session.file(SessionDir.USAGE))
    backend = scripted(qa=verbose_reply)
    run = runner(session, backend)
    asyncio.run(run.ask("First question?"))
    asyncio.run(run.ask("And a follow-up?"))
    history = read_history(session)
    assert [h["question"] for h in history] == ["First question?", "And a follow-up?"]
    assert "Q: First question?" in backend.calls[1].prompt_text()
    usage = read_json(session.file(SessionDir.USAGE))
    assert usage["calls"] == before["calls"] + 2
    assert usage["by_stage"]["review"]["calls"] == 2 and usage["by_role"]["review"]["calls"] == 2
    log = read_jsonl(session.file(SessionDir.LLM_LOG))
    assert [e["request"]["stage"] for e in log[-2:]] == ["review", "review"]
    assert run.cost_view()["review_calls"] == 2


def test_a_token_budget_stops_the_review_before_the_call(session: SessionDir) -> None:
    backend = scripted(qa=verbose_reply)
    with pytest.raises(BudgetExceededError):
        asyncio.run(runner(session, backend, budget_tokens=50).ask("Too expensive?"))
    assert backend.calls == [] and read_history(session) == []


def test_an_unpriced_dollar_budget_fails_closed(session: SessionDir, monkeypatch: pytest.MonkeyPatch) -> None:
    from eurekaclaw.errors import MissingConfigError

    backend = scripted(qa=verbose_reply)
    backend.name = "openai_compat"  # a model without a known price
    with pytest.raises(MissingConfigError):
        asyncio.run(runner(session, backend, budget_usd=1.0).ask("Cost?"))
    assert backend.calls == []


def test_a_session_without_a_paper_is_refused(isolated_home: Path) -> None:
    session = Workspace(isolated_home).new_session()
    with pytest.raises(BadInputError, match="no readable theory state"):
        runner(session, scripted(qa=verbose_reply))


def test_an_unproved_theorem_is_not_called_proved(tmp_path: Path, isolated_home: Path) -> None:
    session = copy_session(finished_session(tmp_path / "h", proved=False), isolated_home)

    def reply(request):
        return {"answer": "We proved the main theorem. Lemma L3 was proved by Z3.", "cites": ["theorem", "lemma:L3"]}

    answer = asyncio.run(runner(session, scripted(qa=reply)).ask("Is it proved?"))
    assert answer.shown == ""  # both sentences state a proof status: the records say it
    assert answer.records[0].startswith("Main statement: not proved, status in")
    assert json.dumps(answer.as_json())  # serialisable for --json


def test_the_experiments_are_part_of_what_the_model_sees_and_may_cite(tmp_path: Path, isolated_home: Path) -> None:
    session = copy_session(finished_session(tmp_path / "h", with_experiment=True), isolated_home)

    def reply(request):
        return {
            "answer": "The log-T bound check was violated at the largest horizon.",
            "cites": ["section:experiments"],
        }

    backend = scripted(qa=reply)
    answer = asyncio.run(runner(session, backend).ask("Did any bound fail?"))
    assert answer.sections == ["experiments"] and answer.notes == []
    prompt = backend.calls[0].prompt_text()
    assert "bound check ucb1_log_T at horizon 10000" in prompt and "VIOLATED" in prompt


def test_a_running_session_is_not_reviewed(session: SessionDir) -> None:
    session.mark_running()  # this test process: alive
    with pytest.raises(BadInputError, match="still running"):
        runner(session, scripted(qa=verbose_reply))
    session.mark_stopped()


def test_the_review_agent_answers_through_the_runner(session: SessionDir) -> None:
    answer = asyncio.run(runner(session, scripted(qa=careless_reply)).ask("Is L2 checked?"))
    assert answer.shown and "formally" not in answer.shown
    assert answer.as_json()["corrections"]


def test_a_chatty_reply_around_the_json_is_read(session: SessionDir) -> None:
    def chatty(request):
        body = json.dumps(verbose_reply(request))
        return f"Certainly! Here is a careful answer.\n\n```json\n{body}\n```\n\nLet me know if you need more detail."

    answer = asyncio.run(runner(session, scripted(qa=chatty)).ask("Which lemma is weakest?"))
    assert answer.lemmas == ["L1", "L2", "L3"] and answer.corrections == []
