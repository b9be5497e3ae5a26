"""Safe extraction of skill archives (.zip, .tar, .tar.gz/.tgz, .tar.bz2, .tar.xz).

Nothing in an archive is trusted. An entry is extracted only when it is a regular file or a
directory whose name stays inside the target (no absolute path, no drive letter, no `..`, no
backslash), and whose size is within the limit, counted while reading so a lying header does
not help. Links and special files are never created. Rejected entries are returned with the
reason, and the installer then rejects every skill of the archive (it installs nothing from an
archive with a rejected entry, and lists the entries). Only regular files are opened as archives:
a FIFO or a device would block or never end.
"""

from __future__ import annotations

import stat
import tarfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO

from eurekaclaw.errors import BadInputError

MAX_FILE_BYTES = 256 * 1024
MAX_TOTAL_BYTES = 16 * 1024 * 1024
MAX_ENTRIES = 5000
# A skill is a folder with SKILL.md and a few notes; deeper trees only serve to exhaust the
# recursion of a directory walk (a RecursionError instead of a rejection).
MAX_DEPTH = 12
MAX_NAME_CHARS = 1024
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")


def is_archive(path: Path) -> bool:
    name = path.name.lower()
    return any(name.endswith(s) for s in ARCHIVE_SUFFIXES)


def safe_member_path(name: str) -> tuple[PurePosixPath | None, str]:
    """(relative path, "") for a safe entry name, else (None, reason)."""
    if not name or "\x00" in name:
        return None, "empty or NUL in the name"
    if "\\" in name:
        return None, "backslash in the name (possible path traversal)"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return None, "absolute path"
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None, "path traversal ('..')"
    if not parts:
        return None, "empty path"
    if len(parts) > MAX_DEPTH or len(name) > MAX_NAME_CHARS:
        return None, f"nested deeper than {MAX_DEPTH} folders or a name over {MAX_NAME_CHARS} characters"
    return PurePosixPath(*parts), ""


class _Budget:
    def __init__(self) -> None:
        self.total = 0

    def read(self, fh: IO[bytes]) -> bytes | None:
        """The entry's bytes, or None when it is over the per-file limit."""
        data = fh.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            return None
        self.total += len(data)
        if self.total > MAX_TOTAL_BYTES:
            raise BadInputError(
                f"the archive expands to more than {MAX_TOTAL_BYTES // (1024 * 1024)} MiB; not installed"
            )
        return data


def _copy_entry(
    budget: _Budget, fh: IO[bytes], dest: Path, rel: PurePosixPath, name: str, rejected: list[tuple[str, str]]
) -> None:
    # The header's size may lie: what counts is what is actually read.
    data = budget.read(fh)
    if data is None:
        rejected.append((name, f"oversized (more than {MAX_FILE_BYTES} bytes)"))
        return
    target = dest.joinpath(*rel.parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def extract_archive(archive: Path, dest: Path) -> list[tuple[str, str]]:
    """Extract the safe entries of `archive` into `dest`; return (entry, reason) rejections."""
    try:
        mode = archive.stat().st_mode
    except OSError as exc:
        raise BadInputError(f"cannot read archive {archive.name}: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise BadInputError(f"{archive.name} is not a regular file; not opened as an archive")
    try:
        if zipfile.is_zipfile(archive):
            return _extract_zip(archive, dest)
        if tarfile.is_tarfile(archive):
            return _extract_tar(archive, dest)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        raise BadInputError(f"cannot read archive {archive.name}: {exc}") from None
    raise BadInputError(f"{archive.name} is not a zip or tar archive")


def _extract_zip(archive: Path, dest: Path) -> list[tuple[str, str]]:
    rejected: list[tuple[str, str]] = []
    budget = _Budget()
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        if len(infos) > MAX_ENTRIES:
            raise BadInputError(f"{archive.name} has {len(infos)} entries; the limit is {MAX_ENTRIES}")
        for info in infos:
            rel, reason = safe_member_path(info.filename)
            mode = info.external_attr >> 16
            if rel is None:
                rejected.append((info.filename, reason))
                continue
            if stat.S_ISLNK(mode):
                rejected.append((info.filename, "symbolic link (links are never installed)"))
                continue
            if info.is_dir():
                dest.joinpath(*rel.parts).mkdir(parents=True, exist_ok=True)
                continue
            # Many zip writers store no file type bits at all: that is a plain file.
            if stat.S_IFMT(mode) not in (0, stat.S_IFREG):
                rejected.append((info.filename, "not a regular file"))
                continue
            if info.file_size > MAX_FILE_BYTES:
                rejected.append((info.filename, f"oversized ({info.file_size} bytes; limit {MAX_FILE_BYTES})"))
                continue
            with zf.open(info) as fh:
                _copy_entry(budget, fh, dest, rel, info.filename, rejected)
    return rejected


def _extract_tar(archive: Path, dest: Path) -> list[tuple[str, str]]:
    rejected: list[tuple[str, str]] = []
    budget = _Budget()
    with tarfile.open(archive, mode="r:*") as tf:
        count = 0
        for member in tf:
            count += 1
            if count > MAX_ENTRIES:
                raise BadInputError(f"{archive.name} has more than {MAX_ENTRIES} entries; not installed")
            rel, reason = safe_member_path(member.name)
            if rel is None:
                rejected.append((member.name, reason))
                continue
            if member.issym() or member.islnk():
                rejected.append((member.name, "link (links are never installed)"))
                continue
            if member.isdir():
                dest.joinpath(*rel.parts).mkdir(parents=True, exist_ok=True)
                continue
            if not member.isfile():
                rejected.append((member.name, "not a regular file"))
                continue
            if member.size > MAX_FILE_BYTES:
                rejected.append((member.name, f"oversized ({member.size} bytes; limit {MAX_FILE_BYTES})"))
                continue
            fh = tf.extractfile(member)
            if fh is None:
                rejected.append((member.name, "unreadable entry"))
                continue
            with fh:
                _copy_entry(budget, fh, dest, rel, member.name, rejected)
    return rejected
