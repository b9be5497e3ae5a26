"""Claims of machine verification in model-written text, checked against the recorded levels.

A prover may write "this lemma was formally verified in Coq" or "checked by Z3" into a proof,
and the prose may say "all lemmas were machine-checked", while the records say `reviewed`.
Readers believe such a sentence more than the level tag beside it, so each one is kept only
when the records back it:

- formal (Coq, Lean, a proof assistant or kernel, "formally verified"): level `formal`;
- smt (Z3, cvc5, an SMT solver): level `smt`, or `formal` with a passed Z3/cvc5 check;
- machine ("machine-checked", "mechanically verified"): level `formal` or `smt`;
- numeric ("numerically verified"): a passed falsifier check in the lemma's records.

The subjects are the results a sentence names ("Lemma~\\ref{lem:L3} and Lemma L4 were checked by
Z3", "the main theorem was verified in Coq"): every one must back the claim. A sentence naming
none speaks about its own proof's lemma, or in the prose about every result (so the weakest level
decides). Negated claims ("we did not verify this in Coq") and claims credited to other work pass
(machine_claim_patterns.py). In a proof the sentence becomes a bracketed note, so the reader sees
that something was taken out; in the prose it is dropped. Only the offending sentence changes
(or its part inside a brace group, "\\footnote{See [5]. [note]}"): the rest keeps its bytes (a
joined line could otherwise fall into a LaTeX comment). A claim that cannot be cut out without
breaking the LaTeX stays, followed by a visible note, and is counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from eurekaclaw.agents.writer.labels import lemma_label
from eurekaclaw.agents.writer.machine_claim_patterns import THEOREM_MENTION, claims_in
from eurekaclaw.types.artifacts import TheoryState, weakest_level

NOTE_PREFIX = "removed claim(s) of machine verification"
THEOREM = "*theorem*"

# after a sentence's end (not an abbreviation; also inside a group: "\\textbf{Remark.} The"),
# before a footnote, at a blank line
_BOUNDARY = re.compile(
    r"(?<!\bcf\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bal\.)(?:(?<=[.!?])|(?<=[.!?]\}))\s+(?=[A-Z\\$(\[`\"'])"
    r"|(?<=[.!?])(?=\\footnote\{)|\n[ \t]*\n"
)
_COMMENT_LINE = re.compile(r"^[ \t]*%[^\n]*$", re.MULTILINE)
_STRUCTURE = re.compile(r"\\begin\{[^}]*\}|\\end\{[^}]*\}|\\\[|\\\]|\$\$")


@dataclass(frozen=True)
class Evidence:
    """What the records say about one result: its level (None when not proved) and which
    checkers passed."""

    level: str | None
    passed: frozenset[str] = frozenset()

    def describe(self, kind: str = "") -> str:
        if not self.level:
            return "not proved"
        extra = ", no numeric check passed" if kind == "numeric" else ""
        return f"recorded level {self.level}{extra}"


def supports(kind: str, ev: Evidence) -> bool:
    if kind == "formal":
        return ev.level == "formal"
    if kind == "smt":
        return ev.level == "smt" or (ev.level == "formal" and bool({"z3", "cvc5"} & ev.passed))
    if kind == "machine":
        return ev.level in ("formal", "smt")
    return ev.level is not None and "falsifier" in ev.passed  # numeric


@dataclass
class Records:
    """Evidence per lemma id (and for the theorem), and how to spot a lemma named in text."""

    lemmas: dict[str, Evidence]
    theorem: Evidence
    _mentions: list[tuple[str, re.Pattern[str]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._mentions = [(lid, _mention_re(lid)) for lid in self.lemmas]

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
        proved = theory.status == "proved"
        theorem = Evidence(weakest_level(levels) if proved and levels else None)
        return cls(lemmas, theorem)

    def named(self, sentence: str) -> list[tuple[int, str]]:
        """(position, lemma id) of every lemma the sentence names."""
        return sorted((m.start(), lid) for lid, rx in self._mentions for m in rx.finditer(sentence))

    def everything(self) -> list[Evidence]:
        return [self.theorem, *self.lemmas.values()]


def _mention_re(lid: str) -> re.Pattern[str]:
    esc = re.escape(lid)
    forms = [
        rf"\blemma[~\s]*(?:\\ref\{{(?:lem:)?{esc}\}}|`?{esc}`?)(?![\w])",
        rf"\\(?:c|C|auto|name)?ref\{{(?:{re.escape(lemma_label(lid))}|lem:{esc})\}}",
        rf"(?<![\w:])lem:{esc}(?![\w])",
    ]
    return re.compile("|".join(forms), re.IGNORECASE)


def _mentions(sentence: str, records: Records) -> list[tuple[int, str]]:
    """(position, lemma id or THEOREM) of every result the sentence names."""
    theorem = [(m.start(), THEOREM) for m in THEOREM_MENTION.finditer(sentence)]
    return sorted(records.named(sentence) + theorem)


# after the last claim, results named past one of these are not what it speaks about
# ("Lemma L3 was checked by Z3, while Lemma L2 rests on review")
_CONTRAST = re.compile(r"\b(?:while|whereas|but|except|although|though|however|unlike|only)\b", re.IGNORECASE)
_CLAUSE = re.compile(rf";|{_CONTRAST.pattern}", re.IGNORECASE)  # a claim's subjects are named in its clause


def _subjects(sentence: str, records: Records) -> Iterator[tuple[str, list[str]]]:
    """(kind, results it is about) for each claim: every result named since the previous claim
    ("Lemma L1 and Lemma L2 were verified in Coq"), and after the last claim every one named
    before a contrast ("An automated prover verified Lemma L1 and Lemma L2")."""
    named = _mentions(sentence, records)
    claims = claims_in(sentence)
    prev = -1
    for i, (pos, kind) in enumerate(claims):
        start = prev
        for m in _CLAUSE.finditer(sentence, max(prev, 0), pos):
            start = m.end()  # "L2 was reviewed only; L3 was proved by Z3": the claim is about L3
        about = [lid for p, lid in named if start < p <= pos]
        if i == len(claims) - 1:
            tail = sentence[pos:]
            stop = _CONTRAST.search(tail)
            limit = pos + (stop.start() if stop else len(tail))
            about += [lid for p, lid in named if pos < p < limit]
        prev = pos
        yield kind, list(dict.fromkeys(about))


def _evidence(records: Records, lid: str) -> Evidence:
    return records.theorem if lid == THEOREM else records.lemmas[lid]


def _unsupported(
    sentence: str, records: Records, default: list[Evidence], *, numeric_needs_lemma: bool = False
) -> str | None:
    """What the records say instead of a claim of the sentence, or None when every claim holds.
    A claim naming no lemma is judged against `default`; with `numeric_needs_lemma` a numeric
    claim naming none passes (the prose's "numerically verified" is about the experiments)."""
    for kind, about in _subjects(sentence, records):
        if not about and kind == "numeric" and numeric_needs_lemma:
            continue
        for ev in [_evidence(records, lid) for lid in about] or default:
            if not supports(kind, ev):
                return ev.describe(kind)
    return None


def _sentences(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    spans, start = [], lo
    for m in _BOUNDARY.finditer(text, lo, hi):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, hi))
    return spans


def _spans(text: str) -> list[tuple[int, int]]:
    """The sentences; a LaTeX comment line is one of its own (it must not swallow the next line)."""
    spans, pos = [], 0
    for m in _COMMENT_LINE.finditer(text):
        spans += [*_sentences(text, pos, m.start()), (m.start(), m.end())]
        pos = m.end()
    spans += _sentences(text, pos, len(text))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def _balanced(piece: str) -> bool:
    unescaped = re.sub(r"\\[{}$]", "", piece)
    return (
        unescaped.count("{") == unescaped.count("}") and unescaped.count("$") % 2 == 0 and not _STRUCTURE.search(piece)
    )


def _safe_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span to replace: the sentence, or the part of it between LaTeX structure (an
    environment edge, display math) around the claim; None when no part can go without
    breaking the LaTeX at the sentence's own level."""
    if _balanced(text[start:end]):
        return start, end
    piece = text[start:end]
    cuts = [0, *[p for m in _STRUCTURE.finditer(piece) for p in (m.start(), m.end())], len(piece)]
    for a, b in zip(cuts[::2], cuts[1::2], strict=False):
        sub = piece[a:b]
        if claims_in(sub) and _balanced(sub):
            lead = len(sub) - len(sub.lstrip())
            return start + a + lead, start + a + len(sub.rstrip())
    return None


def _groups_around(text: str, pos: int) -> list[tuple[int, int]]:
    """(open, close) of each brace group enclosing `pos`, innermost first."""
    stack: list[int] = []
    groups = []
    for i, ch in enumerate(text):
        if ch not in "{}" or (i and text[i - 1] == "\\"):
            continue
        if ch == "{":
            stack.append(i)
        elif stack:
            o = stack.pop()
            if o < pos < i:
                groups.append((o, i))
    return groups


def _group_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    """When the sentence straddles a brace ("\\emph{Note. This was verified in Coq.}"): its
    part inside the smallest group around the claim that can go alone; the macro stays valid."""
    claims = claims_in(text[start:end])
    if not claims:
        return None
    for o, c in _groups_around(text, start + claims[0][0]):
        a, b = max(start, o + 1), min(end, c)
        piece = text[a:b]
        if not (_balanced(piece) and claims_in(piece)):
            continue
        return a + len(piece) - len(piece.lstrip()), a + len(piece.rstrip())
    return None


KEPT_NOTE = "[the claim of machine verification before this note is not backed by the records: {why}]"


def _rewrite(text: str, judge: Callable[[str], str | None], replacement: str | None) -> tuple[str, list[str]]:
    """`text` with each sentence `judge` rejects replaced by a note, or dropped (None); a
    sentence no part of which can go without breaking the LaTeX stays, followed by a note."""
    out: list[str] = []
    removed: list[str] = []
    last = 0
    for start, end in _spans(text):
        bad = judge(text[start:end])
        if bad is None:
            continue
        span = _safe_span(text, start, end) or _group_span(text, start, end)
        if span is None:
            out += [text[last:end], " " + KEPT_NOTE.format(why=bad)]
            removed.append(bad)
            last = end
            continue
        between = text[last : span[0]]
        # consecutive removals in a proof leave one note, not a row of them
        merged = bool(removed) and not between.strip()
        removed.append(bad)
        if not merged:
            out.append(between)
            if replacement is not None:  # a note replacing a comment line stays a comment
                out.append(("% " if text[span[0]] == "%" else "") + replacement.format(why=bad))
        last = span[1]
        if replacement is None:  # a dropped sentence takes its trailing blank with it
            last += len(text[last:]) - len(text[last:].lstrip(" \t"))
    if not removed:
        return text, []
    out.append(text[last:])
    joined = "".join(out)
    return (joined.strip() if replacement is None else joined), removed


PROOF_NOTE = "[a claim of machine verification was removed: {why}]"


def check_proof(text: str, own: Evidence, records: Records) -> tuple[str, int]:
    """(the proof with unsupported verification claims replaced by a note, how many). A claim
    naming no lemma is about the proof's own result."""
    new, removed = _rewrite(text, lambda s: _unsupported(s, records, [own]), PROOF_NOTE)
    return new, len(removed)


def check_prose_text(text: str, records: Records) -> tuple[str, int]:
    """(the prose without sentences claiming more machine verification than the records, how
    many). A claim naming no lemma is about every result, so the weakest decides; such a numeric
    claim is about the experiments (which do check the bounds numerically) and stays."""
    new, removed = _rewrite(
        text, lambda s: _unsupported(s, records, records.everything(), numeric_needs_lemma=True), None
    )
    return new, len(removed)


def removed_count(notes: list[str]) -> int:
    """How many claims the notes say were removed (for the terminal summary and eval)."""
    total = 0
    for note in notes:
        if note.startswith(NOTE_PREFIX):
            m = re.search(r": (\d+) ", note)
            total += int(m.group(1)) if m else 1
    return total


def _note(n: int, where: str, why: str) -> str:
    return f"{NOTE_PREFIX}: {n} sentence(s) {where} claimed a check the records do not show ({why})"


def scrub_proof(
    text: str | None, own: Evidence, records: Records, where: str, notes: list[str], part: str = "proof"
) -> str | None:
    """check_proof for a proof (or a model-written statement, `part`) that may be absent, with a
    note when anything was removed."""
    if not text:
        return text
    new, n = check_proof(text, own, records)
    if n:
        notes.append(_note(n, f"in the {part} of {where}", f"{own.describe()}; replaced by a bracketed note"))
    return new


def scrub_prose(prose: dict[str, str], records: Records, notes: list[str]) -> tuple[dict[str, str], bool]:
    """(the prose with unsupported claims dropped, whether the title had one: the caller
    replaces it, a title cannot lose a sentence)."""
    out = dict(prose)
    title_bad = (
        _unsupported(prose.get("title") or "", records, records.everything(), numeric_needs_lemma=True) is not None
    )
    for name, text in prose.items():
        if name == "title" or not text:
            continue
        new, n = check_prose_text(text, records)
        if n:
            out[name] = new
            notes.append(_note(n, f"of the {name.replace('_', ' ')}", "they were dropped"))
    if title_bad:
        notes.append(_note(1, "of the title", "a title from the statement was used"))
    return out, title_bad
