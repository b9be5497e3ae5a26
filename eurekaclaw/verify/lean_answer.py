"""A model's Lean answer taken apart into helpers and a tactic script (the Lean side of
coq_answer.py).

The gate wants the tactics of `theorem eureka_claim : <statement> := by`; a capable model often
sends a whole file instead: `import Mathlib`, `open Real`, one or more `theorem NAME ... := by ...`
declarations, inside a Markdown fence. Such an answer (one with a `theorem`/`lemma` declaration
at the start of a line) becomes helpers, minus the `import Mathlib...` lines (the gate's header
imports all of Mathlib; any other import stays, for the scan to refuse), and the script closes the
generated statement from the model's theorems, the last one first (`closing_script`). The scan,
the gate and the axiom report then apply as to any answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eurekaclaw.verify.formal import LexError, blank_lean

RESERVED = "eureka_claim"
RENAMED = "eureka_claim_model"
MAX_CLOSER_NAMES = 3

_FENCED = re.compile(r"^[ \t]*```[\w-]*[ \t]*\n(.*?)^[ \t]*```[ \t]*$", re.M | re.S)
_FENCE_LINE = re.compile(r"^[ \t]*```[\w-]*[ \t]*$\n?", re.M)
_DECLARATION = re.compile(
    r"^(?:@\[[^\]\n]*\][ \t]*\n?)?(?:(?:private|protected|noncomputable|nonrec)[ \t]+)*"
    r"(?:theorem|lemma)[ \t]+([^\s:({\[]+)",
    re.M,
)
_MATHLIB_IMPORT = re.compile(r"^import[ \t]+Mathlib(?:\.[\w.]+)?[ \t]*$\n?", re.M)


@dataclass(frozen=True)
class LeanAnswer:
    helpers: str
    script: str
    theorems: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return bool(self.notes)


def _unfence(text: str) -> str:
    if "```" not in text:
        return text
    blocks = _FENCED.findall(text)
    return "\n".join(blocks) if blocks else _FENCE_LINE.sub("", text)


def split_lean_answer(text: str) -> LeanAnswer:
    """The answer's parts; an answer without a theorem declaration is returned as the script."""
    source = _unfence(text)
    try:
        blanked = blank_lean(source)
    except LexError:
        return LeanAnswer("", text, (), ())
    names = [m.group(1) for m in _DECLARATION.finditer(blanked)]
    if not names:
        return LeanAnswer("", text, (), ())
    notes = ["the Markdown fence was removed"] if source is not text else []
    # Imports are whole lines outside comments: find them on the blanked text, cut the source.
    cuts = [(m.start(), m.end()) for m in _MATHLIB_IMPORT.finditer(blanked)]
    for start, end in reversed(cuts):
        source = source[:start] + source[end:]
    if cuts:
        notes.append("the Mathlib imports were dropped (the header imports Mathlib)")
    if RESERVED in names:
        source = re.sub(rf"(?<![\w.']){RESERVED}(?![\w'])", RENAMED, source)
        names = [RENAMED if n == RESERVED else n for n in names]
        notes.append(f"your theorem {RESERVED} was renamed {RENAMED} (the name is the gate's)")
    notes.append(f"{', '.join(names)} became helper{'s' if len(names) > 1 else ''}")
    notes.append("the generated statement is closed from " + " or ".join(reversed(names[-MAX_CLOSER_NAMES:])))
    return LeanAnswer(source.strip("\n"), closing_script(names), tuple(names), tuple(notes))


def closing_script(names: list[str] | tuple[str, ...]) -> str:
    """`first` over closers, each of which must leave no goal (`done`): the theorem itself with
    every argument explicit, then applied with its side conditions left to `assumption` or
    `linarith`, then `linarith`/`nlinarith` alone."""
    alternatives = []
    for name in list(reversed(names))[:MAX_CLOSER_NAMES]:
        alternatives += [
            f"exact @{name}",
            f"exact {name}",
            f"(intros; apply {name} <;> assumption; done)",
            f"(intros; apply {name} <;> linarith; done)",
        ]
    alternatives += ["(intros; linarith; done)", "(intros; nlinarith; done)"]
    return "first\n" + "\n".join(f"  | {a}" for a in alternatives)


def describe(answer: LeanAnswer) -> str:
    return ("your formal_proof was taken apart: " + "; ".join(answer.notes)) if answer.notes else ""
