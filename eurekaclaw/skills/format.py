"""The SKILL.md format: YAML front matter (SkillMeta) between `---` lines, then Markdown.

Front matter is parsed with yaml.safe_load only. A file that does not follow the format raises
SkillFormatError with a one-line reason, so callers can skip it with a warning.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import ValidationError

from eurekaclaw.types.skills import SkillMeta, SkillRecord

SKILL_FILE = "SKILL.md"
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
MAX_SKILL_BYTES = 64 * 1024

Origin = Literal["user", "domain", "builtin"]


class SkillFormatError(ValueError):
    pass


def valid_name(name: str) -> bool:
    return bool(NAME_RE.match(name or ""))


def split_skill_text(text: str) -> tuple[dict[str, Any], str]:
    if not text.startswith("---"):
        raise SkillFormatError("does not start with a '---' front matter block")
    lines = text.splitlines(keepends=True)
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            try:
                meta = yaml.safe_load("".join(lines[1:i]))
            except yaml.YAMLError as exc:
                first = str(exc).splitlines()[0] if str(exc) else "invalid YAML"
                raise SkillFormatError(f"front matter is not valid YAML: {first}") from None
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
        size = path.stat().st_size
    except OSError as exc:
        raise SkillFormatError(f"cannot be read: {exc.strerror}") from None
    if size > MAX_SKILL_BYTES:
        raise SkillFormatError(f"is {size} bytes; the limit is {MAX_SKILL_BYTES}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillFormatError(f"cannot be read as UTF-8 text: {exc}") from None
    return parse_skill_text(text, str(path), origin)


def render_skill_md(meta: SkillMeta, body: str) -> str:
    data = meta.model_dump(mode="json")
    header = yaml.safe_dump(data, sort_keys=False, allow_unicode=True).strip()
    return f"---\n{header}\n---\n\n{body.strip()}\n"


def estimate_tokens(text: str) -> int:
    """A cheap, slightly generous token estimate (about four characters per token)."""
    return len(text) // 4 + 1
