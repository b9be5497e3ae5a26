"""The typed client protocol's defaults and the backend registry (entry-point group
`eurekaclaw.llm_backends`)."""

from __future__ import annotations

import importlib.metadata
import logging
from typing import Any

import pytest

from eurekaclaw.config import load_settings
from eurekaclaw.errors import BadInputError
from eurekaclaw.llm import client as llm_client
from eurekaclaw.llm import registry, select
from eurekaclaw.llm.client import BaseLLMClient
from eurekaclaw.llm.registry import BackendSpec
from eurekaclaw.llm.types import LLMClient, LLMRequest, LLMResponse, ModelTier


class Echo(BaseLLMClient):
    name = "echo"

    def __init__(self, settings: Any, arg: str | None) -> None:
        self.arg = arg

    def model_for(self, tier: ModelTier) -> str:
        return f"echo-{tier}"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        return LLMResponse(text=request.prompt_text())


class Bare:
    """Satisfies the protocol and nothing more."""

    name = "bare"

    def model_for(self, tier: ModelTier) -> str:
        return "bare-model"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        return LLMResponse(text="")


SPEC = BackendSpec("echo", Echo, "echoes the prompt", needs_arg=True)


class FakeEP:
    def __init__(self, name: str, obj: Any) -> None:
        self.name, self.value, self._obj = name, f"pkg:{name}", obj

    def load(self) -> Any:
        if isinstance(self._obj, Exception):
            raise self._obj
        return self._obj


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    eps = [
        FakeEP("echo", SPEC),
        FakeEP("broken", ImportError("no module named pkg")),
        FakeEP("anthropic", BackendSpec("anthropic", Echo)),
        FakeEP("factory", lambda: BackendSpec("factory", Echo)),
    ]

    def fake(group: str) -> list[FakeEP]:
        return eps if group == "eurekaclaw.llm_backends" else []

    monkeypatch.setattr(registry, "entry_points", fake)
    monkeypatch.setattr(importlib.metadata, "entry_points", fake)
    monkeypatch.setattr(registry, "_plugins", None)
    yield
    registry._plugins = None


def test_defaults_for_the_optional_parts() -> None:
    echo, bare = Echo(None, None), Bare()
    assert isinstance(echo, LLMClient) and isinstance(bare, LLMClient)
    for backend, name in ((echo, "echo-main"), (bare, "bare-model")):
        assert llm_client.display_name(backend) == name
        assert llm_client.review_counts_as_evidence(backend) is True
        assert llm_client.demonstration_profile(backend) == {}
    echo.display_name = "Echo 1B"
    assert llm_client.display_name(echo) == "Echo 1B"


async def test_aclose_default() -> None:
    await llm_client.aclose(Echo(None, None))
    await llm_client.aclose(Bare())
    await llm_client.aclose(None)


def test_plugins_are_chosen_by_name_and_built(plugins: None, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    assert registry.backend_names() == [*registry.BUILTIN, "echo", "factory"]
    assert "broken" in caplog.text and "may not replace the built-in" in caplog.text
    settings = load_settings()
    assert select.choose_backend(settings, "echo:hello") == ("echo", "hello")
    built = select.build_backend(settings, "echo", "hello")
    assert isinstance(built, Echo) and built.arg == "hello"
    with pytest.raises(BadInputError, match="needs an argument"):
        select.choose_backend(settings, "echo")
    with pytest.raises(BadInputError, match="echo"):  # the error lists plugin backends too
        select.choose_backend(settings, "nope")


def test_settings_accept_plugin_backends(plugins: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_BACKEND", "echo:x")
    assert load_settings().llm_backend == "echo:x"
    monkeypatch.setenv("LLM_BACKEND", "gpt")
    from eurekaclaw.errors import ConfigError

    with pytest.raises(ConfigError, match="anthropic|openai_compat|local|scripted|replay|echo"):
        load_settings()


def test_a_scripted_file_that_is_missing_or_not_a_regular_file_is_one_clear_error(tmp_path) -> None:
    import os

    from eurekaclaw.llm.scripted import ScriptedBackend

    with pytest.raises(BadInputError, match="not found"):
        ScriptedBackend.from_file(tmp_path / "missing.yaml")
    fifo = tmp_path / "replies.yaml"
    os.mkfifo(fifo)  # opening it would block until a writer appears
    with pytest.raises(BadInputError, match="not a regular file"):
        ScriptedBackend.from_file(fifo)
