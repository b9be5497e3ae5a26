"""The CLI as a user meets it: a real subprocess, one readable line and an exit code for every
input error, and nothing written but the error event."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def run_cli(
    *args: str, home: Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    full_env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_BACKEND"))
    }
    full_env.update({"EUREKACLAW_DIR": str(home), "COLUMNS": "200", "NO_COLOR": "1"})
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "eurekaclaw", *args], capture_output=True, text=True, env=full_env, cwd=cwd, timeout=120
    )


def assert_one_line_error(proc: subprocess.CompletedProcess, code: int, *needles: str) -> None:
    assert proc.returncode == code, proc.stderr
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error:")
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in lines[0]


def no_sessions(home: Path) -> bool:
    return not (home / "runs").exists() or not any((home / "runs").iterdir())


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("prove", ""), "empty"),
        (("prove", "   \t "), "empty"),
        (("prove", "x" * 20_001), "20,000"),
        (("explore", " "), "empty"),
        (("resume", "abc"), "at least 6"),
        (("resume", "ffffffffff"), "no session matches"),
        (("eval-session", "123456789"), "no session matches"),
        (("pause", "abcdef"), "no session matches"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_no_session(tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    proc = run_cli(*args, home=tmp_path, cwd=tmp_path)
    assert_one_line_error(proc, 2, needle)
    assert no_sessions(tmp_path)
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert events[-1]["kind"] == "input_error"


def test_nul_bytes_are_rejected_by_the_validator() -> None:
    from eurekaclaw.errors import BadInputError
    from eurekaclaw.orchestrator.inputs import clean_statement

    with pytest.raises(BadInputError, match="NUL"):
        clean_statement("a\x00b")
    assert clean_statement("  x >= 0 \n") == "x >= 0"
    # argv cannot carry NUL bytes, so this is the path for statements read from files or APIs


def test_ambiguous_session_prefix(tmp_path: Path) -> None:
    for sid in ("abcdef111111", "abcdef222222"):
        (tmp_path / "runs" / sid).mkdir(parents=True)
        (tmp_path / "runs" / sid / "session.json").write_text(json.dumps({"session_id": sid, "mode": "prove"}))
    proc = run_cli("resume", "abcdef", home=tmp_path, cwd=tmp_path)
    assert_one_line_error(proc, 2, "ambiguous")


def test_unwritable_output_directory(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    proc = run_cli("prove", "x >= 0", "--output", str(blocker / "out"), home=tmp_path, cwd=tmp_path)
    assert_one_line_error(proc, 2, "cannot be written", "not a directory")
    assert no_sessions(tmp_path)


def test_invalid_setting_names_variable_and_values(tmp_path: Path) -> None:
    proc = run_cli("prove", "x >= 0", home=tmp_path, cwd=tmp_path, env={"GATE_MODE": "sometimes"})
    assert_one_line_error(proc, 2, "GATE_MODE", "none|auto|human")


def test_no_llm_configured_exits_3_with_the_ways_to_configure(tmp_path: Path) -> None:
    # hide llama_cpp even if it is installed, so "no backend at all" is what we test
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(
        "import importlib.util, sys\n"
        "_orig = importlib.util.find_spec\n"
        "def _find(name, *a, **k):\n"
        "    return None if name == 'llama_cpp' else _orig(name, *a, **k)\n"
        "importlib.util.find_spec = _find\n"
    )
    proc = run_cli("prove", "x >= 0", home=tmp_path, cwd=tmp_path, env={"PYTHONPATH": str(shim)})
    assert_one_line_error(proc, 3, "ANTHROPIC_API_KEY", "OPENAI_COMPAT_BASE_URL", "local", "eurekaclaw init")
    assert no_sessions(tmp_path)


def test_unknown_llm_override_and_domain(tmp_path: Path) -> None:
    proc = run_cli("prove", "x >= 0", "--llm", "gpt9", home=tmp_path, cwd=tmp_path)
    assert_one_line_error(proc, 2, "gpt9")


def test_sessions_json_parses_when_empty(tmp_path: Path) -> None:
    proc = run_cli("sessions", "--json", home=tmp_path, cwd=tmp_path)
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == []


def test_help_lists_every_command(tmp_path: Path) -> None:
    proc = run_cli("--help", home=tmp_path, cwd=tmp_path)
    assert proc.returncode == 0
    for command in (
        "prove",
        "from-papers",
        "explore",
        "eval-session",
        "install-skills",
        "sessions",
        "pause",
        "resume",
        "doctor",
    ):
        assert command in proc.stdout


def test_a_rejected_command_creates_no_results_directory(tmp_path: Path) -> None:
    proc = run_cli("prove", "x >= 0", "--llm", "gpt9", home=tmp_path / "home", cwd=tmp_path)
    assert proc.returncode == 2
    assert not (tmp_path / "results").exists()
