"""Tier 4: per-domain insights as Markdown files, $EUREKACLAW_DIR/memories/<domain>/.

Each insight is `YYYYMMDD_<slug>.md` with YAML front matter (category, title, confidence,
source session, sha256) and the insight as the body. `_index.json` beside them lists every file
with its fingerprint, keywords and embedding, so retrieval does not re-read or re-embed every
file. Writers take the index lock for the whole save, so two sessions never pick the same file
name or lose each other's index entries.

Every insight carries the standing of its session (established or not, its final theory status,
self-review) and may be retracted later; retracted insights, and results/strategies of a session
whose claim was shown false, are never injected (DomainInsight.injectable), and every injected
one says its standing in the <memories> block. The body is model text: it passes the one door
(memory/text.quarantined) before it is stored and again before it is injected, so no body says
"formally verified" or "established" — the standing comes from the recorded level alone.
"""

from __future__ import annotations

import builtins
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import ValidationError

from eurekaclaw.memory.text import (
    keyword_overlap,
    keywords,
    normalize_whitespace,
    quarantined,
    sha256_text,
    slugify,
)
from eurekaclaw.store.files import atomic_write_text, read_json, update_json
from eurekaclaw.types.memory import DomainInsight

if TYPE_CHECKING:
    import numpy as np

    from eurekaclaw.memory.embeddings import Embedder

log = logging.getLogger(__name__)

INDEX_FILE = "_index.json"
MIN_CONFIDENCE = 0.5
NEAR_DUPLICATE_OVERLAP = 0.4
SCHEMA_VERSION = 1


def domain_slug(domain: str) -> str:
    return slugify(domain or "general", max_len=64, fallback="general")


def fingerprint(insight: DomainInsight) -> str:
    """Exact-repeat key: the content with case and whitespace normalised."""
    return sha256_text(normalize_whitespace(insight.content).lower())


def insight_keywords(insight: DomainInsight) -> set[str]:
    return keywords(f"{insight.title}\n{insight.content}")


def split_front_matter(text: str) -> tuple[dict[str, Any] | None, str]:
    """(front matter mapping or None, body) of a Markdown file with a `---` YAML header."""
    if not text.startswith("---"):
        return None, text
    lines = text.splitlines(keepends=True)
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            try:
                meta = yaml.safe_load("".join(lines[1:i]))
            except yaml.YAMLError:
                return None, text
            return (meta if isinstance(meta, dict) else None), "".join(lines[i + 1 :])
    return None, text


def _encode_vector(vec: np.ndarray) -> dict[str, Any]:
    # Hashed vectors are mostly zeros: keep only the non-zero coordinates.
    import numpy as np

    idx = np.nonzero(vec)[0]
    return {"dim": int(vec.shape[0]), "idx": idx.tolist(), "val": [round(float(v), 6) for v in vec[idx]]}


def _decode_vector(raw: Any) -> np.ndarray | None:
    import numpy as np

    try:
        vec = np.zeros(int(raw["dim"]), dtype=np.float32)
        vec[np.asarray(raw["idx"], dtype=int)] = np.asarray(raw["val"], dtype=np.float32)
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    return vec


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def _lazy() -> Embedder:
    from eurekaclaw.memory.embeddings import LazyEmbedder

    return LazyEmbedder()


def _empty() -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "entries": []}


def _coerce(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        return _empty()
    return data


class DomainInsights:
    def __init__(self, root: Path, embedder: Embedder | None = None) -> None:
        self.root = Path(root)
        self.embedder: Embedder = embedder if embedder is not None else _lazy()

    def domain_dir(self, domain: str) -> Path:
        return self.root / domain_slug(domain)

    def _index_path(self, domain: str) -> Path:
        return self.domain_dir(domain) / INDEX_FILE

    def entries(self, domain: str) -> list[dict[str, Any]]:
        raw = read_json(self._index_path(domain), None)
        if raw is None:
            # No index (never written, or quarantined as corrupt): the files still count.
            return self._rebuild(domain)
        return [e for e in _coerce(raw)["entries"] if isinstance(e, dict)]

    def _rebuild(self, domain: str) -> list[dict[str, Any]]:
        out = []
        for path in sorted(self.domain_dir(domain).glob("*.md")):
            saved = self.read(domain, path.name)
            if saved is not None:
                out.append(_entry(saved.model_copy(update={"sha256": fingerprint(saved)}), path.name, None, None))
        return out

    # --- writes -----------------------------------------------------------------------------
    def save(self, insight: DomainInsight, replaces: str | None = None) -> Path | None:
        """Write `insight`; None when it is below the confidence floor or an exact repeat.

        `replaces` names an existing file (of the same domain) that this insight supersedes,
        e.g. after two near-duplicates were merged; that file and its index entry are removed.
        """
        if insight.confidence < MIN_CONFIDENCE:
            return None
        insight = _through_the_door(insight)
        if not insight.content.strip():
            return None
        slug = domain_slug(insight.domain)
        insight = insight.model_copy(update={"domain": slug, "sha256": fingerprint(insight)})
        text_for_vector = f"{insight.title}\n{insight.content}"
        vector = _encode_vector(self.embedder.embed([text_for_vector])[0])
        directory = self.domain_dir(slug)
        written: dict[str, Path] = {}

        def apply(data: Any) -> dict[str, Any]:
            data = _coerce(data if data is not None else {"entries": self._rebuild(slug)})
            # Entries whose file the user deleted are forgotten (and may be learned again).
            entries = [
                e
                for e in data["entries"]
                if isinstance(e, dict) and (directory / Path(str(e.get("file", ""))).name).is_file()
            ]
            old_name = Path(replaces).name if replaces else None
            if old_name:
                entries = [e for e in entries if e.get("file") != old_name]
            if any(e.get("sha256") == insight.sha256 for e in entries):
                data["entries"] = entries
                if old_name:
                    _remove(directory / old_name)
                return data
            taken = {e.get("file") for e in entries} | {p.name for p in directory.glob("*.md")}
            stem = f"{insight.created_at:%Y%m%d}_{slugify(insight.title, fallback='insight')}"
            name, n = f"{stem}.md", 2
            while name in taken:
                name, n = f"{stem}-{n}.md", n + 1
            path = directory / name
            atomic_write_text(path, render_insight(insight))
            entries.append(_entry(insight, name, self.embedder.name, vector))
            data["entries"] = entries
            written["path"] = path
            if old_name and old_name != name:
                # Only now that the merged insight is on disk may the one it replaces go.
                _remove(directory / old_name)
            return data

        update_json(self._index_path(slug), apply, default=None)
        return written.get("path")

    def retract_sessions(self, sessions: set[str], reason: str, categories: frozenset[str] | None = None) -> list[Path]:
        """Mark retracted every insight (of `categories`, all when None) learned in one of
        `sessions`, in every domain: the file's front matter and its index entry say so, and
        it is never injected again. Returns the files changed."""
        changed: list[Path] = []
        if not sessions:
            return changed
        for slug in self.domains():
            directory = self.domain_dir(slug)

            def apply(data: Any, slug: str = slug, directory: Path = directory) -> dict[str, Any]:
                data = _coerce(data if data is not None else {"entries": self._rebuild(slug)})
                for entry in data["entries"]:
                    if not isinstance(entry, dict) or entry.get("source_session") not in sessions:
                        continue
                    if categories is not None and entry.get("category") not in categories:
                        continue
                    saved = self.read(slug, str(entry.get("file", "")))
                    if saved is None:
                        continue
                    if saved.retracted and reason in saved.retraction:
                        entry["retracted"] = True
                        continue
                    retraction = f"{saved.retraction}; {reason}" if saved.retraction else reason
                    updated = saved.model_copy(
                        update={"retracted": True, "retraction": retraction, "established": False}
                    )
                    path = directory / Path(saved.file).name
                    atomic_write_text(path, render_insight(updated))
                    entry["retracted"] = True
                    entry["established"] = False
                    changed.append(path)
                return data

            update_json(self._index_path(slug), apply, default=None)
        return changed

    # --- reads ------------------------------------------------------------------------------
    def is_repeat(self, insight: DomainInsight) -> bool:
        sha = fingerprint(insight)
        directory = self.domain_dir(insight.domain)
        return any(
            e.get("sha256") == sha and (directory / Path(str(e.get("file", ""))).name).is_file()
            for e in self.entries(insight.domain)
        )

    def near_duplicates(self, insight: DomainInsight, threshold: float = NEAR_DUPLICATE_OVERLAP) -> list[DomainInsight]:
        """Saved insights of the same domain whose keyword overlap with `insight` exceeds
        `threshold` (most similar first). Retracted ones are left out: merging would carry
        their content back into memory."""
        mine = insight_keywords(insight)
        scored = []
        for entry in self.entries(insight.domain):
            if entry.get("retracted"):
                continue
            overlap = keyword_overlap(mine, set(entry.get("keywords") or ()))
            if overlap > threshold:
                scored.append((overlap, entry["file"]))
        out = []
        for _, file in sorted(scored, reverse=True):
            loaded = self.read(insight.domain, file)
            if loaded is not None and not loaded.retracted:
                out.append(loaded)
        return out

    def read(self, domain: str, file: str) -> DomainInsight | None:
        path = self.domain_dir(domain) / Path(file).name
        try:
            text = path.read_text(encoding="utf-8")
        except (FileNotFoundError, UnicodeDecodeError):
            return None
        meta, body = split_front_matter(text)
        if meta is None:
            log.warning("memory file %s has no readable front matter; ignored", path)
            return None
        try:
            return DomainInsight.model_validate(
                {**meta, "domain": domain_slug(domain), "content": body.strip(), "file": path.name}
            )
        except ValidationError as exc:
            log.warning("memory file %s is malformed (%s); ignored", path, exc.errors()[0]["msg"])
            return None

    def list(self, domain: str) -> list[DomainInsight]:
        out = [self.read(domain, e.get("file", "")) for e in self.entries(domain)]
        return [i for i in out if i is not None]

    def domains(self) -> builtins.list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / INDEX_FILE).exists())

    def load_for_injection(self, domain: str, k: int = 4, query: str = "") -> builtins.list[DomainInsight]:
        """The k most relevant confident insights a later session may be shown (see
        DomainInsight.injectable: never a retracted one, nor a result of a session whose claim
        was shown false): cosine similarity to `query` when there is one, most recent first
        otherwise (and to break ties)."""
        if k <= 0:
            return []
        entries = [
            e
            for e in self.entries(domain)
            if float(e.get("confidence", 0)) >= MIN_CONFIDENCE and not e.get("retracted")
        ]
        entries.sort(key=lambda e: str(e.get("created_at", "")), reverse=True)
        if query.strip() and entries:
            entries = self._rank(domain, entries, query)
        out = []
        for entry in entries:
            insight = self.read(domain, entry.get("file", ""))
            if insight is not None and insight.injectable():
                insight = _through_the_door(insight)  # a file written before the door, or edited
                if insight.content.strip():
                    out.append(insight)
            if len(out) >= k:
                break
        return out

    def _rank(self, domain: str, entries: builtins.list[dict[str, Any]], query: str) -> builtins.list[dict[str, Any]]:
        import numpy as np

        emb = self.embedder
        query_vec = emb.embed([query])[0]
        scores = []
        for entry in entries:
            vec = _decode_vector(entry.get("embedding")) if entry.get("embedder") == emb.name else None
            if vec is None or vec.shape != query_vec.shape:
                # Written by another embedder (or damaged): embed the saved text again.
                saved = self.read(domain, str(entry.get("file", "")))
                text = f"{saved.title}\n{saved.content}" if saved else str(entry.get("title", ""))
                vec = emb.embed([text])[0]
            scores.append(float(np.dot(vec, query_vec)))
        # Python's sort is stable, so equal scores keep the recency order.
        order = sorted(range(len(entries)), key=lambda i: -scores[i])
        return [entries[i] for i in order]


def _entry(insight: DomainInsight, file: str, embedder: str | None, vector: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "file": file,
        "sha256": insight.sha256,
        "title": insight.title,
        "category": insight.category,
        "confidence": insight.confidence,
        "created_at": insight.created_at.isoformat(),
        "source_session": insight.source_session,
        "established": insight.established,
        "session_status": insight.session_status,
        "retracted": insight.retracted,
        "keywords": sorted(insight_keywords(insight)),
        "embedder": embedder,
        "embedding": vector,
    }


def render_insight(insight: DomainInsight) -> str:
    meta = {
        "domain": insight.domain,
        "category": insight.category,
        "title": insight.title,
        "confidence": round(float(insight.confidence), 3),
        "source_session": insight.source_session,
        "created_at": insight.created_at.isoformat(),
        "sha256": insight.sha256,
        # Provenance (docs/memory-and-skills.md): whether the session established its result.
        "established": insight.established,
        "verification_level": insight.verification_level,
        "session_status": insight.session_status,
        "self_reviewed": insight.self_reviewed,
    }
    if insight.retracted:
        meta["retracted"] = True
        meta["retraction"] = insight.retraction
    header = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True).strip()
    return f"---\n{header}\n---\n\n{insight.content.strip()}\n"


def _through_the_door(insight: DomainInsight) -> DomainInsight:
    """The insight with its title and body through the one door for model text."""
    content = quarantined(insight.content)
    title = " ".join(insight.title.split())
    # a title is read with the body's first sentence: "Self-reviewed constants" heads a lesson
    lead = content.split(". ", 1)[0] if content else ""
    if not title or quarantined(f"{title.rstrip('.')}: {lead}") != f"{title.rstrip('.')}: {lead}".strip():
        title = quarantined(title) or f"{insight.category.replace('_', ' ')} note"
    if content == insight.content.strip() and title == insight.title.strip():
        return insight
    return insight.model_copy(update={"content": content, "title": title})


def _attr(value: str) -> str:
    return str(value).replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def render_memories_block(insights: builtins.list[DomainInsight]) -> str:
    """`<memories>…</memories>` for a system prompt; empty when there is nothing to say.
    Every memory says whether its session established its result (`status`), so an
    unverified note is never read as known."""
    if not insights:
        return ""
    parts = ["<memories>"]
    for ins in insights:
        ins = _through_the_door(ins)
        if not ins.content.strip():
            continue
        parts.append(
            f'<memory category="{_attr(ins.category)}" title="{_attr(ins.title)}" '
            f'confidence="{ins.confidence:.2f}" status="{_attr(ins.trust_label())}">\n'
            f"{ins.content.strip()}\n</memory>"
        )
    if len(parts) == 1:
        return ""
    parts.append("</memories>")
    return "\n".join(parts)
