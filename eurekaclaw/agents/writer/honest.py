"""A mechanical check of the model's prose against the theory status.

When the main statement is not proved, sentences that say it was ("we prove", "we show that",
"a new theorem", "Theorem 4") are dropped, and a title that claims a proof is replaced by one
built from the user's own statement. The fixed abstract suffix (doc.py) then says what was and
was not established; the prose can no longer contradict it.
"""

from __future__ import annotations

import re

CLAIM_RE = re.compile(
    r"\b(?:we|this (?:paper|work|note|article)|our (?:main )?result)\s+"
    r"(?:(?:rigorously|formally|successfully|also|then|first)\s+)?"
    r"(?:prove|proves|proved|show|shows|showed|establish|establishes|established|demonstrate|demonstrates|"
    r"derive|derives|obtain|obtains|settle|settles|resolve|resolves)\b"
    r"|\bnew theorem\b|\bTheorem[~\s]*\\?(?:ref\{[^}]*\}|\d+)|\bis proved\b|\bhas been proved\b|\bwe have proved\b",
    re.IGNORECASE,
)
TITLE_CLAIM_RE = re.compile(r"\b(?:proof|proving|proved|theorem)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\$])")


_INLINE_MATH = re.compile(r"\$([^$]+)\$|\\\((.+?)\\\)")


_SYMBOL = re.compile(r"\\[A-Za-z]+|[A-Za-z](?:_\{?[A-Za-z0-9]\}?)?")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def paraphrased_math(title: str, statements: list[str]) -> list[str]:
    """The title's formulas that do not appear verbatim (up to spaces) in the user's or the
    formal statement: a model's restatement of the conjecture, which may drop or add terms."""
    formulas: set[str] = set()
    symbols: set[str] = set()
    for text in statements:
        if not text.strip():
            continue
        inline = [a or b for a, b in _INLINE_MATH.findall(text)]
        formulas.update(_squash(f) for f in inline or [text])  # a bare formal statement is one formula
        for f in inline or [text]:
            symbols.update(_SYMBOL.findall(f))
    bad = []
    for found in (a or b for a, b in _INLINE_MATH.findall(title)):
        squashed = _squash(found)
        # a formula of the statement itself, or one of its symbols named alone ("$K$ arms")
        if squashed not in formulas and not (_SYMBOL.fullmatch(squashed) and squashed in symbols):
            bad.append(found)
    return bad


def check_title(prose: dict[str, str], statements: list[str], fallback_title: str) -> tuple[dict[str, str], list[str]]:
    """A title whose formulas are not the statement's own is replaced by the fallback title
    (built from the user's statement): the statement shown is never a model paraphrase."""
    bad = paraphrased_math(prose.get("title", ""), statements)
    if not bad:
        return prose, []
    return {**prose, "title": fallback_title}, [
        f"the model's title restated the statement in its own formulas ({', '.join(bad)[:120]}); "
        "a title from the user's statement was used"
    ]


def check_prose(prose: dict[str, str], proved: bool, fallback_title: str) -> tuple[dict[str, str], list[str]]:
    """(prose with offending sentences dropped, notes). Nothing changes when `proved`."""
    if proved:
        return prose, []
    out = dict(prose)
    notes: list[str] = []
    title = out.get("title", "")
    if TITLE_CLAIM_RE.search(title):
        out["title"] = fallback_title
        notes.append("the model's title claimed a proof of an unproved statement; a title from the statement was used")
    for name, text in prose.items():
        if name == "title" or not text:
            continue
        kept, dropped = [], 0
        for paragraph in text.split("\n\n"):
            sentences = _SENTENCE.split(paragraph)
            good = [s for s in sentences if not CLAIM_RE.search(s)]
            dropped += len(sentences) - len(good)
            if good:
                kept.append(" ".join(good))
        if dropped:
            out[name] = "\n\n".join(kept)
            notes.append(
                f"{dropped} sentence(s) of the {name.replace('_', ' ')} claiming a proof were dropped: "
                "the main statement is not proved"
            )
    return out, notes
