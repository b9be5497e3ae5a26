"""What a newcomer meets in the first hour (issue #16): vague statements, pause and Ctrl+C
messages, doctor's effective values, the skills table at 80 columns."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from eurekaclaw.cli import app
from eurekaclaw.errors import BadInputError, RunInterrupted
from eurekaclaw.orchestrator.inputs import check_conjecture

runner = CliRunner()


@pytest.mark.parametrize("text", ["x", "bandits", "prove it", "UCB1 regret", "Riemann hypothesis", "  ?? "])
def test_too_short_or_vague_statements_are_refused(text: str) -> None:
    with pytest.raises(BadInputError, match="too short or vague"):
        check_conjecture(text)


@pytest.mark.parametrize(
    "text",
    [
        "x >= 0",
        "x^2 \\ge 0",
        "a ≤ b",
        "1+1=2",
        "UCB1 has logarithmic regret",
        "For all real x, x^2 - 2x + 1 >= 0",
        "every bounded monotone sequence converges",
        "任意有界单调数列都收敛于某个实数极限值且该极限唯一",
    ],
)
def test_claims_pass(text: str) -> None:
    assert check_conjecture(text) == text


def test_a_vague_statement_makes_no_model_call_and_no_session() -> None:
    result = runner.invoke(app, ["prove", "x", "--llm", "schema"])
    assert result.exit_code == 2
    assert "too short or vague" in result.output and "eurekaclaw prove" in result.output
    home = Path(os.environ["EUREKACLAW_DIR"])
    assert not (home / "runs").exists() or not any((home / "runs").iterdir())


def test_explore_accepts_a_short_area(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}

    def fake_launch(fields, run):
        seen.update(fields)

    monkeypatch.setattr("eurekaclaw.cli._launch", fake_launch)
    assert runner.invoke(app, ["explore", "bandits"]).exit_code == 0
    assert seen["statement"] == "bandits"


def _fake_run(exc: BaseException):
    async def run(self, spec):
        self.ui.session_id = "abc123def456"
        raise exc

    return run


def test_ctrl_c_names_the_session_to_resume(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("eurekaclaw.orchestrator.meta.MetaOrchestrator.run", _fake_run(KeyboardInterrupt()))
    result = runner.invoke(app, ["prove", "x >= 0", "--llm", "schema"])
    assert result.exit_code == 130
    assert "eurekaclaw resume abc123def456" in result.output and "<id>" not in result.output


def test_a_requested_pause_is_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    exc = RunInterrupted("session abc123def456 paused", hint="resume with `eurekaclaw resume abc123def456`")
    monkeypatch.setattr("eurekaclaw.orchestrator.meta.MetaOrchestrator.run", _fake_run(exc))
    result = runner.invoke(app, ["prove", "x >= 0", "--llm", "schema"])
    assert result.exit_code == 130
    assert result.output.startswith("paused: ") and "error" not in result.output


def test_the_output_directory_is_stored_absolute(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = {}

    async def run(self, spec):
        seen["output"] = spec.output_dir
        raise KeyboardInterrupt

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("eurekaclaw.orchestrator.meta.MetaOrchestrator.run", run)
    runner.invoke(app, ["prove", "x >= 0", "--llm", "schema", "--output", "out/{session_id}"])
    assert seen["output"] == str(tmp_path / "out" / "{session_id}")


class ProfiledBackend:
    name = "local"

    def model_for(self, tier):
        return "local:tiny"

    def demonstration_profile(self):
        return {"theory_max_iterations": 1, "theory_concurrency": 1, "stage_max_retries": 0}


def test_doctor_shows_the_values_a_local_run_really_uses(monkeypatch: pytest.MonkeyPatch) -> None:
    from eurekaclaw.orchestrator import doctor

    monkeypatch.setattr(doctor, "_backend_summary", lambda settings: {"backend": "local", "model": "tiny"})
    monkeypatch.setattr("eurekaclaw.llm.select.build_backend", lambda settings, name, arg, *a: ProfiledBackend())
    monkeypatch.setenv("THEORY_CONCURRENCY", "3")  # set by the user: kept
    report = doctor.doctor_report()
    assert report["settings"]["theory_max_iterations"] == 1
    assert report["settings"]["theory_concurrency"] == 3
    assert report["settings_profile"] == {"theory_max_iterations": 1, "stage_max_retries": 0}
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(doctor.render_doctor(report))
    assert "THEORY_MAX_ITERATIONS=1" in buf.getvalue()


def test_doctor_without_a_profile_shows_the_configured_values(monkeypatch: pytest.MonkeyPatch) -> None:
    from eurekaclaw.orchestrator import doctor

    monkeypatch.setattr(doctor, "_backend_summary", lambda settings: {"backend": "anthropic"})
    monkeypatch.setenv("LLM_STREAM", "false")
    report = doctor.doctor_report()
    assert report["settings"]["theory_max_iterations"] == 10 and report["settings_profile"] == {}
    assert report["settings"]["llm_stream"] == "false"
    assert any(t["name"] == "numba" and "Thompson" in t["purpose"] for t in report["tools"])


def test_skill_names_are_not_split_at_80_columns() -> None:
    from eurekaclaw.config import load_settings
    from eurekaclaw.orchestrator.skills_view import skills_table

    home = Path(os.environ["EUREKACLAW_DIR"])
    name = "variance-aware-confidence-bounds-for-heavy-tails"
    folder = home / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {'a long description ' * 8}\n---\n\nBody.\n")
    table, rows, _ = skills_table(load_settings())
    buf = io.StringIO()
    Console(file=buf, width=80, color_system=None).print(table)
    assert name in buf.getvalue()


def test_doctor_names_an_unusable_eurekaclaw_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from eurekaclaw.orchestrator import doctor

    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("EUREKACLAW_DIR", str(blocker))
    monkeypatch.setattr(doctor, "_backend_summary", lambda settings: {"backend": "anthropic"})
    report = doctor.doctor_report()
    assert "is a file" in report["eurekaclaw_dir_problem"]
    monkeypatch.setenv("EUREKACLAW_DIR", str(tmp_path / "fine"))
    assert doctor.doctor_report()["eurekaclaw_dir_problem"] is None


@pytest.mark.parametrize("area", ["x", "??", "a b"])
def test_an_area_too_short_to_explore_is_refused(area: str) -> None:
    result = runner.invoke(app, ["explore", area, "--llm", "schema"])
    assert result.exit_code == 2 and "too short to be a research area" in result.output


def test_a_partial_result_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    from eurekaclaw import console
    from eurekaclaw.cli_result import print_result as _print_result
    from eurekaclaw.types.tasks import ResearchOutput

    buf = io.StringIO()
    monkeypatch.setattr(console, "out", lambda: Console(file=buf, width=200, color_system=None))
    _print_result(ResearchOutput(session_id="abc123", status="partial", status_reason="theorem abandoned"))
    assert "partial: theorem abandoned" in buf.getvalue()
