"""What `review` keeps in the session folder: review/history.jsonl (every question, answer and
revision request, as asked and as shown) and review/versions.json (the paper's versions).

Version 1 is the writer's paper (paper.tex, paper.md, paper.pdf); each revision adds version n
as paper_v<n>.* beside it, and earlier versions are never touched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from eurekaclaw.agents.evaluate.paper_version import REVIEW_DIR, VERSIONS
from eurekaclaw.store.files import append_jsonl, atomic_write_json, read_json, read_jsonl
from eurekaclaw.types.artifacts import utcnow

# REVIEW_DIR and VERSIONS are defined where the evaluation reads them (it scores the newest listed
# version and may not import review/); re-exported here for review's own modules.
__all__ = ["HISTORY", "REVIEW_DIR", "VERSIONS", "PaperVersion", "ReviewStore", "version_files"]
HISTORY = "history.jsonl"


class PaperVersion(BaseModel):
    version: int
    tex_file: str | None = None
    md_file: str | None = None
    bib_file: str | None = None
    pdf_file: str | None = None
    compiled: bool = False
    feedback: str = ""
    prose: dict[str, str] = Field(default_factory=dict)
    changes: list[str] = Field(default_factory=list)  # the mechanical diff summary
    model_summary: str = ""  # what the model says it changed (shown as such)
    notes: list[str] = Field(default_factory=list)
    reran: list[str] = Field(default_factory=list)  # stages re-run for this version (theory, experiment, write)
    levels: dict[str, str] = Field(default_factory=dict)  # lemma -> level (or status) the checkers left
    eval_total: float | None = None  # the evaluation of this version (None: not re-evaluated)
    created_at: str = Field(default_factory=lambda: utcnow().isoformat())


def version_files(version: int) -> dict[str, str]:
    """File names of a version inside the session folder (version 1 is the writer's)."""
    suffix = "" if version == 1 else f"_v{version}"
    return {
        "tex_file": f"paper{suffix}.tex",
        "md_file": f"paper{suffix}.md",
        "bib_file": f"references{suffix}.bib",
        "pdf_file": f"paper{suffix}.pdf",
    }


class ReviewStore:
    def __init__(self, session_path: Path) -> None:
        self.session_path = Path(session_path)
        self.dir = self.session_path / REVIEW_DIR

    # --- versions --------------------------------------------------------------------------------
    def revisions(self) -> list[PaperVersion]:
        """Versions 2.. in order; a damaged versions.json is moved aside by read_json, and the
        revisions it listed are then unknown: the caller starts from the writer's paper."""
        data = read_json(self.dir / VERSIONS, None)
        if not isinstance(data, dict):
            return []
        out = []
        for item in data.get("versions") or []:
            try:
                out.append(PaperVersion.model_validate(item))
            except ValueError:
                continue
        return sorted(out, key=lambda v: v.version)

    def next_version(self) -> int:
        """One past every version listed or present on disk: a file left by an interrupted run
        is never overwritten."""
        listed = [v.version for v in self.revisions()]
        on_disk = []
        for path in self.session_path.glob("paper_v*.*"):
            stem = path.stem.removeprefix("paper_v")
            if stem.isdigit():
                on_disk.append(int(stem))
        return max([1, *listed, *on_disk]) + 1

    def add_version(self, version: PaperVersion) -> None:
        versions = [v for v in self.revisions() if v.version != version.version] + [version]
        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_write_json(
            self.dir / VERSIONS,
            {"versions": [v.model_dump(mode="json") for v in sorted(versions, key=lambda v: v.version)]},
        )

    # --- history ---------------------------------------------------------------------------------
    def append(self, kind: str, **data: Any) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        append_jsonl(self.dir / HISTORY, {"ts": utcnow().isoformat(), "kind": kind, **data})

    def record(self, kind: str, **data: Any) -> str:
        """append, for an action that already happened: a history that cannot be written must not
        turn it into a traceback, so the one-line warning is returned instead ("" when written)."""
        try:
            self.append(kind, **data)
        except OSError as exc:
            return f"warning: this {kind} is not recorded in {REVIEW_DIR}/{HISTORY} ({exc.strerror or exc})"
        return ""

    def history(self) -> list[dict[str, Any]]:
        path = self.dir / HISTORY
        return read_jsonl(path) if path.exists() else []
