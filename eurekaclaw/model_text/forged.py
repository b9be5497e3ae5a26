"""Things model text may never carry, whatever its words: the paper's own macros (the level tag
`\\eclevel` and any other the paper template defines for itself) and tables (a forged "Main
theorem & proved & formal" row). They are removed with their content before anything else reads
the text."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

PAPER_TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "paper"
# The template's math shorthands typeset a symbol and can carry no status: models may use them.
MATH_SHORTHANDS = frozenset({"R", "N", "Z", "E", "Var"})
# Always the writer's, whatever the template file says today (a prefix: \eclevel, \ecstatus, ...).
WRITER_PREFIX = "ec"
TABLE_ENVS = frozenset(
    """tabular tabular* tabularx tabulary longtable supertabular xtabular tabu longtabu NiceTabular
    tblr longtblr table table* array*""".split()
)
_DEFINED = re.compile(r"\\(?:newcommand|renewcommand|providecommand|DeclareRobustCommand|def)\*?\s*\{?\\([A-Za-z]+)")
_PIPE_ROW = re.compile(r"(?m)^[ \t]*\|.*\|.*\|[ \t]*$\n?")


@lru_cache(maxsize=1)
def writer_macros() -> frozenset[str]:
    """Names of the macros the paper templates define, minus the math shorthands."""
    names = {"eclevel"}
    for path in sorted(PAPER_TEMPLATES.glob("*.j2")):
        names |= set(_DEFINED.findall(path.read_text(encoding="utf-8")))
    return frozenset(names - MATH_SHORTHANDS)


def is_writer_macro(name: str) -> bool:
    return name in writer_macros() or name.startswith(WRITER_PREFIX)


def _group_end(text: str, i: int) -> int:
    """Index past the brace group opening at `i`."""
    depth = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        i += 1
        if depth == 0:
            return i
    return i


def skip_args(text: str, j: int) -> int:
    """Past a star, optional [..] and up to two {..} arguments."""
    if text.startswith("*", j):
        j += 1
    groups = 0
    while j < len(text) and groups < 2:
        k = j
        while k < len(text) and text[k] in " \t":
            k += 1
        if text.startswith("[", k):
            close = text.find("]", k)
            j = close + 1 if close > 0 else len(text)
        elif text.startswith("{", k):
            j = _group_end(text, k)
            groups += 1
        else:
            break
    return j


def _drop_macros(text: str, removed: list[str]) -> str:
    out, last = [], 0
    for m in re.finditer(r"\\([A-Za-z]+)", text):
        if m.start() < last or not is_writer_macro(m.group(1)):
            continue
        out.append(text[last : m.start()])
        last = skip_args(text, m.end())
        removed.append(f"the paper's own macro \\{m.group(1)} removed from model text")
    out.append(text[last:])
    return "".join(out)


def _drop_tables(text: str, removed: list[str]) -> str:
    for name in TABLE_ENVS:
        rx = re.compile(r"\\begin\s*\{" + re.escape(name) + r"\}.*?(?:\\end\s*\{" + re.escape(name) + r"\}|\Z)", re.S)
        if rx.search(text):
            removed.append(f"a {name} in model text removed (tables are written by EurekaClaw)")
            text = rx.sub(" ", text)
    for cmd in ("halign", "valign"):
        rx = re.compile(r"\\" + cmd + r"\s*(?:to\s*\S+\s*)?\{")
        while (m := rx.search(text)) is not None:
            removed.append(f"\\{cmd} in model text removed (tables are written by EurekaClaw)")
            text = text[: m.start()] + " " + text[_group_end(text, m.end() - 1) :]
    if _PIPE_ROW.search(text):
        removed.append("a table in model text removed (tables are written by EurekaClaw)")
        text = _PIPE_ROW.sub("", text)
    return text


def strip_forged(text: str) -> tuple[str, list[str]]:
    """(text without the paper's own macros and without tables, what was removed)."""
    removed: list[str] = []
    if "\\" in text or "|" in text:
        text = _drop_tables(_drop_macros(text, removed), removed)
    return text, removed
