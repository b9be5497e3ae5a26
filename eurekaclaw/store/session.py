"""Session directories under $EUREKACLAW_DIR/runs/<session_id>/ and the workspace around them."""

from __future__ import annotations

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
)
from eurekaclaw.types.artifacts import utcnow
from eurekaclaw.types.tasks import SessionMeta

MIN_PREFIX = 6
_ID_RE = re.compile(r"^[0-9a-f]{12}$")


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
        return read_model(self.file(self.META), SessionMeta)

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

    def mark_running(self) -> None:
        atomic_write_json(self.file(self.PID), {"pid": os.getpid()})

    def running_pid(self) -> int | None:
        data = read_json(self.file(self.PID), None)
        if not data:
            return None
        pid = int(data.get("pid", 0))
        try:
            os.kill(pid, 0)
        except (OSError, ValueError):
            return None
        return pid

    def mark_stopped(self) -> None:
        try:
            self.file(self.PID).unlink()
        except FileNotFoundError:
            pass


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
            return SessionDir(path)

    def sessions(self) -> Iterator[SessionDir]:
        if not self.runs_dir.is_dir():
            return
        for path in sorted(self.runs_dir.iterdir()):
            if path.is_dir() and (path / SessionDir.META).exists():
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
