"""`eurekaclaw init`: set up an LLM backend interactively or from flags.

Claude (an API key), an OpenAI-compatible server (base URL, model, optional key) or the bundled
local model. The choice is checked with one tiny call before anything is saved, then written to
$EUREKACLAW_DIR/.env (mode 0600, atomically, other lines kept). A key is read with a hidden prompt,
from stdin (--api-key-stdin) or from the environment; it is never printed.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`): Typer
# reads the command signatures at every start and would compile and evaluate each string twice.

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from eurekaclaw.errors import BadInputError, EurekaError, LLMAuthError, MissingConfigError

BACKENDS = ("anthropic", "openai_compat", "local")
MENU = {"1": "anthropic", "2": "openai_compat", "3": "local"}
# Keys this command owns in the .env file: a new set-up replaces all of them, so a switch from
# Claude to a local server leaves no stale key choosing the old backend.
OWNED_KEYS = (
    "LLM_BACKEND",
    "ANTHROPIC_API_KEY",
    "EUREKACLAW_MODEL",
    "OPENAI_COMPAT_BASE_URL",
    "OPENAI_COMPAT_MODEL",
    "OPENAI_COMPAT_API_KEY",
)
SECRET_KEYS = frozenset({"ANTHROPIC_API_KEY", "OPENAI_COMPAT_API_KEY"})
CHECK_TIMEOUT_S = 60.0
MARKER = "# written by `eurekaclaw init`"
_LINE_KEY = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=")


@dataclass
class Choice:
    backend: str
    values: dict[str, str] = field(default_factory=dict)  # .env variable -> value

    def public(self) -> dict[str, str]:
        return {k: ("(hidden)" if k in SECRET_KEYS else v) for k, v in self.values.items()}


# --- collecting the choice -------------------------------------------------------------------
def _clean_value(name: str, value: str | None) -> str:
    """One line of printable text: a newline or control character in a value would inject a
    second setting into the .env file."""
    text = (value or "").strip()
    if not text:
        raise BadInputError(f"{name} is empty")
    if any(ord(ch) < 32 or ord(ch) == 127 or "\ud800" <= ch <= "\udfff" for ch in text):
        raise BadInputError(f"{name} contains control characters or invalid UTF-8")
    return text


def _check_url(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BadInputError(
            f"base URL {url!r} must start with http:// or https:// and name a host",
            hint="e.g. http://127.0.0.1:11434/v1 for Ollama",
        )
    return url.rstrip("/")


def _read_secret(name: str, *, from_stdin: bool, interactive: bool, optional: bool = False) -> str | None:
    if from_stdin:
        line = sys.stdin.readline()
        return _clean_value(name, line) if line.strip() or not optional else None
    env = os.environ.get(name)
    if env:
        return _clean_value(name, env)
    if not interactive:
        if optional:
            return None
        raise BadInputError(f"{name} is needed: pass it on stdin with --api-key-stdin or set it in the environment")
    prompt = f"{name} (input hidden{', empty for none' if optional else ''})"
    if sys.stdin.isatty():
        value = typer.prompt(prompt, hide_input=True, default="" if optional else None, show_default=False)
    else:
        # piped answers: getpass would warn that it cannot hide them; nothing is echoed anyway
        typer.echo(f"{prompt}: ", err=True, nl=False)
        line = sys.stdin.readline()
        if not line:
            raise typer.Abort()
        value = line.rstrip("\r\n")
        typer.echo("", err=True)
    return _clean_value(name, value) if value.strip() or not optional else None


def collect(
    backend: str | None, *, base_url: str | None, model: str | None, api_key_stdin: bool, interactive: bool
) -> Choice:
    # a command given every value as a flag asks nothing: an optional key is then taken from the
    # environment or left out (a local server needs none), so scripts and CI never wait
    flags_only = backend is not None and base_url is not None and model is not None
    if backend is None:
        if not interactive:
            raise BadInputError("choose a backend: --backend anthropic | openai_compat | local")
        typer.echo(
            "Which model should EurekaClaw use?\n"
            "  1) Claude (Anthropic API key)\n"
            "  2) an OpenAI-compatible server (vLLM, Ollama, llama.cpp server, OpenRouter)\n"
            "  3) the bundled local model (small; demonstration quality)"
        )
        answer = typer.prompt("Choice", default="1").strip()
        backend = MENU.get(answer, answer)
    backend = backend.strip().replace("-", "_")
    if backend not in BACKENDS:
        raise BadInputError(f"unknown backend {backend!r}: choose anthropic, openai_compat or local")
    choice = Choice(backend, {"LLM_BACKEND": backend})
    if backend == "anthropic":
        key = _read_secret("ANTHROPIC_API_KEY", from_stdin=api_key_stdin, interactive=interactive)
        choice.values["ANTHROPIC_API_KEY"] = key or ""
        if model:
            choice.values["EUREKACLAW_MODEL"] = _clean_value("model", model)
    elif backend == "openai_compat":
        if base_url is None and interactive:
            base_url = typer.prompt("Base URL (e.g. http://127.0.0.1:11434/v1)")
        if base_url is None:
            raise BadInputError("--base-url is needed for an OpenAI-compatible server")
        choice.values["OPENAI_COMPAT_BASE_URL"] = _check_url(_clean_value("base URL", base_url))
        if model is None and interactive:
            model = typer.prompt("Model name (as the server calls it)")
        if model is None:
            raise BadInputError("--model is needed for an OpenAI-compatible server")
        choice.values["OPENAI_COMPAT_MODEL"] = _clean_value("model", model)
        key = _read_secret(
            "OPENAI_COMPAT_API_KEY", from_stdin=api_key_stdin, interactive=interactive and not flags_only, optional=True
        )
        if key:
            choice.values["OPENAI_COMPAT_API_KEY"] = key
    else:
        from eurekaclaw.llm.select import local_available

        if not local_available():
            raise MissingConfigError(
                "the local model needs llama-cpp-python: "
                'pip install -e ".[local]" (see README), then run `eurekaclaw init` again'
            )
    return choice


# --- checking it -----------------------------------------------------------------------------
def _settings_for(choice: Choice) -> Any:
    from eurekaclaw.config import load_settings

    overrides: dict[str, Any] = {k.lower(): v for k, v in choice.values.items()}
    overrides["llm_timeout_s"] = CHECK_TIMEOUT_S
    return load_settings(**overrides)


def build_backend(settings: Any, name: str) -> Any:
    """The backend as a session would build it (a seam for tests that mock its transport)."""
    from eurekaclaw.llm.select import build_backend as build

    return build(settings, name, None)


async def _tiny_call(backend: Any) -> str:
    from eurekaclaw.llm.types import LLMRequest, Message

    request = LLMRequest(
        role="init_check",
        messages=[Message(role="user", content="Reply with the word: ok")],
        max_tokens=16,
        tier="main",
    )
    request.model = backend.model_for("main")
    try:
        response = await backend.complete(request)
    finally:
        closer = getattr(backend, "aclose", None)
        if closer is not None:
            try:
                await closer()
            except Exception:  # noqa: BLE001 - closing a client must not hide the answer
                pass
    return response.model or request.model or ""


def check(choice: Choice) -> str:
    """One tiny call through the chosen backend; the model that answered, or a one-line error."""
    import asyncio  # here, not at the top: `eurekaclaw --help` never needs the event loop

    from eurekaclaw.redact import register_secret

    for key in SECRET_KEYS & choice.values.keys():
        register_secret(choice.values[key])
    settings = _settings_for(choice)
    backend = build_backend(settings, choice.backend)
    try:
        return asyncio.run(_tiny_call(backend))
    except LLMAuthError as exc:
        raise MissingConfigError(
            f"the {choice.backend} backend refused the key: {exc.user_message()}; nothing saved"
        ) from None
    except EurekaError as exc:
        raise MissingConfigError(
            f"the test call to {choice.backend} failed: {exc.user_message()}; nothing saved",
            hint="fix it, or save anyway with --no-check",
        ) from None


# --- saving it ---------------------------------------------------------------------------------
def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def merge_env(existing: str, values: dict[str, str]) -> str:
    """`existing` with every owned key removed and `values` appended; other lines kept as they were."""
    kept = []
    for line in existing.splitlines():
        found = _LINE_KEY.match(line)
        if (found and found.group(1).upper() in OWNED_KEYS) or line.strip() == MARKER:
            continue
        kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    block = [MARKER, *(f"{k}={_quote(v)}" for k, v in values.items())]
    return "\n".join([*kept, *([""] if kept else []), *block]) + "\n"


def save(choice: Choice, home: Path) -> Path:
    from eurekaclaw.store.files import atomic_write_text

    path = home / ".env"
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        existing = path.read_text(encoding="utf-8") if path.is_file() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInputError(f"cannot read or create {path}: {exc}") from None
    atomic_write_text(path, merge_env(existing, choice.values), private=True)
    return path


def shadowing(choice: Choice, home: Path) -> list[str]:
    """Settings that win over $EUREKACLAW_DIR/.env with another value (environment, ./.env)."""
    from dotenv import dotenv_values

    local_env = Path(".env")
    local = dotenv_values(local_env) if local_env.is_file() and local_env.resolve() != (home / ".env").resolve() else {}
    where = []
    for key in OWNED_KEYS:
        mine = choice.values.get(key)
        if os.environ.get(key) and os.environ[key] != mine:
            where.append(f"{key} (environment)")
        elif local.get(key) and local[key] != mine:
            where.append(f"{key} (./.env)")
    return where


# --- the command ---------------------------------------------------------------------------------
def init_command(
    backend: Annotated[
        str | None, typer.Option("--backend", help="anthropic | openai_compat | local; asked when not given.")
    ] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1.")
    ] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Model name (openai_compat: required; anthropic: optional).")
    ] = None,
    api_key_stdin: Annotated[
        bool,
        typer.Option(
            "--api-key-stdin",
            help="Read the API key from the first line of stdin (never from a flag, so it stays out of shell history).",
        ),
    ] = False,
    no_check: Annotated[bool, typer.Option("--no-check", help="Save without the test call.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show debug logs and tracebacks.")] = False,
) -> None:
    """Set up the LLM backend: choose it, test it with one tiny call, save it to $EUREKACLAW_DIR/.env (0600).

    Examples: eurekaclaw init  (asks) ·  eurekaclaw init --backend openai_compat --base-url
    http://127.0.0.1:11434/v1 --model qwen2.5:7b  ·  echo "$KEY" | eurekaclaw init --backend anthropic --api-key-stdin
    """
    from eurekaclaw.config import load_settings
    from eurekaclaw.console import err, out
    from eurekaclaw.orchestrator.inputs import check_env_files, check_home_dir

    check_env_files()
    home = load_settings().eurekaclaw_dir
    check_home_dir(home)
    check_env_files(Path(home) / ".env")
    try:
        # --api-key-stdin means stdin is the key, not answers: then every other value is a flag
        choice = collect(
            backend, base_url=base_url, model=model, api_key_stdin=api_key_stdin, interactive=not api_key_stdin
        )
    except typer.Abort:  # end of input at a question
        typer.echo("", err=True)  # end the unanswered prompt's line
        raise BadInputError(
            "no answer given: run `eurekaclaw init` on a terminal, or give every value as "
            "a flag (--backend, --base-url, --model, --api-key-stdin)"
        ) from None
    if no_check:
        answered = "not checked (--no-check)"
    else:
        err().print(f"checking {choice.backend} with one tiny call …", markup=False, highlight=False)
        answered = f"ok, {check(choice) or choice.backend} answered"
    path = save(choice, Path(home))
    shown = ", ".join(f"{k}={v}" for k, v in choice.public().items())
    out().print(f"saved to {path} (mode 0600): {shown}", markup=False, highlight=False)
    out().print(f"test call: {answered}", markup=False, highlight=False)
    for where in shadowing(choice, Path(home)):
        err().print(f"note: {where} is also set and wins over {path}", style="yellow", markup=False, highlight=False)
    out().print(
        "next: `eurekaclaw doctor` shows the effective set-up; try "
        '`eurekaclaw prove "For all real x, x^2 - 2x + 1 >= 0"`',
        markup=False,
        highlight=False,
    )
