from __future__ import annotations

from pathlib import Path

import pytest

from eurekaclaw.config import load_settings
from eurekaclaw.errors import ConfigError


def test_defaults_match_documented_values(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    s = load_settings()
    assert s.eurekaclaw_model == "claude-sonnet-4-6"
    assert s.eurekaclaw_fast_model == "claude-haiku-4-5"
    assert s.gate_mode == "auto"
    assert s.theory_max_iterations == 10
    assert s.theory_concurrency == 4
    assert s.stagnation_window == 3
    assert s.theory_pipeline == "default"
    assert s.experiment_mode == "auto"
    assert s.eurekaclaw_budget_usd is None
    assert s.direction_weights == (0.4, 0.35, 0.25)
    assert s.eval_weights == (0.35, 0.25, 0.15, 0.15, 0.10)


@pytest.mark.parametrize(
    ("var", "value", "expected"),
    [
        ("GATE_MODE", "sometimes", "GATE_MODE"),
        ("LLM_BACKEND", "gpt", "anthropic|openai_compat|local|scripted|replay"),
        ("THEORY_PIPELINE", "fast", "default|memory_guided"),
        ("EXPERIMENT_MODE", "yes", "auto|true|false"),
        ("THEORY_CONCURRENCY", "many", "THEORY_CONCURRENCY"),
        ("THEORY_MAX_ITERATIONS", "0", "THEORY_MAX_ITERATIONS"),
        ("EUREKACLAW_BUDGET_USD", "-1", "EUREKACLAW_BUDGET_USD"),
        ("DIRECTION_WEIGHTS", "0.5,-0.2,0.7", "DIRECTION_WEIGHTS"),
        # non-finite numbers: an infinite budget would be stored as Infinity (not JSON)
        ("EUREKACLAW_BUDGET_USD", "inf", "finite"),
        ("EUREKACLAW_BUDGET_USD", "1e309", "finite"),
        ("LLM_TIMEOUT_S", "nan", "finite"),
        ("SMT_TIMEOUT_S", "-inf", "SMT_TIMEOUT_S"),
    ],
)
def test_invalid_value_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, var: str, value: str, expected: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(var, value)
    with pytest.raises(ConfigError) as info:
        load_settings()
    message = info.value.user_message()
    assert var in message
    assert expected in message
    assert "\n" not in message
    assert info.value.exit_code == 2


def test_sources_in_order_env_then_cwd_dotenv_then_home_dotenv(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, isolated_home: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    (isolated_home / ".env").write_text("THEORY_CONCURRENCY=2\nSTAGNATION_WINDOW=5\nGATE_MODE=human\n")
    (work / ".env").write_text("THEORY_CONCURRENCY=3\nGATE_MODE=none\n")
    monkeypatch.setenv("GATE_MODE", "auto")
    s = load_settings()
    assert s.gate_mode == "auto"  # environment wins
    assert s.theory_concurrency == 3  # ./.env beats $EUREKACLAW_DIR/.env
    assert s.stagnation_window == 5  # only in $EUREKACLAW_DIR/.env


def test_eurekaclaw_dir_expands_user(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("EUREKACLAW_DIR", "~/research")
    assert load_settings().eurekaclaw_dir == tmp_path / "research"
