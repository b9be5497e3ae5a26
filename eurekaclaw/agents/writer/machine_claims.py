"""Claims of machine verification in model-written text, checked against the recorded levels.

A prover may write "this lemma was formally verified in Coq" or "checked by Z3" into a proof,
and the prose may say "all lemmas were machine-checked", while the records say `reviewed`.
Readers believe such a sentence more than the level tag beside it, so each one is kept only
when the records back it:

- formal (Coq, Lean, a proof assistant or kernel, "formally verified"): level `formal`;
- smt (Z3, cvc5, an SMT solver): level `smt`, or `formal` with a passed Z3/cvc5 check;
- machine ("machine-checked", "mechanically verified"): level `formal` or `smt`;
- numeric ("numerically verified"): a passed falsifier check in the lemma's records.

The subject is the lemma a sentence names ("Lemma~\\ref{lem:L3} was checked by Z3"); a sentence
naming none speaks about its own proof's lemma, or in the prose about every result (so the
weakest level decides). Negated claims ("we did not verify this in Coq") pass. In a proof the
sentence becomes a bracketed note, so the reader sees that something was taken out; in the
prose it is dropped. Only the offending sentence changes: the rest keeps its bytes (a joined
line could otherwise fall into a LaTeX comment).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from eurekaclaw.agents.writer.labels import lemma_label
from eurekaclaw.types.artifacts import TheoryState, weakest_level

NOTE_PREFIX = "removed claim(s) of machine verification"
THEOREM = "*theorem*"

_VERB = (
    r"(?:verif(?:y|ies|ied)|check(?:s|ed)?|prov(?:e|es|ed|en)|certif(?:y|ies|ied)|confirm(?:s|ed)?|"
    r"accept(?:s|ed)?|validat(?:e|es|ed)|discharg(?:e|es|ed)|type[\s-]?checked|compiled)"
)
_GAP = r"(?:[\w,'~\\{}:-]+\s+){0,4}?"
# names of tools are matched case-sensitively: "lean" and "kernel" are also plain words
_ASSISTANT = (
    r"(?:(?-i:Coq|Lean\s?4?|Isabelle(?:/HOL)?|Agda|HOL\s?Light)|(?:an?\s+|the\s+)?proof\s+assistant|"
    r"(?:the\s+|a\s+|its\s+)?(?:proof|(?-i:Coq|Lean))(?:'s)?\s+kernel)"
)
_SOLVER = r"(?:(?:an?\s+|the\s+)?(?-i:SMT)(?:[\s-]solvers?)?|Z3|cvc5|CVC5)"
_SUBJECT_VERB = r"(?:\s+(?:has|have|had))?\s+(?:fully\s+|also\s+)?" + _VERB
_BY = r"(?:in|by|with|using|through)\s+"


def _any(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(alternatives), re.IGNORECASE)


# kind -> the phrases that claim it; "formal proof" alone is not one (it also means "rigorous")
PATTERNS: dict[str, re.Pattern[str]] = {
    "formal": _any(
        r"\bformal(?:ly)?[\s-]+(?:verified|checked|certified|machine[\s-]checked)",
        r"\b(?:type|kernel)[\s-]checked\b",
        r"\bformali[sz]ed\s+(?:and\s+(?:verified|checked)\s+)?in\s+(?-i:Coq|Lean)",
        rf"\b{_VERB}\s+{_GAP}{_BY}{_ASSISTANT}\b",
        rf"\b(?:(?-i:Coq|Lean|Isabelle)|the\s+proof\s+assistant){_SUBJECT_VERB}\b",
    ),
    "smt": _any(
        rf"\b{_VERB}\s+{_GAP}{_BY}{_SOLVER}\b", rf"\b(?:Z3|cvc5|SMT(?:[\s-]solvers?)?|the\s+solver){_SUBJECT_VERB}\b"
    ),
    "machine": _any(
        r"\bmachine[\s-](?:checked|verified|certified|proved|proven|checkable\s+proof)",
        r"\bmechani(?:cally|sed|zed)[\s-]+(?:verified|checked|proved|proven|certified)",
        r"\bcomputer[\s-](?:verified|checked|assisted\s+proof)",
        rf"\b{_VERB}\s+{_GAP}by\s+(?:an?\s+|the\s+)?(?:computer|machine|automated\s+(?:checker|prover|tool))\b",
    ),
    "numeric": _any(
        r"\bnumerically\s+(?:verified|checked|confirmed|validated|tested)",
        r"\b(?:verified|checked|confirmed|validated)\s+numerically\b",
        r"\bnumerical(?:ly)?\s+(?:checks?|tests?|verification|falsification)\s+"
        r"(?:confirms?|confirmed|verif(?:y|ies|ied)|show(?:s|ed)?|passed)\b",
    ),
}
# a negation shortly before the claim: "did not verify this in Coq", "rather than by Z3"
_NEGATION = re.compile(
    r"(?:\b(?:not|no|never|neither|nor|without|lacks?|lacking|cannot|than|instead\s+of|whether|unless|"
    r"yet\s+to\s+be|could\s+be|would\s+be|might|may|future)\b|n't)\W*(?:[\w~\\{}:-]+\W+){0,4}$",
    re.IGNORECASE,
)
_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\$(\[`\"'])|\n[ \t]*\n")
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


def claims_in(sentence: str) -> list[tuple[int, str]]:
    """(position, kind) of each machine verification the sentence claims; negated claims
    ("did not verify this in Coq", "rather than by Z3") excluded."""
    found = []
    for kind, rx in PATTERNS.items():
        for m in rx.finditer(sentence):
            if not _NEGATION.search(sentence[max(0, m.start() - 60) : m.start()]):
                found.append((m.start(), kind))
    return sorted(found)


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


def _subject(named: list[tuple[int, str]], pos: int) -> str | None:
    """The lemma a claim at `pos` is about: the nearest one named before it, else the first after."""
    before = [lid for p, lid in named if p <= pos]
    after = [lid for p, lid in named if p > pos]
    return before[-1] if before else (after[0] if after else None)


def _unsupported(
    sentence: str, records: Records, default: list[Evidence], *, numeric_needs_lemma: bool = False
) -> str | None:
    """What the records say instead of a claim of the sentence, or None when every claim holds.
    A claim naming no lemma is judged against `default`; with `numeric_needs_lemma` a numeric
    claim naming none passes (the prose's "numerically verified" is about the experiments)."""
    named = records.named(sentence)
    for pos, kind in claims_in(sentence):
        lid = _subject(named, pos)
        if lid is None and kind == "numeric" and numeric_needs_lemma:
            continue
        for ev in [records.lemmas[lid]] if lid is not None else default:
            if not supports(kind, ev):
                return ev.describe(kind)
    return None


def _spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in _BOUNDARY.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def _balanced(piece: str) -> bool:
    unescaped = re.sub(r"\\[{}$]", "", piece)
    return (
        unescaped.count("{") == unescaped.count("}") and unescaped.count("$") % 2 == 0 and not _STRUCTURE.search(piece)
    )


def _safe_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span to replace: the sentence, or the part of it between LaTeX structure (an
    environment edge, display math) around the claim; None when no part can go without
    breaking the LaTeX (the sentence then stays, the note is still counted)."""
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


def _rewrite(text: str, judge: Callable[[str], str | None], replacement: str | None) -> tuple[str, list[str]]:
    """`text` with each sentence `judge` rejects replaced by a note, or dropped (None)."""
    out: list[str] = []
    removed: list[str] = []
    last = 0
    for start, end in _spans(text):
        bad = judge(text[start:end])
        if bad is None:
            continue
        span = _safe_span(text, start, end)
        if span is None:
            continue
        between = text[last : span[0]]
        # consecutive removals in a proof leave one note, not a row of them
        merged = bool(removed) and not between.strip()
        removed.append(bad)
        if not merged:
            out.append(between)
            if replacement is not None:
                out.append(replacement.format(why=bad))
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


def scrub_proof(text: str | None, own: Evidence, records: Records, where: str, notes: list[str]) -> str | None:
    """check_proof for a proof that may be absent, with a note when anything was removed."""
    if not text:
        return text
    new, n = check_proof(text, own, records)
    if n:
        notes.append(_note(n, f"in the proof of {where}", f"{own.describe()}; replaced by a bracketed note"))
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
