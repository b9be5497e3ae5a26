"""`eurekaclaw install-skills [SOURCE] [--force]`: put skills into the user skill dir.

SOURCE may be nothing (the built-in seed skills), a folder (of skills, or one skill), a
SKILL.md file, an archive (.zip, .tar.gz, …) or a git URL (cloned with --depth 1). Every source
goes through the same checks before anything is copied:

* a skill is a folder with a SKILL.md whose front matter parses (yaml.safe_load) and validates;
* a skill folder may hold only SKILL.md plus .md/.txt notes: any other file rejects the skill;
* symbolic links are never followed or copied; one inside a skill folder rejects the skill;
* files are at most 256 KiB (SKILL.md at most 64 KiB) and a source at most 16 MiB;
* archive entries with absolute paths, `..`, links or special files are rejected, and an archive
  with any rejected entry installs nothing (see skills/archive.py);
* a source that is not a folder, a regular file or a git URL (a FIFO, a device) is refused.

A skill already in the user dir is replaced only when it is unchanged since the last install
(fingerprints in `_installed.json`) or with force=True; a skill the user edited, or wrote
themselves, is kept and reported.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from eurekaclaw.errors import BadInputError, MissingConfigError
from eurekaclaw.skills.archive import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_TOTAL_BYTES,
    extract_archive,
    is_archive,
)
from eurekaclaw.skills.format import (
    INSTALL_MANIFEST,
    MAX_SKILL_BYTES,
    SKILL_FILE,
    SkillFormatError,
    parse_skill_text,
)
from eurekaclaw.skills.registry import builtin_skills_dir
from eurekaclaw.store.files import atomic_write_json, file_lock, read_json
from eurekaclaw.types.artifacts import utcnow

MANIFEST = INSTALL_MANIFEST
NOTE_SUFFIXES = (".md", ".txt")
IGNORED_NAMES = frozenset({".git", ".gitkeep", ".DS_Store", "__MACOSX"})
GIT_URL_PREFIXES = ("https://", "http://", "ssh://", "git://", "file://", "git@")
GIT_TIMEOUT_S = 180


class InstallItem(BaseModel):
    name: str
    reason: str = ""


class InstallReport(BaseModel):
    source: str
    dest: str
    installed: list[str] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list)
    kept: list[InstallItem] = Field(default_factory=list)
    rejected: list[InstallItem] = Field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{len(self.installed)} installed, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged, {len(self.kept)} kept, {len(self.rejected)} rejected"
        )

    def render(self) -> str:
        """The report for a terminal: what happened to each skill, then one summary line."""
        lines = [f"Skills from {self.source} into {self.dest}"]
        if self.installed:
            lines.append("installed: " + ", ".join(sorted(self.installed)))
        if self.updated:
            lines.append("updated:   " + ", ".join(sorted(self.updated)))
        if self.unchanged:
            lines.append("unchanged: " + ", ".join(sorted(self.unchanged)))
        lines += [f"kept:      {k.name} ({k.reason})" for k in self.kept]
        lines += [f"rejected:  {r.name} ({r.reason})" for r in self.rejected]
        lines.append(self.summary())
        return "\n".join(lines)


class _Candidate:
    def __init__(self, root: Path, files: list[Path]) -> None:
        self.root = root
        self.files = files
        self.contents: dict[str, bytes] = {}  # relative posix path -> bytes, once validated
        self.name = ""
        self.problem = ""


def is_git_url(source: str) -> bool:
    return source.startswith(GIT_URL_PREFIXES)


def install_skills(
    source: str | None, dest: Path, force: bool = False, *, offline: bool | None = None
) -> InstallReport:
    """Install skills from `source` (None: the built-in seeds) into `dest` (the user skill dir).
    `offline` (None: the EUREKACLAW_OFFLINE variable) refuses a git URL before anything is cloned."""
    dest = Path(dest)
    label = source if source is not None else "built-in seed skills"
    if source is not None and is_git_url(source.strip()) and (offline if offline is not None else _offline_env()):
        raise BadInputError(
            f"offline mode (EUREKACLAW_OFFLINE) is on: {source.strip()} was not cloned; "
            "unset it to install from a git URL, or install from a local folder or archive"
        )
    report = InstallReport(source=label, dest=str(dest))
    with tempfile.TemporaryDirectory(prefix="eurekaclaw-skills-") as tmp:
        tree, pre_rejected = _materialise(source, Path(tmp))
        report.rejected += [InstallItem(name=n, reason=r) for n, r in pre_rejected]
        candidates, loose = _scan(tree)
        report.rejected += [InstallItem(name=n, reason=r) for n, r in loose]
        _mark_rejected_entries(candidates, pre_rejected)
        _validate(candidates, tree, report)
        good = [c for c in candidates if not c.problem]
        if not good and not report.rejected:
            raise BadInputError(f"no skills found in {label} (a skill is a folder with a {SKILL_FILE})")
        _install(good, dest, force, report)
    return report


def _offline_env() -> bool:
    # read as the settings read it (a boolean environment variable)
    return os.environ.get("EUREKACLAW_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on", "y", "t")


# --- sources ---------------------------------------------------------------------------------
def _materialise(source: str | None, tmp: Path) -> tuple[Path, list[tuple[str, str]]]:
    """A local directory holding the source's files, and entries rejected on the way there."""
    if source is None:
        seeds = builtin_skills_dir()
        if not seeds.is_dir():
            raise MissingConfigError(f"the built-in skills folder is missing ({seeds}); reinstall eurekaclaw")
        return seeds, []
    text = source.strip()
    if not text:
        raise BadInputError("empty skill source: give a folder, an archive or a git URL")
    path = Path(text).expanduser()
    if path.exists():
        if path.is_dir():
            return path, []
        if path.name == SKILL_FILE:
            return path.parent, []
        if is_archive(path):
            if not path.is_file():  # a FIFO or a device would block or never end
                raise BadInputError(f"{path} is not a regular file; give a .zip/.tar.gz archive file")
            out = tmp / "archive"
            out.mkdir()
            return out, extract_archive(path, out)
        raise BadInputError(f"{path} is neither a folder, a {SKILL_FILE} nor a .zip/.tar.gz archive")
    if is_git_url(text):
        return _clone(text, tmp / "repo"), []
    raise BadInputError(f"skill source {text!r} does not exist and is not a git URL")


def _clone(url: str, target: Path) -> Path:
    git = shutil.which("git")
    if git is None:
        raise MissingConfigError("git is needed to install skills from a URL but is not on PATH")
    env = {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        # Only plain transports: no ext:: or other remote helpers that can run commands.
        "GIT_ALLOW_PROTOCOL": "file:git:http:https:ssh",
    }
    cmd = [git, "clone", "--depth", "1", "--quiet", "--no-tags", "--", url, str(target)]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise BadInputError(f"git clone of {url} took longer than {GIT_TIMEOUT_S}s; not installed") from None
    if proc.returncode != 0:
        lines = [ln for ln in (proc.stderr or "").strip().splitlines() if ln.strip()]
        detail = lines[-1] if lines else f"exit code {proc.returncode}"
        raise BadInputError(f"git clone of {url} failed: {detail}")
    return target


# --- scanning --------------------------------------------------------------------------------
def _escapes(link: Path, root: Path) -> bool:
    try:
        Path(os.path.realpath(link)).relative_to(os.path.realpath(root))
    except ValueError:
        return True
    return False


def _scan(tree: Path) -> tuple[list[_Candidate], list[tuple[str, str]]]:
    """Skill folders with the files that belong to each, and files that belong to none."""
    entries: list[Path] = []
    roots: list[Path] = []
    total = 0
    too_deep: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in os.walk(tree, followlinks=False):
        base = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_NAMES)
        if dirnames and len(base.relative_to(tree).parts) + 1 >= MAX_DEPTH:
            # not descended into: the walk would recurse once per level
            too_deep += [
                ((base / d).relative_to(tree).as_posix(), f"nested deeper than {MAX_DEPTH} folders") for d in dirnames
            ]
            dirnames[:] = []
        for name in [*dirnames, *sorted(filenames)]:
            p = base / name
            if name in IGNORED_NAMES:
                continue
            if p.is_symlink() or not p.is_dir():
                entries.append(p)
                if not p.is_symlink() and p.is_file():
                    total += p.stat().st_size
        if (base / SKILL_FILE).is_file() and not (base / SKILL_FILE).is_symlink():
            roots.append(base)
        if total > MAX_TOTAL_BYTES:
            raise BadInputError(f"the skill source is larger than {MAX_TOTAL_BYTES // (1024 * 1024)} MiB")
    # Deepest root first, so a file belongs to the innermost skill folder around it.
    roots.sort(key=lambda r: len(r.parts), reverse=True)
    candidates = {r: _Candidate(r, []) for r in roots}
    loose: list[tuple[str, str]] = []
    for p in entries:
        owner = next((r for r in roots if p.parent == r or r in p.parents), None)
        rel = p.relative_to(tree).as_posix()
        if owner is None:
            reason = "symbolic link" if p.is_symlink() else "not part of a skill folder"
            loose.append((rel, reason))
        else:
            candidates[owner].files.append(p)
    for rel, reason in too_deep:
        owner = next((r for r in roots if r in (tree / rel).parents), None)
        if owner is None:
            loose.append((rel, reason))
        elif not candidates[owner].problem:
            candidates[owner].problem = f"{(tree / rel).relative_to(owner).as_posix()} is {reason}"
    ordered = sorted(candidates.values(), key=lambda c: c.root.as_posix())
    return ordered, loose


def _mark_rejected_entries(candidates: list[_Candidate], rejected: list[tuple[str, str]]) -> None:
    """An archive with any rejected entry installs nothing: what else it holds was packed by
    the same hand, and a skill minus the entries it came with is not the skill that was sent."""
    if not rejected:
        return
    shown = ", ".join(repr(name) for name, _ in rejected[:5]) + (" …" if len(rejected) > 5 else "")
    for cand in candidates:
        if not cand.problem:
            cand.problem = (
                f"the archive has {len(rejected)} rejected entr{'y' if len(rejected) == 1 else 'ies'} ({shown})"
            )


def _file_problem(path: Path, cand: _Candidate, tree: Path) -> str:
    rel = path.relative_to(cand.root).as_posix()
    if path.is_symlink():
        where = "outside the source" if _escapes(path, tree) else "inside the source"
        return f"{rel} is a symbolic link (pointing {where}); links are never installed"
    if not path.is_file():
        return f"{rel} is not a regular file"
    if any(part.startswith(".") for part in path.relative_to(cand.root).parts):
        return f"{rel} is a hidden file; skills hold only {SKILL_FILE} and .md/.txt notes"
    size = path.stat().st_size
    limit = MAX_SKILL_BYTES if path.name == SKILL_FILE and path.parent == cand.root else MAX_FILE_BYTES
    if size > limit:
        return f"{rel} is oversized ({size} bytes; limit {limit})"
    if path.name != SKILL_FILE and path.suffix.lower() not in NOTE_SUFFIXES:
        return f"{rel} is not a skill file (only {SKILL_FILE} and .md/.txt notes are allowed)"
    return ""


def _read_regular(path: Path) -> bytes:
    """The bytes of a regular file, refusing a link even if one was swapped in after the scan."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise OSError(f"{path.name} is not a regular file")
        data = fh.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise OSError(f"{path.name} grew beyond {MAX_FILE_BYTES} bytes")
    return data


def _validate(candidates: list[_Candidate], tree: Path, report: InstallReport) -> None:
    seen: dict[str, Path] = {}
    for cand in candidates:
        label = cand.root.relative_to(tree).as_posix() if cand.root != tree else cand.root.name
        if not cand.problem:
            for path in cand.files:
                cand.problem = _file_problem(path, cand, tree)
                if cand.problem:
                    break
        if not cand.problem:
            try:
                cand.contents = {p.relative_to(cand.root).as_posix(): _read_regular(p) for p in cand.files}
            except OSError as exc:
                cand.problem = f"cannot be read safely: {exc}"
        if not cand.problem:
            try:
                text = cand.contents[SKILL_FILE].decode("utf-8")
                cand.name = parse_skill_text(text, str(cand.root / SKILL_FILE), "user").meta.name
            except UnicodeDecodeError:
                cand.problem = f"{SKILL_FILE} is not UTF-8 text"
            except SkillFormatError as exc:
                cand.problem = f"{SKILL_FILE} {exc}"
        if not cand.problem and cand.name in seen:
            cand.problem = f"a second skill named {cand.name!r} in this source"
        if cand.problem:
            report.rejected.append(InstallItem(name=cand.name or label, reason=cand.problem))
        else:
            seen[cand.name] = cand.root


# --- installing ------------------------------------------------------------------------------
def _fingerprint(contents: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for rel in sorted(contents):
        digest.update(rel.encode("utf-8") + b"\0" + contents[rel] + b"\0")
    return digest.hexdigest()


def folder_fingerprint(root: Path) -> str:
    """Fingerprint of an installed skill folder (names and bytes of its regular files)."""
    files = [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
    return _fingerprint({p.relative_to(root).as_posix(): p.read_bytes() for p in files})


def _copy_into_place(cand: _Candidate, dest: Path) -> None:
    staging = Path(tempfile.mkdtemp(prefix=f".{cand.name}.new-", dir=dest))
    try:
        for rel, data in cand.contents.items():
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        final = dest / cand.name
        old = None
        if final.exists() or final.is_symlink():
            old = dest / f".{cand.name}.old-{os.getpid()}"
            if old.exists():
                shutil.rmtree(old)
            os.replace(final, old)
        os.replace(staging, final)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _install(cands: list[_Candidate], dest: Path, force: bool, report: InstallReport) -> None:
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInputError(f"cannot create the skill folder {dest}: {exc.strerror}") from None
    manifest_path = dest / MANIFEST
    with file_lock(manifest_path):
        manifest: dict[str, Any] = read_json(manifest_path, {}) or {}
        known = manifest.setdefault("skills", {}) if isinstance(manifest, dict) else {}
        for cand in cands:
            incoming = _fingerprint(cand.contents)
            final = dest / cand.name
            record = {"sha256": incoming, "source": report.source, "installed_at": utcnow().isoformat()}
            if not final.exists() and not final.is_symlink():
                _copy_into_place(cand, dest)
                report.installed.append(cand.name)
                known[cand.name] = record
                continue
            current = folder_fingerprint(final) if final.is_dir() and not final.is_symlink() else ""
            if current == incoming:
                report.unchanged.append(cand.name)
                known[cand.name] = {**record, "installed_at": known.get(cand.name, record).get("installed_at")}
                continue
            entry = known.get(cand.name)
            unchanged = isinstance(entry, dict) and entry.get("sha256") == current
            # Only an update from the same source replaces silently: a same-named skill from
            # another source is another skill.
            other = str(entry.get("source", "")) if isinstance(entry, dict) else ""
            if not force and unchanged and other != report.source:
                report.kept.append(
                    InstallItem(
                        name=cand.name, reason=f"installed from {other or 'another source'}; use --force to replace it"
                    )
                )
                continue
            if force or unchanged:
                _copy_into_place(cand, dest)
                report.updated.append(cand.name)
                known[cand.name] = record
                continue
            why = "edited since it was installed" if cand.name in known else "a skill of yours with this name exists"
            report.kept.append(InstallItem(name=cand.name, reason=f"{why}; use --force to overwrite"))
        atomic_write_json(manifest_path, {"schema_version": 1, "skills": known})
