"""`eurekaclaw init`: interactive and flag-driven set-up, checked with one tiny call over a
mocked transport, saved to $EUREKACLAW_DIR/.env with mode 0600, the key never printed."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest
from dotenv import dotenv_values
from typer.testing import CliRunner

from eurekaclaw import onboard
from eurekaclaw.cli import app

runner = CliRunner()
KEY = "sk-ant-test-init-0123456789abcdef"
SERVER_KEY = "local-server-key-42"


def home() -> Path:
    return Path(os.environ["EUREKACLAW_DIR"])


def env_file() -> Path:
    return home() / ".env"


class ChatServer:
    """An OpenAI-compatible /chat/completions that answers 'ok' (or a queued status)."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.status != 200:
            return httpx.Response(self.status, json={"error": {"message": "invalid api key"}})
        return httpx.Response(
            200,
            json={
                "id": "c1",
                "object": "chat.completion",
                "model": "qwen2.5:7b",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13},
            },
        )


@pytest.fixture
def chat(monkeypatch: pytest.MonkeyPatch) -> ChatServer:
    from eurekaclaw.llm.openai_compat import OpenAICompatBackend

    server = ChatServer()

    def build(settings: Any, name: str) -> Any:
        assert name == "openai_compat"
        return OpenAICompatBackend(settings, transport=httpx.MockTransport(server))

    monkeypatch.setattr(onboard, "build_backend", build)
    return server


def test_interactive_openai_compat_setup_is_checked_and_saved(chat: ChatServer) -> None:
    answers = f"2\nhttp://127.0.0.1:11434/v1\nqwen2.5:7b\n{SERVER_KEY}\n"
    result = runner.invoke(app, ["init"], input=answers)
    assert result.exit_code == 0, result.output
    assert SERVER_KEY not in result.output  # never echoed
    assert "ok, qwen2.5:7b answered" in result.output
    assert len(chat.requests) == 1  # exactly one tiny call
    sent = json.loads(chat.requests[0].content)
    assert sent["model"] == "qwen2.5:7b" and sent["max_tokens"] <= 16
    assert chat.requests[0].headers["authorization"] == f"Bearer {SERVER_KEY}"
    values = dotenv_values(env_file())
    assert values == {
        "LLM_BACKEND": "openai_compat",
        "OPENAI_COMPAT_BASE_URL": "http://127.0.0.1:11434/v1",
        "OPENAI_COMPAT_MODEL": "qwen2.5:7b",
        "OPENAI_COMPAT_API_KEY": SERVER_KEY,
    }
    assert stat.S_IMODE(env_file().stat().st_mode) == 0o600


def test_the_saved_setup_is_what_the_next_command_uses(chat: ChatServer) -> None:
    # every value given as a flag: no question is asked (no input at all, as in a script or CI)
    result = runner.invoke(
        app, ["init", "--backend", "openai_compat", "--base-url", "http://127.0.0.1:8000/v1", "--model", "m1"]
    )
    assert result.exit_code == 0, result.output
    assert "OPENAI_COMPAT_API_KEY (input hidden" not in result.output
    from eurekaclaw.config import load_settings
    from eurekaclaw.llm.select import choose_backend

    settings = load_settings()
    assert choose_backend(settings) == ("openai_compat", None)
    assert settings.openai_compat_model == "m1" and settings.openai_compat_api_key is None


def test_flag_driven_anthropic_with_the_key_on_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    import anthropic

    from eurekaclaw.llm.anthropic_backend import AnthropicBackend, sdk_httpx

    hx = sdk_httpx()
    seen: list[Any] = []

    def server(request: Any) -> Any:
        seen.append(request)
        return hx.Response(
            200,
            json={
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-6",
                "content": [{"type": "text", "text": "ok"}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        )

    monkeypatch.setattr(
        onboard,
        "build_backend",
        lambda settings, name: AnthropicBackend(
            settings, http_client=anthropic.DefaultAsyncHttpxClient(transport=hx.MockTransport(server))
        ),
    )
    result = runner.invoke(app, ["init", "--backend", "anthropic", "--api-key-stdin"], input=KEY + "\n")
    assert result.exit_code == 0, result.output
    assert KEY not in result.output and "ANTHROPIC_API_KEY=(hidden)" in result.output
    sent = seen[0].headers
    assert KEY in (sent.get("x-api-key"), sent.get("authorization", "").removeprefix("Bearer "))
    assert dotenv_values(env_file())["ANTHROPIC_API_KEY"] == KEY


def test_a_refused_key_is_exit_3_and_nothing_is_saved(monkeypatch: pytest.MonkeyPatch) -> None:
    from eurekaclaw.llm.openai_compat import OpenAICompatBackend

    server = ChatServer(status=401)
    monkeypatch.setattr(
        onboard,
        "build_backend",
        lambda settings, name: OpenAICompatBackend(settings, transport=httpx.MockTransport(server)),
    )
    result = runner.invoke(
        app,
        [
            "init",
            "--backend",
            "openai_compat",
            "--base-url",
            "http://127.0.0.1:8000/v1",
            "--model",
            "m1",
            "--api-key-stdin",
        ],
        input=SERVER_KEY + "\n",
    )
    assert result.exit_code == 3, result.output
    assert SERVER_KEY not in result.output
    assert "nothing saved" in result.output
    assert not env_file().exists()


def test_existing_lines_are_kept_and_old_backend_keys_replaced(chat: ChatServer) -> None:
    home().mkdir(parents=True, exist_ok=True)
    env_file().write_text("S2_API_KEY=keep-me\nANTHROPIC_API_KEY=old-key\nexport GATE_MODE=none\n")
    result = runner.invoke(
        app,
        ["init", "--backend", "openai_compat", "--base-url", "http://127.0.0.1:8000/v1", "--model", "m1"],
        input="\n",
    )
    assert result.exit_code == 0, result.output
    values = dotenv_values(env_file())
    assert values["S2_API_KEY"] == "keep-me" and values["GATE_MODE"] == "none"
    assert "ANTHROPIC_API_KEY" not in values and values["LLM_BACKEND"] == "openai_compat"
    # a second run leaves one block, not two
    runner.invoke(
        app,
        ["init", "--backend", "openai_compat", "--base-url", "http://127.0.0.1:8000/v1", "--model", "m2"],
        input="\n",
    )
    text = env_file().read_text()
    assert text.count(onboard.MARKER) == 1 and dotenv_values(env_file())["OPENAI_COMPAT_MODEL"] == "m2"


@pytest.mark.parametrize(
    ("args", "answers", "needle"),
    [
        (["--backend", "gpt9"], "", "unknown backend"),
        (["--backend", "openai_compat", "--base-url", "ftp://x", "--model", "m"], "\n", "http://"),
        (
            ["--backend", "openai_compat", "--base-url", "http://h/v1\nLLM_BACKEND=evil", "--model", "m"],
            "\n",
            "control characters",
        ),
        ([], "", "no answer given"),
        (["--backend", "anthropic", "--api-key-stdin"], "", "empty"),
    ],
)
def test_bad_answers_are_one_line_and_write_nothing(args: list[str], answers: str, needle: str) -> None:
    result = runner.invoke(app, ["init", *args], input=answers)
    assert result.exit_code == 2, result.output
    last = [ln for ln in result.output.splitlines() if ln.strip()][-1]
    assert "error: " in last and needle in last.partition("error: ")[2]
    assert not env_file().exists()


def test_no_check_saves_without_a_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onboard, "build_backend", lambda *a: pytest.fail("no call with --no-check"))
    result = runner.invoke(
        app,
        ["init", "--backend", "openai_compat", "--base-url", "http://127.0.0.1:8000/v1", "--model", "m1", "--no-check"],
        input="\n",
    )
    assert result.exit_code == 0 and "not checked" in result.output


def test_a_setting_in_the_environment_that_wins_is_pointed_out(
    chat: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_BACKEND", "anthropic")
    result = runner.invoke(
        app,
        ["init", "--backend", "openai_compat", "--base-url", "http://127.0.0.1:8000/v1", "--model", "m1", "--no-check"],
        input="\n",
    )
    assert result.exit_code == 0
    assert "LLM_BACKEND (environment) is also set" in result.output


def test_local_without_llama_cpp_is_exit_3(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("eurekaclaw.llm.select.local_available", lambda: False)
    result = runner.invoke(app, ["init", "--backend", "local"])
    assert result.exit_code == 3 and "llama-cpp-python" in result.output
    assert not env_file().exists()


def test_merge_env_quotes_values() -> None:
    text = onboard.merge_env("", {"OPENAI_COMPAT_MODEL": 'a"b\\c'})
    path = home() / "probe.env"
    home().mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    assert dotenv_values(path)["OPENAI_COMPAT_MODEL"] == 'a"b\\c'
