"""Tier 1: an in-RAM ring buffer of this session's agent events (not persisted)."""

from __future__ import annotations

import itertools
from collections import deque
from typing import Any

from eurekaclaw.types.memory import EpisodicEntry

CAPACITY = 500


class EpisodicMemory:
    def __init__(self, session_id: str, capacity: int = CAPACITY) -> None:
        self.session_id = session_id
        self._entries: deque[EpisodicEntry] = deque(maxlen=capacity)
        self._ids = itertools.count(1)

    def log_event(self, agent_role: str, content: str, metadata: dict[str, Any] | None = None) -> EpisodicEntry:
        entry = EpisodicEntry(
            entry_id=f"{self.session_id}-{next(self._ids)}",
            session_id=self.session_id,
            agent_role=agent_role,
            content=content,
            metadata=metadata or {},
        )
        self._entries.append(entry)
        return entry

    def recent_events(self, n: int = 20, agent_role: str | None = None) -> list[EpisodicEntry]:
        items = [e for e in self._entries if agent_role is None or e.agent_role == agent_role]
        return items[-n:] if n > 0 else []

    def __len__(self) -> int:
        return len(self._entries)
