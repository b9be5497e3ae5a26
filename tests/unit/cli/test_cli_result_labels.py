"""The result's theorem line when the session has no readable theory state: the run's summary,
never upgraded (a proof only the proving model reviewed is not called proved). With a theory
state the lines come from theory_view (test_cli_theorem_view.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from rich.console import Console

from eurekaclaw import cli_result


def result(**extra):
    base = dict(
        session_id="abc123",
        status="completed",
        stages=[],
        status_reason="",
        theory_status="proved",
        weakest_level="reviewed",
        self_reviewed=0,
        theory_reason="",
        session_dir=None,
        cost_usd=0.0,
        llm_calls=3,
        output_dir=None,
    )
    return SimpleNamespace(**{**base, **extra})


@pytest.fixture
def printed(monkeypatch):
    console = Console(record=True, width=200)
    monkeypatch.setattr("eurekaclaw.console.out", lambda: console)

    def show(res) -> list[str]:
        cli_result.print_result(res)
        return console.export_text().splitlines()

    return show


def theorem_line(lines: list[str]) -> str:
    return next(line for line in lines if line.startswith("theorem:"))


def test_without_a_theory_file_a_self_reviewed_proof_is_not_called_proved(printed):
    line = theorem_line(printed(result(self_reviewed=2)))
    assert line == "theorem: self-reviewed (weakest verification level: reviewed)"


def test_an_independent_review_or_a_machine_check_is_not_called_a_self_review(printed):
    assert theorem_line(printed(result())) == "theorem: proved (weakest verification level: reviewed)"
    # self-reviewed lemmas that a machine then checked (weakest smt) are not the weakest link
    assert "self-review" not in theorem_line(printed(result(weakest_level="smt", self_reviewed=1)))
