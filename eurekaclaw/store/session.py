"""Session directories under $EUREKACLAW_DIR/runs/<session_id>/ and the workspace around them."""

from __future__ import annotations

import json
import logging
import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from eurekaclaw.errors import AmbiguousSessionError, BadInputError, SessionNotFoundError
from eurekaclaw.store.files import (
    append_jsonl,
    atomic_write_json,
    read_json,
    read_jsonl,
    read_model,
    storage_error,
)
from eurekaclaw.types.artifacts import utcnow
from eurekaclaw.types.tasks import SessionMeta

log = logging.getLogger(__name__)

MIN_PREFIX = 6
_ID_RE = re.compile(r"^[0-9a-f]{12}$")


def read_usage(session_path: Path) -> dict[str, Any]:
    """A session's usage.json for display only (never quarantines: the run owns that file)."""
    data = peek_json(Path(session_path) / SessionDir.USAGE, {})
    return data if isinstance(data, dict) else {}


def peek_json(path: Path, default: Any = None) -> Any:
    """Parsed JSON or `default` (absent, unreadable, corrupt or a symbolic link); never moves it."""
    try:
        if path.is_symlink():
            return default
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default


def _first_line(exc: Exception) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return " ".join(lines[:3])[:200] or type(exc).__name__


class SessionDir:
    """One run's directory: meta, checkpoint, events, usage, LLM log, artifacts, paper files."""

    META = "session.json"
    CHECKPOINT = "checkpoint.json"
    EVENTS = "events.jsonl"
    USAGE = "usage.json"
    LLM_LOG = "llm_log.jsonl"
    PAUSE_REQUEST = "pause.request"
    PID = "run.pid"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.session_id = self.path.name

    def file(self, name: str) -> Path:
        return self.path / name

    # --- metadata ---------------------------------------------------------------------------
    def load_meta(self) -> SessionMeta | None:
        """session.json; when it is missing or damaged (and moved aside), a SessionMeta rebuilt
        from the session's other files, so the session stays listed and resumable."""
        meta = read_model(self.file(self.META), SessionMeta)
        if meta is not None:
            return meta
        meta = self.rebuild_meta()
        if meta is not None:
            log.warning(
                "session %s: session.json was missing or unreadable; rebuilt from the session's other files",
                self.session_id,
            )
            try:
                self.save_meta(meta)
            except OSError as exc:  # listing must work on a read-only disk too
                log.warning("could not write the rebuilt session.json: %s", exc)
        return meta

    def read_meta(self) -> tuple[SessionMeta | None, str]:
        """(meta, problem) for listing and display: never moves, rebuilds on disk or writes a file
        (a page view or `sessions` must not change the store). A missing or damaged session.json
        gives the meta rebuilt in memory from the other files (or None) and the reason in words."""
        path = self.file(self.META)
        if path.is_symlink():
            problem = "session.json is a symbolic link (not followed)"
        else:
            try:
                return SessionMeta.model_validate_json(path.read_bytes()), ""
            except FileNotFoundError:
                problem = "session.json is missing"
            except (OSError, ValueError) as exc:  # ValidationError is a ValueError
                problem = f"session.json is damaged: {_first_line(exc)}"
        try:
            return self.rebuild_meta(read=peek_json), problem
        except (OSError, ValueError, TypeError, AttributeError):  # odd events lines: nothing to rebuild
            return None, problem

    def rebuild_meta(self, read: Any = read_json) -> SessionMeta | None:
        """What session.json said, from input_spec.json, events.jsonl, usage.json and
        theory_state.json; None when there is nothing to rebuild from. `read` reads one JSON file
        (read_json moves a corrupt one aside; read_meta passes one that never does)."""
        spec = read(self.file("input_spec.json"), None)
        spec = spec if isinstance(spec, dict) else {}
        events = read_jsonl(self.file(self.EVENTS)) if self.file(self.EVENTS).exists() else []
        started: dict[str, Any] = next((e for e in events if e.get("kind") == "session_started"), {})
        stopped = [e for e in events if e.get("kind") == "session_stopped"]
        mode = spec.get("mode") or started.get("mode")
        if not mode:
            return None
        usage = read(self.file(self.USAGE), None)
        usage = usage if isinstance(usage, dict) else {}
        theory = read(self.file("theory_state.json"), None)
        status = stopped[-1].get("status") if stopped else "interrupted"
        fields: dict[str, Any] = {
            "session_id": self.session_id,
            "mode": mode,
            "statement": spec.get("statement") or "",
            "paper_ids": spec.get("paper_ids") or [],
            "domain": started.get("domain") or spec.get("domain") or "general",
            "backend": started.get("backend") or "",
            "status": status,
            "status_reason": "session.json was rebuilt from the session's other files",
            "budget_usd": spec.get("budget_usd", usage.get("budget_usd")),
            "gate_mode": spec.get("gate_mode") or "auto",
            "output_dir": spec.get("output_dir"),
            "cost_usd": float(usage.get("priced_cost_usd", usage.get("cost_usd")) or 0.0),
            "theory_status": theory.get("status") if isinstance(theory, dict) else None,
        }
        if events and events[0].get("ts"):
            fields["created_at"] = events[0]["ts"]
        try:
            return SessionMeta.model_validate(fields)
        except ValueError:
            fields.pop("status")
            fields.pop("created_at", None)
            return SessionMeta.model_validate(fields)

    def save_meta(self, meta: SessionMeta) -> None:
        meta.updated_at = utcnow()
        atomic_write_json(self.file(self.META), meta)

    # --- checkpoint ---------------------------------------------------------------------------
    def load_checkpoint(self) -> dict[str, Any]:
        return read_json(self.file(self.CHECKPOINT), {}) or {}

    def save_checkpoint(self, data: dict[str, Any]) -> None:
        atomic_write_json(self.file(self.CHECKPOINT), {**data, "saved_at": utcnow().isoformat()})

    # --- events ---------------------------------------------------------------------------------
    def event(self, kind: str, **data: Any) -> None:
        append_jsonl(self.file(self.EVENTS), {"ts": utcnow().isoformat(), "kind": kind, **data})

    def events(self) -> list[dict[str, Any]]:
        return read_jsonl(self.file(self.EVENTS))

    # --- pause requests from another process --------------------------------------------------
    def request_pause(self) -> None:
        atomic_write_json(self.file(self.PAUSE_REQUEST), {"requested_at": utcnow().isoformat()})

    def pause_requested(self) -> bool:
        return self.file(self.PAUSE_REQUEST).exists()

    def clear_pause(self) -> None:
        try:
            self.file(self.PAUSE_REQUEST).unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.warning("could not remove %s: %s", self.PAUSE_REQUEST, exc)

    def mark_running(self) -> None:
        atomic_write_json(self.file(self.PID), {"pid": os.getpid()})

    def running_pid(self) -> int | None:
        data = peek_json(self.file(self.PID), None)  # read only: a page view asks this too
        if not isinstance(data, dict):
            return None
        try:
            pid = int(data.get("pid", 0))
            if pid <= 0:  # 0 or negative would name a process group, not the run
                return None
            os.kill(pid, 0)
        except (OSError, ValueError, TypeError, OverflowError):
            return None
        return pid

    def mark_stopped(self) -> None:
        try:
            self.file(self.PID).unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:  # read-only disk: a stale pid file names a dead process, harmless
            log.warning("could not remove %s: %s", self.PID, exc)


class Workspace:
    """The $EUREKACLAW_DIR tree: runs/, memory/, memories/, skills/, cache/."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @property
    def runs_dir(self) -> Path:
        return self.root / "runs"

    @property
    def memory_dir(self) -> Path:
        return self.root / "memory"

    @property
    def memories_dir(self) -> Path:
        return self.root / "memories"

    @property
    def skills_dir(self) -> Path:
        return self.root / "skills"

    @property
    def cache_dir(self) -> Path:
        return self.root / "cache"

    def new_session(self) -> SessionDir:
        while True:
            sid = uuid.uuid4().hex[:12]
            path = self.runs_dir / sid
            try:
                path.mkdir(parents=True, exist_ok=False)
            except FileExistsError:
                continue
            except OSError as exc:
                raise storage_error(path, exc) from exc
            return SessionDir(path)

    def sessions(self) -> Iterator[SessionDir]:
        if not self.runs_dir.is_dir():
            return
        for path in sorted(self.runs_dir.iterdir()):
            if not path.is_dir():
                continue
            # a session whose session.json was lost or moved aside is still a session
            try:
                found = (
                    (path / SessionDir.META).exists()
                    or (path / "input_spec.json").exists()
                    or any(path.glob(SessionDir.META + ".corrupt-*"))
                )
            except OSError:  # an unreadable folder: listed (as damaged by read_meta), never fatal
                found = True
            if found:
                yield SessionDir(path)

    def resolve(self, prefix: str) -> SessionDir:
        """A session from its id or a unique prefix of at least six characters."""
        prefix = (prefix or "").strip().lower()
        if len(prefix) < MIN_PREFIX or not re.fullmatch(r"[0-9a-f]+", prefix):
            raise BadInputError(
                f"session id {prefix!r} is not valid: give the id or a prefix of at least "
                f"{MIN_PREFIX} hex characters (see `eurekaclaw sessions`)"
            )
        matches = [s for s in self.sessions() if s.session_id.startswith(prefix)]
        if not matches:
            raise SessionNotFoundError(f"no session matches {prefix!r} (see `eurekaclaw sessions`)")
        if len(matches) > 1:
            ids = ", ".join(s.session_id for s in matches[:5])
            raise AmbiguousSessionError(f"session prefix {prefix!r} is ambiguous: {ids}")
        return matches[0]
