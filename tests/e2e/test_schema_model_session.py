"""Whole sessions driven by the schema-driven test model (`--llm schema:<seed>`): every reply
has the right shape and no mathematical content, including the awkward strings real models
send. Whatever path each seed takes through the stages, the run must end cleanly and must
never call a false statement proved."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_scripted_session import cli_env

pytestmark = pytest.mark.e2e

FALSE_STATEMENT = "For all real x, x^2 - 3x + 2 >= 0"  # fails at x = 3/2
TRUE_STATEMENT = "For all real x, x^2 - 2x + 1 >= 0"
STAGES = ["survey", "formalize", "theory", "experiment", "write", "evaluate", "learn"]
MECHANICAL = {"formal", "smt"}


def _run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "eurekaclaw", *args, "--json"],
        capture_output=True,
        text=True,
        env=cli_env(tmp_path / "home"),
        cwd=tmp_path,
        timeout=600,
    )
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr[-2000:]
    return proc, json.loads(proc.stdout)


def _check_shape(proc: subprocess.CompletedProcess, result: dict) -> None:
    assert proc.returncode in (0, 1), proc.stderr[-1000:]
    assert [s["name"] for s in result["stages"]] == STAGES
    assert all(s["status"] in {"completed", "failed", "skipped", "partial"} for s in result["stages"])
    # exit 0 only for a session that really completed
    assert (proc.returncode == 0) == (result["status"] == "completed")


def test_a_false_statement_is_never_proved_whatever_the_replies(tmp_path: Path) -> None:
    reached_theory = 0
    for seed in range(1, 9):
        proc, result = _run(
            tmp_path, "prove", FALSE_STATEMENT, "--llm", f"schema:{seed}", "-o", str(tmp_path / f"out{seed}")
        )
        _check_shape(proc, result)
        assert result["theory_status"] != "proved", (seed, result.get("status_reason"))
        assert result["status"] != "completed" or result["theory_status"] in {"refuted", "contradicted"}
        reached_theory += next(s for s in result["stages"] if s["name"] == "theory")["status"] != "skipped"
    # the model is only useful if some seeds get past Formalize into the proving loop
    assert reached_theory >= 1


def test_a_true_statement_is_proved_only_by_a_machine(tmp_path: Path) -> None:
    for seed in range(1, 5):
        proc, result = _run(
            tmp_path, "prove", TRUE_STATEMENT, "--llm", f"schema:{seed}", "-o", str(tmp_path / f"out{seed}")
        )
        _check_shape(proc, result)
        if result["theory_status"] == "proved":
            # the test model's reviews are not evidence: only Z3 or Coq can have carried it
            assert result["weakest_level"] in MECHANICAL, result


def test_explore_with_shapeless_content_fails_in_the_survey_cleanly(tmp_path: Path) -> None:
    proc, result = _run(
        tmp_path,
        "explore",
        "regret bounds for stochastic multi-armed bandits",
        "--llm",
        "schema:1",
        "-o",
        str(tmp_path / "out"),
    )
    _check_shape(proc, result)
    assert result["theory_status"] != "proved"
