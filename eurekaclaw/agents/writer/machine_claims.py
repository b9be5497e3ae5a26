"""The paper's model text through the one door (eurekaclaw/model_text): generate, don't filter.

What was proved, at which level and how is written by EurekaClaw from the records (the level tags,
the verification summary, the abstract's closing sentences, and the status sentence below). The
model's text may not say it, truthfully or not:

- prose (title, abstract, introduction, related work, limitations, experiments): every sentence
  that speaks of verification, checking, formalisation, kernels, solvers, provers, reviews or a
  tool, or states a proof status about our own results, is dropped, and in its place (once per
  section, not in the abstract, which ends with the generated sentences already) comes the
  status sentence generated from the records; a sentence repeated across sections is kept once;
- statements and proofs: a sentence with a tool, kernel or machine word becomes a bracketed note
  (the words mathematics uses for its own steps, "one verifies", "we prove", stay);
- everywhere: the paper's own macros (`\\eclevel`) and tables are removed.

Only the offending sentence changes (or its part inside a brace group, "\\footnote{See [5]. ...}"):
the rest keeps its bytes (a joined line could otherwise fall into a LaTeX comment). A sentence
that cannot be cut out without breaking the LaTeX stays, followed by a visible note, and counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from eurekaclaw.model_text import (
    Finding,
    exempt_view,
    for_analysis,
    for_display,
    judge,
    spans,
    split,
    strip_forged,
)
from eurekaclaw.theory_view import theorem_status, theorem_view
from eurekaclaw.types.artifacts import TheoryState, weakest_level

NOTE_PREFIX = "removed claim(s) of machine verification"
READING_ORDER = ("abstract", "introduction", "preliminaries", "experiments", "related_work", "limitations")
_STRUCTURE = re.compile(r"\\begin\{[^}]*\}|\\end\{[^}]*\}|\\\[|\\\]|\$\$")


@dataclass(frozen=True)
class Evidence:
    """What the records say about one result: its level (None when not proved) and which
    checkers passed."""

    level: str | None
    passed: frozenset[str] = frozenset()

    def describe(self, kind: str = "") -> str:
        return f"recorded level {self.level}" if self.level else "not proved"


def status_sentence(theory: TheoryState) -> str:
    """The one sentence on the status EurekaClaw writes into prose where the model's went: the
    status word and level of the one status function (theory_view), and how it was checked."""
    view = theorem_view(theory)
    level = f" (weakest level: {view.level_label})" if view.level_label else ""
    return f"According to EurekaClaw's records, the main statement is {view.word}{level}. {view.how}".strip()


@dataclass
class Records:
    """Evidence per lemma id and for the theorem, the theory status, the generated status sentence
    and the texts that are not the model's (the user's statement) for the prose check."""

    lemmas: dict[str, Evidence]
    theorem: Evidence
    status: str = "proved"
    sentence: str = ""
    exempt: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)

    @property
    def proved(self) -> bool:
        return self.status == "proved"

    @classmethod
    def from_theory(cls, theory: TheoryState) -> Records:
        lemmas: dict[str, Evidence] = {}
        for lid in [*theory.lemma_dag, *theory.proven_lemmas]:
            rec = theory.proven_lemmas.get(lid)
            lemmas[lid] = Evidence(
                rec.verification_level if rec else None,
                frozenset(c.checker for c in rec.checks if c.verdict == "passed") if rec else frozenset(),
            )
        levels = [r.verification_level for r in theory.proven_lemmas.values()]
        status = theorem_status(theory)  # the one status function: self-reviewed is not proved
        theorem = Evidence(weakest_level(levels) if status == "proved" and levels else None)
        exempt = tuple(
            dict.fromkeys(exempt_view(t) for t in (theory.informal_statement, theory.formal_statement) if t.strip())
        )
        return cls(lemmas, theorem, status, status_sentence(theory), exempt)


def _balanced(piece: str) -> bool:
    unescaped = re.sub(r"\\[{}$]", "", piece)
    return (
        unescaped.count("{") == unescaped.count("}") and unescaped.count("$") % 2 == 0 and not _STRUCTURE.search(piece)
    )


def _safe_span(text: str, start: int, end: int, bad: Callable[[str], object]) -> tuple[int, int] | None:
    """The span to replace: the sentence, or the part of it between LaTeX structure (an
    environment edge, display math) that still offends; None when no part can go without
    breaking the LaTeX at the sentence's own level."""
    if _balanced(text[start:end]):
        return start, end
    piece = text[start:end]
    cuts = [0, *[p for m in _STRUCTURE.finditer(piece) for p in (m.start(), m.end())], len(piece)]
    for a, b in zip(cuts[::2], cuts[1::2], strict=False):
        sub = piece[a:b]
        if sub.strip() and _balanced(sub) and bad(sub):
            lead = len(sub) - len(sub.lstrip())
            return start + a + lead, start + a + len(sub.rstrip())
    return None


def _groups_around(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """(open, close) of each brace group that overlaps [lo, hi) and is not inside it, innermost first."""
    stack: list[int] = []
    groups = []
    for i, ch in enumerate(text):
        if ch not in "{}" or (i and text[i - 1] == "\\"):
            continue
        if ch == "{":
            stack.append(i)
        elif stack:
            o = stack.pop()
            if o < hi and i > lo and not (lo <= o and i < hi):
                groups.append((o, i))
    return sorted(groups, key=lambda g: g[1] - g[0])


def _group_span(text: str, start: int, end: int, bad: Callable[[str], object]) -> tuple[int, int] | None:
    """When the sentence straddles a brace ("\\emph{Note. This was verified in Coq.}"): its part
    inside the smallest group that still offends and can go alone; the macro stays valid."""
    for o, c in _groups_around(text, start, end):
        a, b = max(start, o + 1), min(end, c)
        piece = text[a:b]
        if piece.strip() and _balanced(piece) and bad(piece):
            return a + len(piece) - len(piece.lstrip()), a + len(piece.rstrip())
    return None


KEPT_NOTE = "[the sentence before this note is the model's, not a record of how anything was checked]"
PROOF_NOTE = "[a sentence of the model about how this was checked was removed; the tag of the result gives its record]"


def _rewrite(
    text: str, judge_one: Callable[[str], Finding | None], replacement: str | None, first: str | None = None
) -> tuple[str, list[Finding]]:
    """`text` with each sentence `judge_one` refuses replaced by `replacement`, or dropped (None);
    `first`, when given, takes the place of the first one dropped. A sentence no part of which
    can go without breaking the LaTeX stays, followed by a note."""
    out: list[str] = []
    removed: list[Finding] = []
    last = 0
    for start, end in spans(text):
        found = judge_one(text[start:end])
        if found is None or start < last:
            continue
        span = _safe_span(text, start, end, judge_one) or _group_span(text, start, end, judge_one)
        if span is None:
            out += [text[last:end], " " + KEPT_NOTE]
            removed.append(found)
            last = end
            continue
        between = text[last : span[0]]
        merged = bool(removed) and not between.strip()  # consecutive removals leave one note
        if not (merged and replacement is not None):
            out.append(between)
        if replacement is not None and not merged:
            out.append(("% " if text[span[0]] == "%" else "") + replacement)  # a comment line stays one
        elif replacement is None and first is not None and not removed:
            out.append(first + " ")
        removed.append(found)
        last = span[1]
        if replacement is None:  # a dropped sentence takes its trailing blank with it
            last += len(text[last:]) - len(text[last:].lstrip(" \t"))
    if not removed:
        return text, []
    out.append(text[last:])
    joined = "".join(out)
    return (joined.strip() if replacement is None else joined), removed


def _prepared(text: str, notes: list[str] | None = None) -> str:
    clean, removed = strip_forged(for_display(text))
    if notes is not None:
        notes.extend(removed)
    return clean


def check_block(text: str) -> tuple[str, int]:
    """(a statement or proof with each sentence about machine checking replaced by a note, and
    without the paper's own macros and tables; how many sentences)."""
    new, removed = _rewrite(_prepared(text), lambda s: judge(s, mode="block"), PROOF_NOTE)
    return new, len(removed)


def check_proof(text: str, own: Evidence, records: Records) -> tuple[str, int]:
    """check_block for a lemma's statement or proof (the records speak for it in its tag)."""
    return check_block(text)


def check_prose_text(text: str, records: Records, *, insert: bool = True) -> tuple[str, int]:
    """(the prose without sentences on checks or proof status, the status sentence in the first
    one's place when `insert`, how many)."""

    ours = {" ".join(s.split()) for s in split(records.sentence)}

    def judge_one(sentence: str) -> Finding | None:
        if " ".join(sentence.split()) in ours:
            return None  # ours, generated from these same records
        return judge(sentence, mode="prose", proved=records.proved, exempt=records.exempt)

    first = records.sentence if insert and records.sentence else None
    new, removed = _rewrite(_prepared(text), judge_one, None, first)
    return new, len(removed)


def removed_count(notes: list[str]) -> int:
    """How many claims the notes say were removed (for the terminal summary and eval)."""
    total = 0
    for note in notes:
        if note.startswith(NOTE_PREFIX):
            m = re.search(r": (\d+) ", note)
            total += int(m.group(1)) if m else 1
    return total


def _note(n: int, where: str, what: str) -> str:
    return (
        f"{NOTE_PREFIX}: {n} sentence(s) {where} spoke of how results were checked or of their proof status, "
        f"which EurekaClaw states from its records ({what})"
    )


def scrub_proof(
    text: str | None, own: Evidence, records: Records, where: str, notes: list[str], part: str = "proof"
) -> str | None:
    """check_proof for a proof (or a model-written statement, `part`) that may be absent, with a
    note when anything was removed."""
    if not text:
        return text
    forged: list[str] = []
    _prepared(text, forged)
    new, n = check_proof(text, own, records)
    notes.extend(f"{f} (the {part} of {where})" for f in dict.fromkeys(forged))
    if n:
        notes.append(_note(n, f"in the {part} of {where}", f"{own.describe()}; replaced by a bracketed note"))
    return new


def title_offends(title: str, records: Records) -> Finding | None:
    """Why a model title may not stand (a title cannot lose a sentence: the caller replaces it)."""
    found = judge(_prepared(title), mode="prose", proved=records.proved, exempt=records.exempt)
    if found is None and not records.proved and re.search(r"\btheorem\b", for_analysis(title)):
        return Finding("result", "theorem")
    return found


def _sentence_key(sentence: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", for_analysis(sentence)).strip()


def dedupe_sections(prose: dict[str, str]) -> tuple[dict[str, str], int]:
    """Each sentence kept once across the sections, where it first appears in reading order."""
    seen: set[str] = set()
    out = dict(prose)
    total = 0
    for name in [n for n in READING_ORDER if n in prose] + [n for n in prose if n not in READING_ORDER]:
        if name == "title" or not prose[name]:
            continue
        text, cuts = prose[name], []
        for a, b in spans(text):
            key = _sentence_key(text[a:b])
            if len(key) < 12:
                continue
            if key in seen:
                cuts.append((a, b))
            seen.add(key)
        if cuts:
            pieces, last = [], 0
            for a, b in cuts:
                pieces.append(text[last:a])
                last = b + len(text[b:]) - len(text[b:].lstrip(" \t"))
            out[name] = ("".join(pieces) + text[last:]).strip()
            total += len(cuts)
    return out, total


def scrub_prose(prose: dict[str, str], records: Records, notes: list[str]) -> tuple[dict[str, str], bool]:
    """(the prose through the door, whether the title may not stand: the caller replaces it)."""
    out = dict(prose)
    title_bad = bool(prose.get("title")) and title_offends(prose.get("title") or "", records) is not None
    for name, text in prose.items():
        if name == "title" or not text:
            continue
        forged: list[str] = []
        _prepared(text, forged)
        new, n = check_prose_text(text, records, insert=name != "abstract")
        notes.extend(f"{f} (the {name.replace('_', ' ')})" for f in dict.fromkeys(forged))
        if n or forged or new != text:
            out[name] = new
        if n:
            notes.append(_note(n, f"of the {name.replace('_', ' ')}", "dropped, the generated status sentence stands"))
    out, repeated = dedupe_sections(out)
    if repeated:
        notes.append(f"{repeated} sentence(s) repeated across sections were kept once, where they first appear")
    if title_bad:
        notes.append(_note(1, "of the title", "a title from the statement was used"))
    return out, title_bad
