"""Crash-safe file primitives: atomic writes, quarantine of corrupt files, locked updates.

Every write goes to a temporary file in the same directory, is fsynced, then replaces the
target with os.replace, so a crash leaves either the old or the new file, never half of one.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from filelock import FileLock
from pydantic import BaseModel, ValidationError

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

LOCK_TIMEOUT_S = 120.0


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def to_jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return value


def atomic_write_json(path: Path, value: Any) -> None:
    atomic_write_text(path, json.dumps(to_jsonable(value), indent=2, ensure_ascii=False) + "\n")


def quarantine(path: Path, reason: str) -> Path:
    """Move an unreadable file aside (never overwrite it) and warn."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    os.replace(path, target)
    log.warning("%s could not be read (%s); moved aside to %s", path, reason, target.name)
    return target


def read_json(path: Path, default: Any = None) -> Any:
    """Parsed JSON, `default` when the file is absent, and quarantine when it is corrupt."""
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return default
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        quarantine(path, f"invalid JSON: {exc}")
        return default


def read_model(path: Path, model: type[T]) -> T | None:
    """A validated model, None when absent; a file that fails validation is quarantined."""
    data = read_json(path)
    if data is None:
        return None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        quarantine(Path(path), f"does not match {model.__name__}: {exc.errors()[0]['msg']}")
        return None


def file_lock(path: Path, timeout: float = LOCK_TIMEOUT_S) -> FileLock:
    """An inter-process lock guarding `path` (the lock file sits beside it)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(str(path) + ".lock", timeout=timeout)


def update_json(path: Path, mutate: Callable[[Any], Any], default: Any = None) -> Any:
    """Read-modify-write a shared JSON file under its lock, atomically.

    `mutate` receives the current value (or `default`) and returns the new one.
    """
    path = Path(path)
    with file_lock(path):
        current = read_json(path, default)
        new = mutate(current)
        atomic_write_json(path, new)
        return new


_append_lock = threading.Lock()


def append_jsonl(path: Path, record: Any) -> None:
    """Append one JSON line; O_APPEND plus a lock keeps concurrent lines whole."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(to_jsonable(record), ensure_ascii=False) + "\n"
    with _append_lock, file_lock(path):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)


def read_jsonl(path: Path) -> list[Any]:
    """All complete lines; a torn last line (crash mid-write) is skipped with a warning."""
    path = Path(path)
    if not path.exists():
        return []
    out: list[Any] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                log.warning("%s:%d is not valid JSON; skipped", path, lineno)
    return out
