"""The terminal result, `sessions` and --json show the theorem as theory_view computes it: the
checked claim as the theorem, the model's prose "in words", the status word per kind of
evidence, the narrowing sentence, and one line on how to get `proved`."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import typer
from rich.console import Console
from surface_kit import SCOPE_SENTENCE, write_session
from typer.testing import CliRunner

from eurekaclaw import cli_result
from eurekaclaw.cli import app
from eurekaclaw.store.session import SessionDir

runner = CliRunner()


def result_of(session: SessionDir, theory_status: str) -> SimpleNamespace:
    return SimpleNamespace(
        session_id=session.session_id,
        status="partial",
        stages=[],
        status_reason="",
        theory_status=theory_status,
        weakest_level="reviewed",
        self_reviewed=1,
        theory_reason="the theory ended " + theory_status,
        session_dir=str(session.path),
        cost_usd=0.0,
        llm_calls=3,
        output_dir=None,
        model_dump=lambda mode="json": {"session_id": session.session_id, "theory_status": theory_status},
    )


@pytest.fixture
def printed(monkeypatch: pytest.MonkeyPatch):
    console = Console(record=True, width=200)
    monkeypatch.setattr("eurekaclaw.console.out", lambda: console)

    def show(res: SimpleNamespace) -> list[str]:
        cli_result.print_result(res)
        return console.export_text().splitlines()

    return show


def theorem_line(lines: list[str]) -> str:
    return next(line for line in lines if line.startswith("theorem:"))


@pytest.mark.parametrize("kind", ["self_reviewed", "old_self_review"])
def test_self_reviewed_is_not_proved_and_says_how_to_get_proved(isolated_home: Path, printed, kind: str) -> None:
    session = write_session(isolated_home, "a00000000001", kind)
    lines = printed(result_of(session, "proved" if kind == "old_self_review" else kind))
    assert theorem_line(lines).startswith("theorem: self-reviewed (weakest: reviewed (self-review")
    hint = [ln for ln in lines if "--review-llm" in ln]
    assert len(hint) == 1 and "to get `proved`" in hint[0] and "claims" in hint[0]
    assert not any(ln.startswith("theorem: proved") for ln in lines)


def test_the_theorem_shown_is_the_checked_claim_with_the_prose_in_words(isolated_home: Path, printed) -> None:
    session = write_session(isolated_home, "a00000000002", "proved")
    lines = printed(result_of(session, "proved"))
    assert theorem_line(lines) == "theorem: proved (weakest: smt (z3 4.13.0))"
    claim = next(ln for ln in lines if ln.startswith("claim checked: "))
    assert "1" in claim and "x" in claim  # the assumption x >= 1 is part of what is shown
    assert "≥ 1" in claim or ">= 1" in claim
    assert any(ln.startswith("in words: For every real number") for ln in lines)


def test_narrower_claim_says_the_statement_was_not_proved(isolated_home: Path, printed) -> None:
    session = write_session(isolated_home, "a00000000003", "narrower")
    lines = printed(result_of(session, "proved"))
    assert theorem_line(lines).startswith("theorem: narrower claim proved")
    assert SCOPE_SENTENCE in lines
    assert "the statement itself was not proved" in lines


@pytest.mark.parametrize(
    ("kind", "word"), [("contradicted", "contradicted"), ("refuted", "refuted"), ("capped", "capped")]
)
def test_failed_theorems_are_named_so(isolated_home: Path, printed, kind: str, word: str) -> None:
    session = write_session(isolated_home, f"a0000000001{len(word) % 10}", kind)
    line = theorem_line(printed(result_of(session, kind)))
    assert line.startswith(f"theorem: {word}") and "proved" not in line.replace("not proved", "")


def test_json_carries_the_displayed_status(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = write_session(isolated_home, "a00000000004", "old_self_review")
    captured: list[str] = []
    monkeypatch.setattr("eurekaclaw.console.out", lambda: SimpleNamespace(print_json=captured.append))
    with pytest.raises(typer.Exit):
        cli_result.finish_run(result_of(session, "proved"), as_json=True)
    data = json.loads(captured[0])
    assert data["theory_status"] == "self_reviewed"
    assert data["theorem"]["word"] == "self-reviewed" and data["theorem"]["colour"] == "amber"
    assert data["theorem"]["from_claim"] is True and "x" in data["theorem"]["statement_plain"]


def test_sessions_lists_each_kind_by_its_own_word(isolated_home: Path) -> None:
    kinds = {
        "b00000000001": "proved",
        "b00000000002": "self_reviewed",
        "b00000000003": "contradicted",
        "b00000000004": "narrower",
        "b00000000005": "old_self_review",
    }
    for sid, kind in kinds.items():
        write_session(isolated_home, sid, kind)
    res = runner.invoke(app, ["sessions", "--json"])
    assert res.exit_code == 0, res.output
    listed = {row["session_id"]: row for row in json.loads(res.output)}
    assert listed["b00000000001"]["theory_status"] == "proved"
    assert listed["b00000000002"]["theory_status"] == "self_reviewed"
    assert listed["b00000000003"]["theory_status"] == "contradicted"
    assert listed["b00000000004"]["theory_status"] == "narrower_claim"
    assert listed["b00000000004"]["theorem"]["scope_sentence"] == SCOPE_SENTENCE
    assert listed["b00000000005"]["theory_status"] == "self_reviewed"
    table = runner.invoke(app, ["sessions"], env={"COLUMNS": "250"})
    assert table.exit_code == 0, table.output
    text = table.output
    assert "self-reviewed" in text and "narrower claim proved" in text and "contradicted" in text
    assert SCOPE_SENTENCE in " ".join(text.split()) or "proved for x ≥ 1" in text
