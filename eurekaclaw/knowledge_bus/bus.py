"""KnowledgeBus: the session's typed artifact store with subscriptions.

Typed artifacts are persisted the moment they are put (atomic write through the store), so a
crash loses at most the call in flight. Other keys are kept in memory and persisted too when
their value is JSON-serialisable. Every key is declared once, with the type it holds, in keys.py.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, overload

from pydantic import BaseModel

from eurekaclaw.knowledge_bus.keys import (
    BIBLIOGRAPHY,
    EXPERIMENT_RESULT,
    PIPELINE,
    RESEARCH_BRIEF,
    THEORY_STATE,
    TYPED_KEYS,
    ArtifactKey,
)
from eurekaclaw.store.files import atomic_write_json, read_json, read_model, to_jsonable
from eurekaclaw.types.artifacts import (
    Bibliography,
    ExperimentResult,
    Paper,
    ResearchBrief,
    TheoryState,
)
from eurekaclaw.types.tasks import PipelineState

log = logging.getLogger(__name__)

T = TypeVar("T")

# artifact key -> model; each is saved as <key>.json in the session directory.
TYPED_ARTIFACTS: dict[ArtifactKey[Any], type[BaseModel]] = {
    key: key.model for key in TYPED_KEYS if key.model is not None
}
EXTRA_FILE = "bus_extra.json"


_ARXIV_VERSION = re.compile(r"v\d+$", re.IGNORECASE)


def paper_identity(paper: Paper) -> str:
    """The key two bibliography entries share when they are the same work: DOI, then the
    version-less arXiv id, then normalised title + first author + year."""
    if paper.doi:
        return "doi:" + paper.doi.strip().lower()
    if paper.arxiv_id:
        return "arxiv:" + _ARXIV_VERSION.sub("", paper.arxiv_id.strip().lower())
    title = " ".join(re.findall(r"[a-z0-9]+", paper.title.lower()))
    first = paper.authors[0].split()[-1].lower() if paper.authors else ""
    return f"title:{title}|{first}|{paper.year or ''}"


class KnowledgeBus:
    def __init__(self, session_id: str, session_dir: Path | None = None) -> None:
        self.session_id = session_id
        self.session_dir = Path(session_dir) if session_dir else None
        self._data: dict[str, Any] = {}
        self._subscribers: dict[str, list[Callable[[Any], None]]] = defaultdict(list)

    # --- generic -----------------------------------------------------------------------------
    def put(self, key: ArtifactKey[T], value: T) -> None:
        model = TYPED_ARTIFACTS.get(key)
        if model is not None and not isinstance(value, model):
            raise TypeError(f"bus key {key!r} holds {model.__name__}, not {type(value).__name__}")
        self._data[key] = value
        self._persist_key(key)
        for callback in list(self._subscribers.get(key, ())):
            callback(value)

    @overload
    def get(self, key: ArtifactKey[T]) -> T | None: ...
    @overload
    def get(self, key: ArtifactKey[T], default: T) -> T: ...
    def get(self, key: ArtifactKey[T], default: T | None = None) -> T | None:
        value: T | None = self._data.get(key, default)
        return value

    def discard(self, key: str) -> None:
        """Forget an artifact, on disk too: one a later stage must not take for its own input
        (the experiment of an `explore` direction that was given up)."""
        if self._data.pop(key, None) is None or self.session_dir is None:
            return
        if key in TYPED_ARTIFACTS:
            (self.session_dir / f"{key}.json").unlink(missing_ok=True)
        else:
            self._persist_key(key)

    def has(self, key: str) -> bool:
        return self._data.get(key) is not None

    def keys(self) -> list[str]:
        return [k for k, v in self._data.items() if v is not None]

    def subscribe(self, artifact_type: str, callback: Callable[[Any], None]) -> None:
        self._subscribers[artifact_type].append(callback)

    # --- typed accessors -------------------------------------------------------------------------
    def put_theory_state(self, state: TheoryState) -> None:
        self.put(THEORY_STATE, state)

    def get_theory_state(self) -> TheoryState | None:
        return self.get(THEORY_STATE)

    def put_research_brief(self, brief: ResearchBrief) -> None:
        self.put(RESEARCH_BRIEF, brief)

    def get_research_brief(self) -> ResearchBrief | None:
        return self.get(RESEARCH_BRIEF)

    def put_experiment_result(self, result: ExperimentResult) -> None:
        self.put(EXPERIMENT_RESULT, result)

    def get_experiment_result(self) -> ExperimentResult | None:
        return self.get(EXPERIMENT_RESULT)

    def put_bibliography(self, bib: Bibliography) -> None:
        self.put(BIBLIOGRAPHY, bib)

    def get_bibliography(self) -> Bibliography | None:
        return self.get(BIBLIOGRAPHY)

    def put_pipeline(self, pipeline: PipelineState) -> None:
        self.put(PIPELINE, pipeline)

    def get_pipeline(self) -> PipelineState | None:
        return self.get(PIPELINE)

    # --- persistence -----------------------------------------------------------------------------
    def _persist_key(self, key: str) -> None:
        if self.session_dir is None:
            return
        if key in TYPED_ARTIFACTS:
            atomic_write_json(self.session_dir / f"{key}.json", self._data[key])
            return
        extras = {}
        for k, v in self._data.items():
            if k in TYPED_ARTIFACTS:
                continue
            try:
                extras[k] = to_jsonable(v)
            except TypeError:
                continue
        atomic_write_json(self.session_dir / EXTRA_FILE, extras)

    @classmethod
    def load(cls, session_id: str, session_dir: Path) -> KnowledgeBus:
        bus = cls(session_id, None)
        session_dir = Path(session_dir)
        for key, model in TYPED_ARTIFACTS.items():
            value = read_model(session_dir / f"{key}.json", model)
            if value is not None:
                bus._data[key] = value
        extras = read_json(session_dir / EXTRA_FILE, {}) or {}
        bus._data.update(extras)
        bus.session_dir = session_dir
        return bus
