from __future__ import annotations

from pathlib import Path

import pytest

from eurekaclaw.config import load_settings
from eurekaclaw.errors import BadInputError, MissingConfigError
from eurekaclaw.llm import select
from eurekaclaw.llm.scripted import ScriptedBackend


def test_no_backend_configured_lists_the_three_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(select, "local_available", lambda: False)
    with pytest.raises(MissingConfigError) as info:
        select.choose_backend(load_settings())
    msg = info.value.message
    assert "ANTHROPIC_API_KEY" in msg and "OPENAI_COMPAT_BASE_URL" in msg and "local" in msg
    assert info.value.exit_code == 3


def test_selection_order(monkeypatch: pytest.MonkeyPatch) -> None:
    from eurekaclaw.llm import local_models

    monkeypatch.setattr(select, "local_available", lambda: True)
    monkeypatch.setattr(local_models, "has_model", lambda settings: False)
    with pytest.raises(MissingConfigError):  # the runtime alone is not a backend
        select.choose_backend(load_settings())
    monkeypatch.setattr(local_models, "has_model", lambda settings: True)
    assert select.choose_backend(load_settings())[0] == "local"
    monkeypatch.setenv("OPENAI_COMPAT_BASE_URL", "http://127.0.0.1:8000/v1")
    assert select.choose_backend(load_settings())[0] == "openai_compat"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    assert select.choose_backend(load_settings())[0] == "anthropic"
    monkeypatch.setenv("LLM_BACKEND", "local")
    assert select.choose_backend(load_settings())[0] == "local"
    assert select.choose_backend(load_settings(), "scripted:rules.yaml") == ("scripted", "rules.yaml")


def test_bad_override_is_bad_input() -> None:
    with pytest.raises(BadInputError):
        select.choose_backend(load_settings(), "gpt5")
    with pytest.raises(BadInputError):
        select.choose_backend(load_settings(), "scripted")


def test_scripted_from_yaml_rules(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "rules:\n"
        "  - role: prover\n    replies: [first, second]\n"
        "  - contains: hello\n    reply: {structured: {a: 1}}\n"
        "default: fallback\n"
    )
    backend = select.build_backend(load_settings(), "scripted", str(rules))
    assert isinstance(backend, ScriptedBackend)
    assert backend.rules[0].roles == ["prover"]
    with pytest.raises(BadInputError):
        select.build_backend(load_settings(), "scripted", str(tmp_path / "missing.yaml"))
