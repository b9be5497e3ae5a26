"""The SKILL.md format: YAML front matter (SkillMeta) between `---` lines, then Markdown.

Front matter is parsed with a safe YAML loader only (no tags, no aliases, limited depth). A file that does not follow the format raises
SkillFormatError with a one-line reason, so callers can skip it with a warning.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import ValidationError

from eurekaclaw.types.skills import SkillMeta, SkillRecord

SKILL_FILE = "SKILL.md"
# Matched with fullmatch: `$` would also accept a name ending in a newline.
NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
MAX_SKILL_BYTES = 64 * 1024
# Front matter is a flat record; deeper nesting is either a mistake or an attack on the
# recursive YAML composer (a RecursionError instead of a rejection).
MAX_YAML_DEPTH = 16

Origin = Literal["user", "installed", "domain", "builtin"]
# install-skills' record of what it put in the user folder (name → source, fingerprint)
INSTALL_MANIFEST = "_installed.json"


class SkillFormatError(ValueError):
    pass


def valid_name(name: str) -> bool:
    return isinstance(name, str) and NAME_RE.fullmatch(name) is not None


class _FrontMatterLoader(yaml.SafeLoader):
    """yaml.SafeLoader with a nesting limit and without aliases (no recursion, no expansion)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.YAMLError(f"aliases are not allowed in front matter (line {event.start_mark.line + 1})")
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise yaml.YAMLError(f"nested deeper than {MAX_YAML_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_front_matter(text: str) -> Any:
    """yaml.safe_load for front matter, with the nesting limit; raises SkillFormatError."""
    loader = _FrontMatterLoader(text)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "invalid YAML"
        raise SkillFormatError(f"front matter is not valid YAML: {first}") from None
    except RecursionError:  # a last line of defence; the depth limit normally comes first
        raise SkillFormatError("front matter is nested too deeply") from None
    finally:
        loader.dispose()


def split_skill_text(text: str) -> tuple[dict[str, Any], str]:
    if not text.startswith("---"):
        raise SkillFormatError("does not start with a '---' front matter block")
    lines = text.splitlines(keepends=True)
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            meta = load_front_matter("".join(lines[1:i]))
            if not isinstance(meta, dict):
                raise SkillFormatError("front matter is not a mapping")
            return meta, "".join(lines[i + 1 :]).strip()
    raise SkillFormatError("front matter block is not closed by '---'")


def parse_skill_text(text: str, path: str = "", origin: Origin = "builtin") -> SkillRecord:
    raw, body = split_skill_text(text)
    for key in ("tags", "agent_roles", "pipeline_stages"):
        if isinstance(raw.get(key), str):
            raw[key] = [p.strip() for p in raw[key].split(",") if p.strip()]
    try:
        meta = SkillMeta.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "front matter"
        raise SkillFormatError(f"{where}: {err['msg']}") from None
    if not valid_name(meta.name):
        raise SkillFormatError(
            f"name {meta.name!r} must be 1-64 characters of a-z, 0-9, '-' or '_' starting with a letter or digit"
        )
    if not body:
        raise SkillFormatError("has no body after the front matter")
    return SkillRecord(meta=meta, body=body, path=path, origin=origin)


def load_skill_file(path: Path, origin: Origin = "builtin") -> SkillRecord:
    path = Path(path)
    try:
        # O_NONBLOCK: a FIFO named SKILL.md must be refused, not waited on forever.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise SkillFormatError(f"cannot be read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise SkillFormatError("is not a regular file")
        if info.st_size > MAX_SKILL_BYTES:
            raise SkillFormatError(f"is {info.st_size} bytes; the limit is {MAX_SKILL_BYTES}")
        try:
            data = fh.read(MAX_SKILL_BYTES + 1)
        except OSError as exc:
            raise SkillFormatError(f"cannot be read: {exc.strerror}") from None
    if len(data) > MAX_SKILL_BYTES:
        raise SkillFormatError(f"is more than {MAX_SKILL_BYTES} bytes; the limit is {MAX_SKILL_BYTES}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SkillFormatError(f"cannot be read as UTF-8 text: {exc}") from None
    return parse_skill_text(text, str(path), origin)


def render_skill_md(meta: SkillMeta, body: str) -> str:
    data = meta.model_dump(mode="json")
    header = yaml.safe_dump(data, sort_keys=False, allow_unicode=True).strip()
    return f"---\n{header}\n---\n\n{body.strip()}\n"


def estimate_tokens(text: str) -> int:
    """A cheap, slightly generous token estimate (about four characters per token)."""
    return len(text) // 4 + 1
