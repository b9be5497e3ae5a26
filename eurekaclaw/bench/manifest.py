"""What a bench needs on record to be reproduced: code version and commit, package versions,
the machine, every configuration with its effective settings (secrets left out), the problems
with their ground truth, repetitions, seeds and budgets."""

from __future__ import annotations

import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import SecretStr

PACKAGES = (
    "eurekaclaw",
    "pydantic",
    "anthropic",
    "httpx",
    "z3-solver",
    "cvc5",
    "sympy",
    "numpy",
    "scipy",
    "networkx",
    "llama-cpp-python",
    "ray",
)
# settings that only say where things are or how the terminal looks: not part of the result
_NOT_RECORDED = {"eurekaclaw_dir", "gate_mode"}


def git_commit(start: Path | None = None) -> dict[str, Any]:
    """The commit of the source tree eurekaclaw runs from, and whether it has local changes;
    an installed wheel has none (null, never a guessed commit)."""
    root = start or Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return {"commit": None, "dirty": None}
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
        return {"commit": head.stdout.strip(), "dirty": dirty}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    if "eurekaclaw" not in found:
        from eurekaclaw import __version__

        found["eurekaclaw"] = __version__
    return found


def effective_settings(overrides: dict[str, Any]) -> dict[str, Any]:
    """The settings a configuration's sessions run with, as recorded (no secret values)."""
    from eurekaclaw.config import load_settings

    settings = load_settings(**overrides)
    recorded: dict[str, Any] = {}
    for name in type(settings).model_fields:
        if name in _NOT_RECORDED:
            continue
        value = getattr(settings, name)
        if isinstance(value, SecretStr) or "api_key" in name or "mailto" in name:
            recorded[name] = "set" if value else None
        elif isinstance(value, Path):
            recorded[name] = str(value)
        elif isinstance(value, tuple):
            recorded[name] = list(value)
        else:
            recorded[name] = value
    return recorded


def machine() -> dict[str, Any]:
    import os

    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "executable": sys.executable,
    }
