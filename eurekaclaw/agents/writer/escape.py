"""Plain text as LaTeX, and LaTeX source shown as text."""

from __future__ import annotations

import re

from eurekaclaw.agents.writer.unicode import UNICODE_TEX


class Tex(str):
    """A string that is already valid LaTeX; the paper template inserts it unescaped."""

    __slots__ = ()


CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "%": r"\%",
    "_": r"\_",
    "^": r"\^{}",
    "~": r"\textasciitilde{}",
}


def _char_ok(ch: str) -> bool:
    code = ord(ch)
    return code < 0x180 or 0x2010 <= code <= 0x2027 or ch in UNICODE_TEX


def escape_text(text: str) -> Tex:
    """Plain text as LaTeX that prints it literally. Characters pdflatex cannot set are shown
    as their code point instead of failing the compilation."""
    out = []
    for ch in CONTROL_CHARS.sub("", text):
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif _char_ok(ch):
            out.append(ch)
        else:
            out.append(f"[U+{ord(ch):04X}]")
    return Tex("".join(out))


def source_block(text: str) -> Tex:
    """LaTeX source shown as typewriter text: how a block that cannot be typeset safely is
    still printed verbatim."""
    lines = [escape_text(line) for line in text.strip().splitlines() if line.strip()]
    body = "\\par\n".join(lines) if lines else r"\emph{(empty)}"
    return Tex("\\begin{flushleft}\\ttfamily\\small\n" + body + "\n\\end{flushleft}")


_BREAK_AFTER = re.compile(r"(\\_|[.:/-](?=\S))")


def breakable(text: str) -> Tex:
    """Escaped text that may break after `_ . : / -`: long ids in narrow table columns."""
    return Tex(_BREAK_AFTER.sub(lambda m: m.group(1) + "\\allowbreak{}", escape_text(text)))
