"""Tier 2: cross-run key/value records in $EUREKACLAW_DIR/memory/persistent.json.

Keys are namespaced with dots (e.g. "theory.failed_strategies.bandits"). Every change is a
locked read-modify-write with an atomic replace, so concurrent sessions lose nothing; a file
that does not parse is quarantined by the store and memory starts empty.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from eurekaclaw.store.files import read_json, update_json
from eurekaclaw.types.artifacts import utcnow
from eurekaclaw.types.memory import CrossRunRecord

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
FILE_NAME = "persistent.json"


def _empty() -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "records": {}}


def _records(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("records"), dict):
        return {}
    return data["records"]


class PersistentMemory:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    # --- writes -----------------------------------------------------------------------------
    def remember(
        self,
        key: str,
        value: Any,
        tags: Iterable[str] = (),
        source_session: str | None = None,
    ) -> CrossRunRecord:
        """Save or overwrite the record under `key` (created_at is kept on overwrite)."""
        return self.update(key, lambda _old: value, tags=tags, source_session=source_session)

    def update(
        self,
        key: str,
        mutate: Callable[[Any], Any],
        tags: Iterable[str] = (),
        source_session: str | None = None,
    ) -> CrossRunRecord:
        """Replace the value under `key` with mutate(old value or None), atomically across
        processes: use this to append to a list another session may be extending too."""
        key = _check_key(key)
        tags = list(dict.fromkeys(tags))
        result: dict[str, CrossRunRecord] = {}

        def apply(data: Any) -> dict[str, Any]:
            data = data if isinstance(data, dict) and isinstance(data.get("records"), dict) else _empty()
            old = _parse(data["records"].get(key))
            now = utcnow()
            record = CrossRunRecord(
                key=key,
                value=mutate(old.value if old else None),
                tags=list(dict.fromkeys([*(old.tags if old else []), *tags])),
                source_session=source_session or (old.source_session if old else None),
                created_at=old.created_at if old else now,
                updated_at=now,
            )
            data["records"][key] = record.model_dump(mode="json")
            result["record"] = record
            return data

        update_json(self.path, apply, default=_empty())
        return result["record"]

    def forget(self, key: str) -> bool:
        found = {"hit": False}

        def apply(data: Any) -> dict[str, Any]:
            data = data if isinstance(data, dict) and isinstance(data.get("records"), dict) else _empty()
            found["hit"] = data["records"].pop(key, None) is not None
            return data

        update_json(self.path, apply, default=_empty())
        return found["hit"]

    # --- reads ------------------------------------------------------------------------------
    def _all(self) -> dict[str, CrossRunRecord]:
        out = {}
        for key, raw in _records(read_json(self.path, _empty())).items():
            record = _parse(raw)
            if record is not None:
                out[key] = record
        return out

    def get(self, key: str) -> CrossRunRecord | None:
        return self._all().get(key)

    def recall(self, key: str) -> Any | None:
        record = self.get(key)
        return record.value if record else None

    def recall_by_tag(self, tag: str) -> list[CrossRunRecord]:
        return sorted((r for r in self._all().values() if tag in r.tags), key=lambda r: r.updated_at, reverse=True)

    def recall_prefix(self, prefix: str) -> list[CrossRunRecord]:
        """Records whose key starts with `prefix` (a namespace such as "theory.failed_strategies.")."""
        return sorted((r for k, r in self._all().items() if k.startswith(prefix)), key=lambda r: r.key)

    def keys(self) -> list[str]:
        return sorted(self._all())


def _check_key(key: str) -> str:
    key = (key or "").strip()
    if not key:
        raise ValueError("a persistent-memory key must not be empty")
    return key


def _parse(raw: Any) -> CrossRunRecord | None:
    if raw is None:
        return None
    try:
        return CrossRunRecord.model_validate(raw)
    except ValidationError as exc:
        # One bad record must not hide the others; it is overwritten on the next update.
        log.warning("persistent memory record is malformed and ignored: %s", exc.errors()[0]["msg"])
        return None
