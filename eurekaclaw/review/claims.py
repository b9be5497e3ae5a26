"""A mechanical check of text against the session's verification records.

A sentence that says a lemma is "formally verified" when its record says `reviewed`, calls a
self-reviewed proof "independently reviewed", or says an open lemma or an unproved theorem was
"proved", claims more than the records say. Each such sentence is found with the lemma (or the
theorem, or "all results") it speaks about and what the records say instead; the callers drop it
and show the correction. Negated claims ("not formally verified", "rather than by Z3") pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eurekaclaw.agents.writer.doc import LemmaView, PaperDoc
from eurekaclaw.types.artifacts import level_rank

# a claim's minimum level_rank (formal 5 ... unverified 1); "proved" asks only for the status
CLAIM_RANK = {"formal": 5, "smt": 4, "reviewed": 3, "verified": 2, "proved": 1}

_VERB = r"(?:proved|proven|verified|checked|certified|discharged|confirmed|accepted|established)"
_GAP = r"(?:[\w,]+\s+){0,3}?"
CLAIM_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "formal",
        re.compile(
            r"formal(?:ly)?[\s-]+(?:verified|proved|proven|checked|certified)|type[\s-]checked|"
            r"kernel[\s-]checked|fully[\s-]verified|\bformal (?:proof|verification)\b|"
            rf"{_VERB}\s+{_GAP}by\s+(?:the\s+)?(?:proof\s+|Coq\s+|Lean\s+)?kernel\b|"
            rf"{_VERB}\s+{_GAP}(?:in|by|with|using)\s+(?:an?\s+|the\s+)?(?:Coq|Lean|proof assistant)\b|"
            rf"\b(?:Coq|Lean)(?:'s kernel)?\s+(?:has\s+|have\s+)?{_VERB}|"
            r"\blevel\W{0,3}formal\b",
            re.IGNORECASE,
        ),
    ),
    (
        "smt",
        re.compile(
            rf"{_VERB}\s+{_GAP}(?:by|with|using|in)\s+(?:an?\s+|the\s+)?(?:SMT|Z3|cvc5)\b|"
            rf"\b(?:SMT|Z3|cvc5)(?:[\s-]solvers?)?[\s-]+(?:has\s+|have\s+)?{_VERB}|\blevel\W{{0,3}}smt\b|"
            # a machine check of some kind: at least an SMT proof
            r"\bmachine[\s-](?:checked|verified|proved|proven|certified)|"
            r"\bmechani(?:cally|sed|zed)[\s-]+(?:verified|proved|proven|checked|certified)",
            re.IGNORECASE,
        ),
    ),
    (
        "reviewed",
        re.compile(
            r"\b(?:is|are|was|were|been|being)\s+(?:\w+\s+){0,2}?reviewed\b|\blevel\W{0,3}reviewed\b|"
            r"\breview(?:ers?)?\s+(?:found|passed|confirmed)",
            re.IGNORECASE,
        ),
    ),
    ("verified", re.compile(r"\b(?:verified|certified)\b", re.IGNORECASE)),
    ("proved", re.compile(r"\b(?:proved|proven|established)\b", re.IGNORECASE)),
)
INDEPENDENT = re.compile(
    r"\bindependent(?:ly)?\b[^.;]*\breview|\breview\w*\b[^.;]*\bindependent(?:ly)?\b", re.IGNORECASE
)
# a negation shortly before the claim: "not formally verified", "rather than by Z3", "isn't proved"
_NEGATION = re.compile(
    r"(?:\b(?:not|no|never|neither|nor|without|lacks?|lacking|cannot|than|instead of|whether|unless)\b|n't)"
    r"\W*(?:[\w:]+\W+){0,4}$",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\$`(\"'*])")
_PRONOUN_START = re.compile(r"^\W*(?:it|its|this|these|they|their|both|the proof|that proof)\b", re.IGNORECASE)
_ALL = re.compile(
    r"\b(?:all|every|each|both|entire|whole|the)\s+(?:\w+\s+){0,2}?"
    r"(?:lemmas|results|proofs|steps|statements)\b|\beverything\b|"
    r"\bthe\s+(?:whole|entire|full|complete)\s+(?:proof|argument|paper|analysis)\b",
    re.IGNORECASE,
)
_THEOREM = re.compile(
    r"\bmain\s+(?:theorem|result|statement|conjecture|claim)\b|\bthe\s+(?:theorem|conjecture)\b|"
    r"\bthm:main\b|\b(?:Theorem|Conjecture)[~\s]*\\ref\{thm:main\}|\btheorem:main\b",
    re.IGNORECASE,
)
ALL = "*all*"
THEOREM = "*theorem*"


@dataclass
class Overclaim:
    sentence: str
    subject: str  # a lemma id, THEOREM or ALL
    claimed: str  # formal | smt | reviewed | verified | proved | independent review
    recorded: str  # what the records say, one line

    def correction(self) -> str:
        what = {"proved": "proved", "verified": "verified", "independent review": "independently reviewed"}
        claim = what.get(self.claimed, f"at level {self.claimed}")
        return f"{self.recorded} — not {claim} as the text said"


def record_text(lem: LemmaView) -> str:
    if lem.status != "proved":
        return f"Lemma {lem.id} is {lem.status}: it is not established"
    level = lem.level or "unverified"
    who = " (a self-review: the reviewing model wrote the proof)" if lem.self_review and level == "reviewed" else ""
    return f"Lemma {lem.id} is recorded at level {level}{who}"


def theorem_text(doc: PaperDoc) -> str:
    if doc.proved:
        return f"the main theorem is proved with weakest level {doc.weakest}"
    return f"the main statement is not proved (status {doc.theorem_status})"


def split_sentences(paragraph: str) -> list[str]:
    return [s for s in _SENTENCE.split(paragraph) if s.strip()]


class ClaimChecker:
    def __init__(self, doc: PaperDoc) -> None:
        self.doc = doc
        self.lemmas = {lem.id: lem for lem in doc.lemmas}
        self._mentions = [(lid, self._mention_re(lem)) for lid, lem in self.lemmas.items()]

    @staticmethod
    def _mention_re(lem: LemmaView) -> re.Pattern[str]:
        lid = re.escape(lem.id)
        forms = [
            rf"\blemma[~\s]*(?:\\ref\{{(?:lem:)?{lid}\}}|`?{lid}`?)(?![\w])",
            rf"\\ref\{{{re.escape(lem.label)}\}}",
            rf"(?<![\w:])(?:lem|lemma):{lid}(?![\w])",
            rf"`{lid}`",
            rf"(?<![\w\\]){lid}\s+lemma\b",  # "the gap lemma"
        ]
        if re.search(r"[\d_.:]|[A-Z]", lem.id):  # "L2", "pull_event": distinctive enough alone
            forms.append(rf"(?<![\w\\{{:]){lid}(?![\w])")
        return re.compile("|".join(forms), re.IGNORECASE)

    def _subjects(self, sentence: str) -> list[tuple[int, str]]:
        found = [(m.start(), lid) for lid, rx in self._mentions for m in rx.finditer(sentence)]
        found += [(m.start(), THEOREM) for m in _THEOREM.finditer(sentence)]
        found += [(m.start(), ALL) for m in _ALL.finditer(sentence)]
        return sorted(found)

    def _holds(self, subject: str, claim: str) -> tuple[bool, str]:
        """(whether the records support `claim` about `subject`, what the records say)."""
        need = CLAIM_RANK.get(claim, 0)
        if subject == THEOREM:
            ok = self.doc.proved and (claim == "proved" or level_rank(self.doc.weakest) >= need)
            return ok, theorem_text(self.doc)
        if subject == ALL:
            views = list(self.lemmas.values())
            bad = [v for v in views if v.status != "proved" or level_rank(v.level or "unverified") < need]
            if claim == "proved":
                bad = [v for v in views if v.status != "proved"]
            if not bad:
                return True, ""
            return False, "; ".join(record_text(v) for v in bad[:4]) + ("; ..." if len(bad) > 4 else "")
        lem = self.lemmas[subject]
        if claim == "independent review":
            return not (lem.self_review and lem.level == "reviewed"), record_text(lem)
        ok = lem.status == "proved" and (claim == "proved" or level_rank(lem.level or "unverified") >= need)
        return ok, record_text(lem)

    def check_sentence(self, sentence: str, carried: str | None) -> list[Overclaim]:
        subjects = self._subjects(sentence)
        claims: list[tuple[int, str]] = []
        for name, rx in CLAIM_PATTERNS:
            for m in rx.finditer(sentence):
                if not _NEGATION.search(sentence[max(0, m.start() - 60) : m.start()]):
                    claims.append((m.start(), name))
        for m in INDEPENDENT.finditer(sentence):
            if not _NEGATION.search(sentence[max(0, m.start() - 60) : m.start()]):
                claims.append((m.start(), "independent review"))
        found: dict[str, Overclaim] = {}
        for pos, claim in claims:
            before = [s for p, s in subjects if p <= pos]
            after = [s for p, s in subjects if p > pos]
            subject = before[-1] if before else (after[0] if after else carried)
            if subject is None or (claim == "independent review" and subject in (THEOREM, ALL)):
                continue
            ok, recorded = self._holds(subject, claim)
            if ok:
                continue
            known = found.get(subject)
            if known is None or CLAIM_RANK.get(claim, 6) > CLAIM_RANK.get(known.claimed, 6):
                found[subject] = Overclaim(sentence.strip(), subject, claim, recorded)
        return list(found.values())

    def check(self, text: str) -> tuple[str, list[Overclaim]]:
        """(the text without the sentences that claim more than the records, those claims)."""
        kept_paragraphs: list[str] = []
        overclaims: list[Overclaim] = []
        for paragraph in (text or "").split("\n\n"):
            carried: str | None = None
            kept: list[str] = []
            dropped = 0
            for sentence in split_sentences(paragraph):
                subjects = self._subjects(sentence)
                use = carried if _PRONOUN_START.match(sentence) else None
                bad = self.check_sentence(sentence, use)
                if bad:
                    overclaims.extend(bad)
                    dropped += 1
                else:
                    kept.append(sentence)
                if subjects:
                    carried = subjects[-1][1]
            if not dropped:
                kept_paragraphs.append(paragraph)  # untouched: its line breaks (lists) stay
            elif kept:
                kept_paragraphs.append(" ".join(kept))
        if not overclaims:
            return text, []
        return "\n\n".join(kept_paragraphs), overclaims
