"""`eurekaclaw --help` stays cheap: importing the CLI and rendering any help text leave the
heavy libraries unloaded, and the help a user reads is the one Typer's own renderer writes.

Each check runs in a fresh interpreter (this test process has long imported everything); none
measures time: which modules are loaded is what decides the cost, and it does not flake."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Loaded by a command that runs research, never by parsing the command line.
NOT_ON_IMPORT = (
    "sympy",
    "numpy",
    "z3",
    "anthropic",
    "httpx",
    "networkx",
    "llama_cpp",
    "jinja2",
    "pydantic",
    "pydantic_settings",
    "asyncio",
    "eurekaclaw.cli_result",
    "eurekaclaw.config",
    "eurekaclaw.agents",
    "eurekaclaw.orchestrator",
    "eurekaclaw.llm",
    "eurekaclaw.verify",
)
# What Typer's help renderer would load for features this CLI's help does not use: Markdown
# (markdown-it, pygments) and pretty tracebacks (attrs); pydantic for a flag nobody gave.
NOT_FOR_HELP = (*NOT_ON_IMPORT, "rich.markdown", "markdown_it", "rich.traceback", "rich.syntax", "pygments", "attr")

RUN_HELP = """
import json, sys
from eurekaclaw.cli import app
sys.argv = ["eurekaclaw", *json.loads(sys.argv[1])]
try:
    app()
except SystemExit as exc:
    code = exc.code
print("\\x00" + json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _python(code: str, *args: str, home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "EUREKACLAW_DIR": str(home), "COLUMNS": "100", **env}
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=environ, timeout=120, check=False
    )


def _help(args: list[str], home: Path, prelude: str = "", **env: str) -> tuple[str, int, set[str]]:
    proc = _python(prelude + RUN_HELP, json.dumps(args), home=home, **env)
    assert proc.returncode == 0, proc.stderr
    text, _, tail = proc.stdout.rpartition("\x00")
    report = json.loads(tail)
    return text, report["code"], set(report["modules"])


def test_importing_the_cli_loads_no_heavy_module(isolated_home: Path) -> None:
    proc = _python("import json, sys, eurekaclaw.cli; print(json.dumps(sorted(sys.modules)))", home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout))
    assert "eurekaclaw.cli" in loaded
    assert sorted(loaded.intersection(NOT_ON_IMPORT)) == []


@pytest.mark.parametrize("args", [["--help"], ["prove", "--help"], ["init", "--help"], []])
def test_help_loads_no_heavy_module(args: list[str], isolated_home: Path) -> None:
    text, code, loaded = _help(args, isolated_home)
    assert code == 0
    assert "Usage: eurekaclaw" in text and "--help" in text
    assert sorted(loaded.intersection(NOT_FOR_HELP)) == []


@pytest.mark.parametrize("args", [["--help"], ["prove", "--help"], ["bench", "--help"]])
@pytest.mark.parametrize("colour", ["", "1"])
def test_help_text_is_what_typers_own_renderer_writes(args: list[str], colour: str, isolated_home: Path) -> None:
    """The same help, byte for byte, as with Typer's renderer imported the ordinary way."""
    env = {"FORCE_COLOR": colour} if colour else {}
    cheap, _, cheap_modules = _help(args, isolated_home, **env)
    plain, _, plain_modules = _help(args, isolated_home, prelude="import typer.rich_utils\n", **env)
    assert "rich.markdown" in plain_modules and "rich.markdown" not in cheap_modules
    assert cheap == plain
    assert ("\x1b[" in cheap) == bool(colour)


def test_the_deferred_renderer_classes_are_the_real_ones_on_use(isolated_home: Path) -> None:
    """Markdown help and pretty tracebacks still work after the cheap import: the stand-ins
    load the real classes, and whoever imports rich.markdown later gets the real module."""
    code = """
import sys
from eurekaclaw.cli_common import import_help_renderer
import_help_renderer()
import typer.rich_utils as ru
assert "rich.markdown" not in sys.modules and "rich.traceback" not in sys.modules
shown = ru.Markdown("**bold**")
import rich.markdown, rich.traceback
assert type(shown) is rich.markdown.Markdown, type(shown)
assert isinstance(shown, ru.Markdown)
assert rich.markdown.Markdown is not ru.Markdown and hasattr(rich.markdown, "MarkdownContext")
try:
    raise ValueError("boom")
except ValueError as exc:
    tb = ru.Traceback.from_exception(type(exc), exc, exc.__traceback__)
assert type(tb) is rich.traceback.Traceback
print("ok")
"""
    proc = _python(code, home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
