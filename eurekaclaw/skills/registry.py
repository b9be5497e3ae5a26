"""SkillRegistry: every skill the session can use, with usage statistics.

Sources, highest priority first (a skill overrides lower ones with the same name):
  user     $EUREKACLAW_DIR/skills/<name>/SKILL.md
  domain   the skill dirs of domain plugins (the first dir listed wins among them)
  builtin  the top-level `seed_skills/` folder shipped with the package

Usage statistics live in `<user dir>/_stats.json` for skills of every source, so a built-in
skill's record is updated without touching the shipped file, and a user-edited SKILL.md is
never rewritten just to count a use. The file's own usage_count/success_rate are the starting
point until the first update.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from eurekaclaw.skills.format import (
    INSTALL_MANIFEST,
    SKILL_FILE,
    Origin,
    SkillFormatError,
    load_skill_file,
    render_skill_md,
    valid_name,
)
from eurekaclaw.store.files import atomic_write_text, read_json, update_json
from eurekaclaw.types.artifacts import utcnow
from eurekaclaw.types.skills import SkillRecord

log = logging.getLogger(__name__)

EMA_ALPHA = 0.3
STATS_FILE = "_stats.json"


def builtin_skills_dir() -> Path:
    """The shipped `seed_skills/` folder.

    It sits beside the `eurekaclaw` package in both layouts: in a source checkout or editable
    install that is <repo>/seed_skills; a wheel installs the top-level folders eurekaclaw/,
    domains/ and seed_skills/ side by side in site-packages.
    """
    import eurekaclaw

    beside = Path(eurekaclaw.__file__).resolve().parent.parent / "seed_skills"
    if beside.is_dir():
        return beside
    import importlib.util

    # seed_skills has no __init__.py, so Python sees it as a namespace package wherever it is.
    spec = importlib.util.find_spec("seed_skills")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return beside


def ema(previous: float | None, success: bool, alpha: float = EMA_ALPHA) -> float:
    """Exponential moving average of successes; the first observation sets the rate."""
    observed = 1.0 if success else 0.0
    if previous is None:
        return observed
    return alpha * observed + (1.0 - alpha) * previous


def role_matches(agent_roles: Iterable[str], role: str) -> bool:
    """A skill with no roles serves every role; "prover" also serves "prover_refine"."""
    roles = list(agent_roles)
    if not roles:
        return True
    base = role.replace("-", "_").split("_")[0].split(".")[0]
    return role in roles or base in roles


class SkillRegistry:
    def __init__(
        self,
        user_dir: Path,
        domain_dirs: Iterable[Path] = (),
        builtin_dir: Path | None = None,
    ) -> None:
        self.user_dir = Path(user_dir)
        self.domain_dirs = [Path(d) for d in domain_dirs]
        self.builtin_dir = Path(builtin_dir) if builtin_dir is not None else builtin_skills_dir()
        self.problems: list[tuple[str, str]] = []
        self._skills: dict[str, SkillRecord] = {}
        self._file_stats: dict[str, tuple[int, float | None]] = {}
        self.load()

    @property
    def stats_path(self) -> Path:
        return self.user_dir / STATS_FILE

    # --- loading ----------------------------------------------------------------------------
    def _sources(self) -> list[tuple[Origin, Path]]:
        # Lowest priority first: later sources override earlier ones by name.
        sources: list[tuple[Origin, Path]] = [("builtin", self.builtin_dir)]
        sources += [("domain", d) for d in reversed(self.domain_dirs)]
        sources.append(("user", self.user_dir))
        return sources

    def load(self) -> None:
        self.problems = []
        skills: dict[str, SkillRecord] = {}
        for origin, directory in self._sources():
            seen_here: set[str] = set()
            for record in self._scan(directory, origin):
                name = record.meta.name
                if name in seen_here:
                    self._problem(record.path, f"a second skill named {name!r} in the same source; ignored")
                    continue
                seen_here.add(name)
                skills[name] = record
        self._mark_installed(skills)
        self._file_stats = {n: (r.meta.usage_count, r.meta.success_rate) for n, r in skills.items()}
        stats = self._read_stats()
        for name, record in skills.items():
            entry = stats.get(name)
            if isinstance(entry, dict):
                _apply_stats(record, entry)
        self._skills = skills

    def _mark_installed(self, skills: dict[str, SkillRecord]) -> None:
        """User-folder skills install-skills put there (per its manifest) show origin
        "installed": a copy of the built-in set is not the user's own writing."""
        manifest = read_json(self.user_dir / INSTALL_MANIFEST, {})
        known = manifest.get("skills") if isinstance(manifest, dict) else None
        if not isinstance(known, dict):
            return
        for name, record in skills.items():
            if record.origin == "user" and isinstance(known.get(name), dict):
                record.origin = "installed"

    def _scan(self, directory: Path, origin: Origin) -> list[SkillRecord]:
        if not directory.is_dir():
            return []
        out = []
        for folder in sorted(directory.iterdir()):
            if folder.name.startswith((".", "_")) or not folder.is_dir():
                continue
            skill_file = folder / SKILL_FILE
            if not skill_file.is_file():
                continue
            try:
                out.append(load_skill_file(skill_file, origin))
            except SkillFormatError as exc:
                self._problem(str(skill_file), str(exc))
        return out

    def _problem(self, path: str, reason: str) -> None:
        log.warning("skill %s skipped: %s", path, reason)
        self.problems.append((path, reason))

    def _read_stats(self) -> dict[str, Any]:
        data = read_json(self.stats_path, {}) or {}
        skills = data.get("skills") if isinstance(data, dict) else None
        return skills if isinstance(skills, dict) else {}

    # --- queries ----------------------------------------------------------------------------
    def get(self, name: str) -> SkillRecord | None:
        return self._skills.get(name)

    def list(self) -> list[SkillRecord]:
        return [self._skills[n] for n in sorted(self._skills)]

    def __len__(self) -> int:
        return len(self._skills)

    def __contains__(self, name: object) -> bool:
        return name in self._skills

    def get_by_tags(self, tags: Iterable[str]) -> builtins.list[SkillRecord]:
        """Skills sharing at least one tag, most shared tags first."""
        wanted = {t.lower() for t in tags}
        scored = []
        for record in self._skills.values():
            overlap = len(wanted & {t.lower() for t in record.meta.tags})
            if overlap:
                scored.append((-overlap, record.meta.name, record))
        return [r for *_, r in sorted(scored, key=lambda x: (x[0], x[1]))]

    def get_by_role(self, role: str) -> builtins.list[SkillRecord]:
        """The skills an agent of `role` may be offered; a retracted skill (distilled from a
        session whose result was later shown false) never is."""
        return [r for r in self.list() if role_matches(r.meta.agent_roles, role) and not r.meta.retracted]

    # --- writes -----------------------------------------------------------------------------
    def upsert(self, record: SkillRecord) -> SkillRecord:
        """Write (or overwrite) a skill in the user dir; it then overrides any domain or
        built-in skill of the same name."""
        name = record.meta.name
        if not valid_name(name):
            raise ValueError(f"invalid skill name {name!r}")
        path = self.user_dir / name / SKILL_FILE
        # An atomic replace is enough: concurrent writers of one skill cannot interleave, and a
        # lock file inside the skill folder would travel with it when the folder is shared.
        atomic_write_text(path, render_skill_md(record.meta, record.body))
        stored = SkillRecord(meta=record.meta.model_copy(), body=record.body.strip(), path=str(path), origin="user")
        self._file_stats[name] = (stored.meta.usage_count, stored.meta.success_rate)
        entry = self._read_stats().get(name)
        if isinstance(entry, dict):
            _apply_stats(stored, entry)
        self._skills[name] = stored
        return stored

    def update_stats(self, name: str, success: bool) -> SkillRecord:
        """Count one use of `name` and fold its outcome into success_rate (EMA, alpha 0.3)."""
        record = self._skills.get(name)
        if record is None:
            raise KeyError(f"no skill named {name!r}")
        base_usage, base_rate = self._file_stats.get(name, (0, None))
        result: dict[str, Any] = {}

        def apply(data: Any) -> dict[str, Any]:
            if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
                data = {"schema_version": 1, "skills": {}}
            entry = data["skills"].get(name)
            if not isinstance(entry, dict):
                entry = {"usage_count": base_usage, "success_rate": base_rate}
            entry = {
                "usage_count": int(entry.get("usage_count") or 0) + 1,
                "success_rate": ema(_rate(entry.get("success_rate")), success),
                "updated_at": utcnow().isoformat(),
            }
            data["skills"][name] = entry
            result["entry"] = entry
            return data

        update_json(self.stats_path, apply, default={"schema_version": 1, "skills": {}})
        _apply_stats(record, result["entry"])
        return record


def _rate(value: Any) -> float | None:
    if value is None:
        return None
    try:
        rate = float(value)
    except (TypeError, ValueError):
        return None
    return min(1.0, max(0.0, rate))


def _apply_stats(record: SkillRecord, entry: dict[str, Any]) -> None:
    try:
        record.meta.usage_count = max(0, int(entry.get("usage_count") or 0))
    except (TypeError, ValueError):
        return
    record.meta.success_rate = _rate(entry.get("success_rate"))
