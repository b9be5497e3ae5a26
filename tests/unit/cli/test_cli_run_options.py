"""The research options are declared once (cli_common.run_options) and reach every research
command the same way: as options in its help and as one RunOptions value."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from eurekaclaw.cli import app
from eurekaclaw.cli_common import RunOptions

runner = CliRunner()
SHARED = ["--domain", "--output", "--gate", "--budget-usd", "--budget-tokens", "--llm", "--review-llm", "--json"]


@pytest.mark.parametrize(
    ("command", "argument"), [("prove", "For all real x, x^2 >= 0"), ("explore", "bandits with heavy tails")]
)
def test_every_research_command_passes_the_shared_options(
    command: str, argument: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[dict, RunOptions]] = []
    monkeypatch.setattr("eurekaclaw.cli._launch", lambda fields, run: seen.append((fields, run)))
    result = runner.invoke(
        app,
        [
            command,
            argument,
            "--domain",
            "mab",
            "--gate",
            "none",
            "--budget-usd",
            "2.5",
            "--budget-tokens",
            "1000",
            "--llm",
            "schema",
            "--review-llm",
            "schema",
            "-o",
            "out/x",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    fields, run = seen[0]
    assert fields["statement"] == argument and "domain" not in fields
    assert run == RunOptions(
        domain="mab",
        output="out/x",
        gate="none",
        budget_usd=2.5,
        budget_tokens=1000,
        llm="schema",
        review_llm="schema",
        json_out=True,
    )


def test_defaults_and_the_command_own_options_stay(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[dict, RunOptions]] = []
    monkeypatch.setattr("eurekaclaw.cli._launch", lambda fields, run: seen.append((fields, run)))
    assert runner.invoke(app, ["explore", "bandits", "--max-pivots", "0"]).exit_code == 0
    assert seen[0][0]["max_pivots"] == 0 and seen[0][1] == RunOptions()
    bad = runner.invoke(app, ["prove", "For all real x, x^2 >= 0", "--budget-usd", "-1"])
    assert bad.exit_code == 2 and "--budget-usd" in bad.output


@pytest.mark.parametrize("command", ["prove", "from-papers", "explore"])
def test_help_lists_the_shared_options_after_the_argument(command: str) -> None:
    text = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"}).output
    positions = [text.index(option) for option in SHARED]
    assert positions == sorted(positions) and "--verbose" in text
