"""Sentences of model text, and plain text with its offending sentences taken out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from eurekaclaw.model_text.forged import strip_forged
from eurekaclaw.model_text.normalise import for_display
from eurekaclaw.model_text.vocabulary import Finding, Mode, judge

# after a sentence's end (not an abbreviation; also inside a group: "\\textbf{Remark.} The"),
# before a footnote, at a blank line, at a line that is a list item
BOUNDARY = re.compile(
    r"(?<!\bcf\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bal\.)(?:(?<=[.!?])|(?<=[.!?]\})|(?<=[.!?][\"')]))\s+"
    r"(?=[A-Z\\$(\[`\"'*\d-])|(?<=[.!?])(?=\\footnote\{)|\n[ \t]*\n|\n(?=[ \t]*(?:[-*+]|\d+[.)])\s)"
)
_COMMENT_LINE = re.compile(r"^[ \t]*%[^\n]*$", re.MULTILINE)


def _sentences(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    spans, start = [], lo
    for m in BOUNDARY.finditer(text, lo, hi):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, hi))
    return spans


def spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence; a LaTeX comment line is one of its own."""
    out, pos = [], 0
    for m in _COMMENT_LINE.finditer(text):
        out += [*_sentences(text, pos, m.start()), (m.start(), m.end())]
        pos = m.end()
    out += _sentences(text, pos, len(text))
    return [(a, b) for a, b in out if text[a:b].strip()]


def split(text: str) -> list[str]:
    return [text[a:b].strip() for a, b in spans(text)]


@dataclass
class Quarantined:
    """Plain model text after the door: what may be shown, and what was taken out and why."""

    text: str
    dropped: list[tuple[str, Finding]] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # forged macros and tables

    @property
    def changed(self) -> bool:
        return bool(self.dropped or self.removed)


def quarantine(
    text: str, *, mode: Mode = "prose", proved: bool = True, exempt: tuple[str, ...] = (), lessons: bool = False
) -> Quarantined:
    """Model text through the one door: displayable, without forged macros or tables, and without
    the sentences `judge` refuses (paragraph breaks kept)."""
    clean, removed = strip_forged(for_display(text or ""))
    out = Quarantined("", removed=removed)
    paragraphs = []
    for paragraph in re.split(r"\n[ \t]*\n", clean):
        kept = []
        for a, b in spans(paragraph):
            sentence = paragraph[a:b].strip()
            found = judge(sentence, mode=mode, proved=proved, exempt=exempt, lessons=lessons)
            if found is None:
                kept.append(sentence)
            else:
                out.dropped.append((sentence, found))
        if kept:
            paragraphs.append(" ".join(kept))
    out.text = "\n\n".join(paragraphs) if out.dropped else clean.strip()
    return out
