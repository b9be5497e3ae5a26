"""Hostile inputs to the CLI (issue #14): each one ends in one readable line with exit 2 (3 for
configuration), never an internal error, and nothing is created."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eurekaclaw.cli import app
from eurekaclaw.errors import BadInputError, ConfigError, MissingConfigError
from eurekaclaw.orchestrator import inputs

runner = CliRunner()


def one_error_line(result, code: int) -> str:
    assert result.exit_code == code, result.output
    lines = [ln for ln in result.output.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error:") and "internal error" not in lines[0]
    return lines[0]


def nothing_created(home: Path) -> bool:
    return not (home / "runs").exists() or not any((home / "runs").iterdir())


def test_invalid_utf8_statement_is_refused_before_the_session_folder(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "EUREKACLAW_DIR": str(tmp_path / "home"),
        "COLUMNS": "200",
        "NO_COLOR": "1",
        "LLM_BACKEND": "schema",
    }
    # argv bytes that are not UTF-8, exactly as a shell passes them
    proc = subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "prove", b"\xff\xfe x >= 0"],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, stderr
    assert "not valid UTF-8" in stderr and "internal error" not in stderr and "Traceback" not in stderr
    assert nothing_created(tmp_path / "home")
    assert not (tmp_path / "results").exists()


def test_surrogates_in_every_text_input_are_refused() -> None:
    bad = "x >= 0 \udcff"
    for call in (
        lambda: inputs.clean_statement(bad),
        lambda: inputs.check_conjecture(bad),
        lambda: inputs.check_paper_ids(["1204.5721\udcff"]),
        lambda: inputs.check_output_dir("/tmp/out\udcff"),
    ):
        with pytest.raises(BadInputError, match="UTF-8"):
            call()


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux /proc")
def test_output_under_proc_is_refused_even_as_root(tmp_path: Path) -> None:
    # as root os.access() says /proc is writable; a real probe says it is not
    with pytest.raises(BadInputError, match="cannot be written"):
        inputs.check_output_dir("/proc/x")
    result = runner.invoke(app, ["prove", "x >= 0", "--output", "/proc/x", "--llm", "schema"])
    assert "/proc" in one_error_line(result, 2)
    assert nothing_created(Path(os.environ["EUREKACLAW_DIR"]))


def test_output_probe_leaves_no_trace_and_returns_an_absolute_path(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = inputs.check_output_dir(None)
    assert Path(out).is_absolute() and out.endswith(os.path.join("results", "{session_id}"))
    assert list(tmp_path.iterdir()) == []
    assert inputs.check_output_dir("rel/{session_id}") == str(tmp_path / "rel" / "{session_id}")


def test_eurekaclaw_dir_that_is_a_file_is_a_configuration_error(tmp_path: Path, monkeypatch) -> None:
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0::/root:/bin/sh\n")
    monkeypatch.setenv("EUREKACLAW_DIR", str(passwd))
    for args in (["prove", "x >= 0", "--llm", "schema"], ["sessions"], ["skills"]):
        result = runner.invoke(app, args)
        assert "EUREKACLAW_DIR" in one_error_line(result, 3)
    monkeypatch.setenv("EUREKACLAW_DIR", str(passwd / "below"))
    assert "not a directory" in one_error_line(runner.invoke(app, ["sessions"]), 3)
    assert passwd.read_text().startswith("root:")
    with pytest.raises(MissingConfigError):
        inputs.check_home_dir(passwd)


@pytest.mark.parametrize("value", ["1e309", "inf", "-inf", "nan"])
def test_budget_must_be_finite(value: str) -> None:
    result = runner.invoke(app, ["prove", "x >= 0", "--budget-usd", value, "--llm", "schema"])
    assert "budget" in one_error_line(result, 2).lower()
    assert nothing_created(Path(os.environ["EUREKACLAW_DIR"]))
    assert inputs.check_budget(2.5) == 2.5 and inputs.check_budget(None) is None


def test_a_non_finite_budget_setting_is_refused(monkeypatch) -> None:
    monkeypatch.setenv("EUREKACLAW_BUDGET_USD", "inf")
    result = runner.invoke(app, ["prove", "x >= 0", "--llm", "schema"])
    assert "EUREKACLAW_BUDGET_USD" in one_error_line(result, 2)
    from eurekaclaw.config import load_settings

    with pytest.raises(ConfigError):
        inputs.check_settings(load_settings())


def test_resume_refuses_an_infinite_budget() -> None:
    result = runner.invoke(app, ["resume", "abcdef123456", "--budget-usd", "1e309"])
    assert "finite" in one_error_line(result, 2)


def test_from_papers_has_a_documented_cap() -> None:
    ids = [f"1204.{i:04d}" for i in range(1, 501)]
    result = runner.invoke(app, ["from-papers", *ids, "--llm", "schema"])
    line = one_error_line(result, 2)
    assert "500" in line and str(inputs.MAX_PAPER_IDS) in line
    assert nothing_created(Path(os.environ["EUREKACLAW_DIR"]))
    docs = Path(__file__).resolve().parents[3] / "docs" / "cli.md"
    assert f"{inputs.MAX_PAPER_IDS} paper ids" in docs.read_text()
    assert inputs.check_paper_ids([f"1204.{i:04d}" for i in range(1, inputs.MAX_PAPER_IDS + 1)])


def test_a_rejected_command_is_logged_as_an_input_error() -> None:
    runner.invoke(app, ["prove", "x >= 0", "--budget-usd", "1e309", "--llm", "schema"])
    events = Path(os.environ["EUREKACLAW_DIR"]) / "events.jsonl"
    last = json.loads(events.read_text().splitlines()[-1])
    assert last["kind"] == "input_error" and "finite" in last["message"]


def test_a_broken_skill_file_does_not_break_the_skills_listing() -> None:
    home = Path(os.environ["EUREKACLAW_DIR"])
    deep = home / "skills" / "deep"
    deep.mkdir(parents=True)
    (deep / "SKILL.md").write_text("---\nname: deep\nx: " + "[" * 5000 + "]" * 5000 + "\n---\n\nBody.\n")
    result = runner.invoke(app, ["skills", "--json"])
    assert result.exit_code == 0, result.output
    assert "internal error" not in result.output
    assert "skipped" in result.output and "nested" in result.output


def test_a_fifo_given_to_install_skills_is_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "skills.tar.gz"
    os.mkfifo(fifo)
    result = runner.invoke(app, ["install-skills", str(fifo)])
    assert "regular file" in one_error_line(result, 2)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["prove"], "Missing argument"),
        (["prove", "x >= 0", "--bogus"], "No such option: --bogus"),
        (["no-such-command"], "No such command"),
        (["prove", "x >= 0", "--budget-usd", "abc"], "--budget-usd"),
        (["prove", "x >= 0", "--budget-usd", "-1"], "--budget-usd"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args: list[str], needle: str) -> None:
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "eurekaclaw", *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ") and needle in lines[0] and "--help" in lines[0]
    assert "╭" not in proc.stderr and "Traceback" not in proc.stderr


def test_help_still_works_and_bare_command_shows_help() -> None:
    for args in ([], ["--help"], ["prove", "--help"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "Usage" in result.output
    # the default in --output's help text survives rich markup
    assert "./results/<session_id>" in " ".join(
        runner.invoke(app, ["prove", "--help"], env={"COLUMNS": "300"}).output.split()
    )


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux /proc")
def test_eurekaclaw_dir_that_cannot_be_created_is_a_configuration_error(monkeypatch) -> None:
    monkeypatch.setenv("EUREKACLAW_DIR", "/proc/eurekaclaw-x")
    result = runner.invoke(app, ["prove", "x >= 0", "--llm", "schema"])
    assert "cannot be created" in one_error_line(result, 3)
    with pytest.raises(MissingConfigError):
        inputs.check_home_dir(Path("/proc/eurekaclaw-x"))


def test_a_creatable_eurekaclaw_dir_is_accepted_and_not_created_by_the_check(tmp_path: Path) -> None:
    inputs.check_home_dir(tmp_path / "new" / "home")
    assert list(tmp_path.iterdir()) == []


def test_paths_longer_than_the_file_system_allows_are_one_line(monkeypatch) -> None:
    long_path = "/tmp/" + "a" * 5000
    result = runner.invoke(app, ["prove", "x >= 0", "--output", long_path, "--llm", "schema"])
    assert "too long" in one_error_line(result, 2)
    monkeypatch.setenv("EUREKACLAW_DIR", long_path)
    assert "too long" in one_error_line(runner.invoke(app, ["sessions"]), 3)


@pytest.mark.parametrize("text", ["x >= 0 \x1b]0;pwned\x07", "x >= 0\x1b[2J", "x >= 0 \x9b31m", "x\x7f >= 0"])
def test_terminal_control_characters_are_refused(text: str) -> None:
    with pytest.raises(BadInputError, match="control character"):
        inputs.clean_statement(text)
    assert inputs.clean_statement("For all x,\n\tx >= 0") == "For all x,\n\tx >= 0"


@pytest.mark.parametrize("kind", ["fifo", "dir"])
@pytest.mark.parametrize("args", [["sessions"], ["doctor", "--json"], ["init", "--backend", "local", "--no-check"]])
def test_a_dot_env_that_is_not_a_file_is_one_line_not_a_hang(
    tmp_path: Path, monkeypatch, kind: str, args: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EUREKACLAW_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if kind == "fifo":
        os.mkfifo(tmp_path / ".env")  # python-dotenv would wait on it forever
    else:
        (tmp_path / ".env").mkdir()
    result = runner.invoke(app, args)
    assert "not a regular file" in one_error_line(result, 2)


def test_a_dot_env_inside_eurekaclaw_dir_that_is_a_directory(monkeypatch) -> None:
    (Path(os.environ["EUREKACLAW_DIR"]) / ".env").mkdir(parents=True)
    assert "not a regular file" in one_error_line(runner.invoke(app, ["sessions"]), 2)
