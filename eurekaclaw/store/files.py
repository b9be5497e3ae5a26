"""Crash-safe file primitives: atomic writes, quarantine of corrupt files, locked updates.

Every write goes to a temporary file in the same directory, is fsynced, then replaces the
target with os.replace, so a crash leaves either the old or the new file, never half of one.
"""

from __future__ import annotations

import contextlib
import errno
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

from eurekaclaw.errors import StorageError, storage_errors
from eurekaclaw.redact import scrub_value

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


_umask: int | None = None


def current_umask() -> int:
    """The process umask (read once: os.umask can only be read by setting it)."""
    global _umask
    if _umask is None:
        old = os.umask(0o022)
        os.umask(old)
        _umask = old
    return _umask


def file_mode(private: bool = False) -> int:
    """0600 for files that may hold secrets, else what the umask gives a new file."""
    return 0o600 if private else 0o666 & ~current_umask()


def storage_error(path: Path, exc: OSError) -> OSError:
    """A disk-full / read-only / permission failure as a StorageError (one line for the user);
    any other OSError unchanged."""
    if isinstance(exc, StorageError) or not storage_errors(exc.errno):
        return exc
    return StorageError(path, exc)


def make_dirs(path: Path) -> None:
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise storage_error(Path(path), exc) from exc


def atomic_write_bytes(path: Path, data: bytes, *, private: bool = False) -> None:
    path = Path(path)
    make_dirs(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise storage_error(path, exc) from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), file_mode(private))
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise storage_error(path, exc) from exc
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str, *, private: bool = False) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), private=private)


def to_jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return value


def atomic_write_json(path: Path, value: Any, *, private: bool = False) -> None:
    atomic_write_text(path, json.dumps(to_jsonable(value), indent=2, ensure_ascii=False) + "\n", private=private)


def quarantine(path: Path, reason: str) -> Path:
    """Move an unreadable file aside (never overwrite it) and warn."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    try:
        os.replace(path, target)
    except OSError as exc:  # read-only: leave it in place (nothing can overwrite it either)
        log.warning("%s could not be read (%s) nor moved aside (%s)", path, reason, exc)
        return path
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


def append_jsonl(path: Path, record: Any, *, private: bool = False) -> None:
    """Append one JSON line; O_APPEND plus a lock keeps concurrent lines whole. A line that does
    not fit on the disk is cut back off, so the file never ends in half a line."""
    path = Path(path)
    make_dirs(path.parent)
    line = json.dumps(scrub_value(to_jsonable(record)), ensure_ascii=False) + "\n"  # no secret in any log
    try:
        with _append_lock, file_lock(path):
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600 if private else 0o666)
            try:
                size = os.fstat(fd).st_size
                try:
                    data = line.encode("utf-8")
                    written = os.write(fd, data)
                    if written != len(data):
                        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
                    os.fsync(fd)
                except OSError:
                    with contextlib.suppress(OSError):
                        os.ftruncate(fd, size)
                    raise
            finally:
                os.close(fd)
    except OSError as exc:
        raise storage_error(path, exc) from exc


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
