"""Model text in `review` (answers, revision reasons) through the one door (eurekaclaw/model_text).

Deny by default: a sentence of the model that speaks of how anything was checked (verified,
formalised, a kernel, a solver, a review, a tool's name) or states a proof status of our results
("proved", "established") is not shown, true or not; what the records say about the result it
speaks of is shown instead, written by us. The result is the lemma the sentence names, the one a
pronoun carries over from the previous sentence, "all results", or otherwise the main theorem (a
sentence with no named subject, and the root lemma, are about the main theorem).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eurekaclaw.agents.writer.doc import LemmaView, PaperDoc
from eurekaclaw.model_text import Finding, exempt_view, for_display, judge, split, strip_forged

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
    """A sentence of the model that was not shown, the result it spoke of and what the records say."""

    sentence: str
    subject: str  # a lemma id, THEOREM or ALL
    claimed: str  # why it was refused (Finding.describe())
    recorded: str  # what the records say, one line

    def correction(self) -> str:
        return f"{self.recorded} (a sentence of the model was not shown: {self.claimed})"


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
    return split(paragraph)


class ClaimChecker:
    def __init__(self, doc: PaperDoc) -> None:
        self.doc = doc
        self.lemmas = {lem.id: lem for lem in doc.lemmas}
        self._mentions = [(lid, self._mention_re(lem)) for lid, lem in self.lemmas.items()]
        self._exempt = (exempt_view(doc.theorem_statement),) if doc.theorem_statement.strip() else ()

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

    def _recorded(self, subject: str) -> str:
        if subject == THEOREM:
            return theorem_text(self.doc)
        if subject == ALL:
            views = list(self.lemmas.values())
            return "; ".join(record_text(v) for v in views[:4]) + ("; ..." if len(views) > 4 else "") or theorem_text(
                self.doc
            )
        return record_text(self.lemmas[subject])

    def refused(self, sentence: str) -> Finding | None:
        return judge(sentence, mode="prose", proved=self.doc.proved, exempt=self._exempt)

    def check_sentence(self, sentence: str, carried: str | None) -> list[Overclaim]:
        """The sentence's results with what the records say, when the sentence may not be shown."""
        found = self.refused(sentence)
        if found is None:
            return []
        named = list(dict.fromkeys(s for _, s in self._subjects(sentence)))
        subjects = named or [carried or THEOREM]
        return [Overclaim(sentence.strip(), s, found.describe(), self._recorded(s)) for s in subjects]

    def check(self, text: str) -> tuple[str, list[Overclaim]]:
        """(the text without the sentences the door refuses, what the records say instead)."""
        clean, _forged = strip_forged(for_display(text or ""))
        kept_paragraphs: list[str] = []
        overclaims: list[Overclaim] = []
        for paragraph in clean.split("\n\n"):
            carried: str | None = None
            kept: list[str] = []
            dropped = 0
            for sentence in split_sentences(paragraph):
                subjects = self._subjects(sentence)
                bad = self.check_sentence(sentence, carried if _PRONOUN_START.match(sentence) else None)
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
            return clean, []
        return "\n\n".join(kept_paragraphs), overclaims
