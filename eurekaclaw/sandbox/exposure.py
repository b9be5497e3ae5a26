"""What the sandbox must never show: home, EUREKACLAW_DIR from every source, the current
directory, host temporary directories and sockets."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _dotenv_value(path: Path, key: str) -> str | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:1_000_000]
    except OSError:
        return None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("export "):
            line = line[7:].lstrip()
        name, sep, value = line.partition("=")
        if sep and name.strip() == key:
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            return value or None
    return None


def _settings_dir() -> str | None:
    try:  # the package's settings, when importable (not under the bare test interpreter)
        from eurekaclaw.config import load_settings

        return str(load_settings().eurekaclaw_dir)
    except Exception:  # noqa: BLE001 - a bad setting must not open the sandbox
        return None


def private_paths() -> list[Path]:
    """Host paths the sandbox must not show: home, EUREKACLAW_DIR from every source, the
    current directory, the host's temporary directories and /run (sockets)."""
    raw: list[str | None] = [
        os.environ.get("HOME"),
        os.path.expanduser("~"),
        os.environ.get("EUREKACLAW_DIR"),
        _dotenv_value(Path(".env"), "EUREKACLAW_DIR"),
        _settings_dir(),
        "~/.eurekaclaw",
        os.getcwd() if os.path.isdir(".") else None,
        tempfile.gettempdir(),
        os.environ.get("TMPDIR"),
        "/tmp",
        "/var/tmp",
        "/run",
        "/var/run",
        "/dev/shm",
    ]
    out: list[Path] = []
    for item in raw:
        if not item:
            continue
        path = Path(os.path.realpath(os.path.expandvars(os.path.expanduser(item))))
        if path != Path("/") and path not in out:
            out.append(path)
    return out


def secret_dirs() -> list[Path]:
    """Places no bind may come from at all (EUREKACLAW_DIR holds sessions and API keys)."""
    raw = [
        os.environ.get("EUREKACLAW_DIR"),
        _dotenv_value(Path(".env"), "EUREKACLAW_DIR"),
        _settings_dir(),
        "~/.eurekaclaw",
    ]
    return [Path(os.path.realpath(os.path.expanduser(r))) for r in raw if r]


def inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
