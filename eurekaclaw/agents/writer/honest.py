"""The model's prose through the writer's checks before it is stored (and again whenever a paper is
built, machine_claims.py): no sentence on checks or proof status (the records say those), no title
that claims a proof or restates the statement in the model's own formulas (a title built from the
user's statement replaces it).
"""

from __future__ import annotations

import re

from eurekaclaw.agents.writer.machine_claims import Records, scrub_prose
from eurekaclaw.types.artifacts import TheoryState

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


def check_prose(prose: dict[str, str], theory: TheoryState, fallback_title: str) -> tuple[dict[str, str], list[str]]:
    """(prose through the door, notes): sentences on checks or proof status dropped (the generated
    status sentence in their place), repeats across sections kept once, and a title that claims a
    proof (or speaks of checks) replaced by the fallback title."""
    notes: list[str] = []
    out, title_bad = scrub_prose(prose, Records.from_theory(theory), notes)
    if title_bad:
        out["title"] = fallback_title
    return out, notes
