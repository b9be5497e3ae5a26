"""A model's Coq answer taken apart into what the gate checks: helpers and a proof script.

The gate wants only the tactics between its own `Proof.` and `Qed.`; capable models answer the
way they write Coq files: `Require` lines, a `Theorem NAME : ... Proof. ... Qed.` block (often
with another name, another but equivalent form, inside a Markdown fence), several lemmas.
Put inside the gate's proof as they are, these are "nested proofs" and fail although they prove
the statement. So the answer is read sentence by sentence (on the text with comments and strings
blanked, as Coq's lexer reads it; every piece keeps its original text):

- `Require`/`From ... Require` sentences move before everything else (the stdlib allow-list of
  coq_refusals still applies to them);
- closed statement blocks (`Theorem/Lemma/... Proof. ... Qed.`) and other commands outside a
  proof (definitions, `Open Scope`, sections, hints) become helpers, in their order;
- tactic sentences outside any block are the script; a lone `Proof.`/`Qed.` around them is ours;
- when no script is left, the script closes the generated statement from the model's theorems
  (last first) with a few standard closers (`closing_script`).

Nothing here decides what is proved: the statement is still the generated one, the gate, the
axiom report and every refusal apply to the result, so a wrong split can only make a proof fail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eurekaclaw.verify.formal import LexError, blank_coq

# The gate's own name in the proof file: a model theorem of that name is renamed.
RESERVED = "eureka_claim"
RENAMED = "eureka_claim_model"
MAX_CLOSER_NAMES = 3

_FENCE = re.compile(r"^[ \t]*```[\w-]*[ \t]*$\n?", re.M)
_OPENERS = frozenset({"Theorem", "Lemma", "Corollary", "Proposition", "Fact", "Remark", "Example", "Property", "Goal"})
# Commands that may enter proof mode when they have no `:=` body.
_DEFINERS = frozenset({"Definition", "Let", "Fixpoint", "CoFixpoint", "Instance", "Function"})
_ENDERS = frozenset({"Qed", "Defined", "Admitted", "Abort", "Save"})
_PREFIXES = frozenset(
    {"Local", "Global", "Polymorphic", "Monomorphic", "Program", "Fail", "Succeed", "Time", "Timeout"}
)
# Vernacular command words (a sentence starting with one outside a proof is a helper).
_COMMANDS = frozenset(
    {
        "Require",
        "From",
        "Import",
        "Export",
        "Open",
        "Close",
        "Set",
        "Unset",
        "Notation",
        "Infix",
        "Reserved",
        "Tactic",
        "Ltac",
        "Ltac2",
        "Hint",
        "Create",
        "Remove",
        "Arguments",
        "Implicit",
        "Section",
        "End",
        "Variable",
        "Variables",
        "Hypothesis",
        "Hypotheses",
        "Context",
        "Parameter",
        "Parameters",
        "Axiom",
        "Axioms",
        "Conjecture",
        "Opaque",
        "Transparent",
        "Strategy",
        "Check",
        "Print",
        "Search",
        "SearchPattern",
        "SearchRewrite",
        "Locate",
        "About",
        "Compute",
        "Eval",
        "Add",
        "Declare",
        "Module",
        "Include",
        "Load",
        "Scheme",
        "Inductive",
        "CoInductive",
        "Variant",
        "Record",
        "Structure",
        "Class",
        "Existing",
        "Canonical",
        "Coercion",
        "Bind",
        "Delimit",
        "Typeclasses",
        "Generalizable",
        "Universe",
        "Universes",
        "Constraint",
        "Primitive",
        "Register",
        "Extraction",
        "Equations",
        "Derive",
        "Obligation",
        "Obligations",
        "Next",
        "Solve",
        "Collection",
        "Redirect",
        "Comments",
        "Unshelve",
        "Functional",
        "Combined",
        "Cd",
        "Drop",
        "Reset",
        "Back",
        "BackTo",
    }
    | _OPENERS
    | _DEFINERS
)
_WORD = re.compile(r"[A-Za-z_][\w']*")
_LEAD = re.compile(r"(?:\s|[-+*{}]|#\[[^\]]*\])*")


@dataclass(frozen=True)
class CoqAnswer:
    requires: str  # Require sentences, to go first
    helpers: str  # the rest of the model's commands and closed statement blocks
    script: str  # the tactics for the gate's Proof. ... Qed.
    theorems: tuple[str, ...]  # names of the model's closed statements, in order
    notes: tuple[str, ...]  # what was done, for the verdict's detail

    @property
    def changed(self) -> bool:
        return bool(self.notes)


def _unfence(text: str) -> str:
    """The code of a Markdown answer: the fenced blocks' contents when there are closed fences
    (prose around them dropped), else the text without stray fence lines."""
    if "```" not in text:
        return text
    blocks = re.findall(r"^[ \t]*```[\w-]*[ \t]*\n(.*?)^[ \t]*```[ \t]*$", text, re.M | re.S)
    return "\n".join(blocks) if blocks else _FENCE.sub("", text)


def _sentences(blanked: str) -> list[tuple[int, int]]:
    """(start, end) of every sentence: up to a `.` followed by white space or the end (Coq's
    sentence end), plus what trails after the last one."""
    spans, start = [], 0
    for m in re.finditer(r"(?<!\.)\.(?=\s|\Z)", blanked):
        spans.append((start, m.end()))
        start = m.end()
    if blanked[start:].strip():
        spans.append((start, len(blanked)))
    return spans


def _head(sentence: str) -> tuple[str, str]:
    """The command word of a sentence (prefixes, attributes and bullets skipped) and the word
    after it ("" when none)."""
    rest = sentence[_LEAD.match(sentence).end() :]  # type: ignore[union-attr]
    words = _WORD.findall(rest[:400])
    while words and words[0] in _PREFIXES:
        words = words[1:]
    return (words[0] if words else "", words[1] if len(words) > 1 else "")


def split_coq_answer(text: str) -> CoqAnswer:
    """The answer's parts (see the module doc). Text that does not lex is returned as the script
    unchanged, for the scan to reject with the lexer's message."""
    source = _unfence(text)
    try:
        blanked = blank_coq(source)
    except LexError:
        return CoqAnswer("", "", text, (), ())
    requires, helpers, script, names, notes = [], [], [], [], []
    block: str | None = None  # the statement whose proof is open
    for start, end in _sentences(blanked):
        piece, word_and_next = source[start:end], _head(blanked[start:end])
        word, name = word_and_next
        if block is not None:
            helpers.append(piece)
            if word in _ENDERS:
                if block:
                    names.append(block)
                block = None
        elif word in ("Require", "From"):
            requires.append(piece)
        elif word in _OPENERS or (word in _DEFINERS and ":=" not in blanked[start:end]):
            helpers.append(piece)
            block = name if word in _OPENERS and word != "Goal" and _WORD.fullmatch(name) else ""
        elif word in ("Proof", "Qed", "Defined"):
            continue  # the gate's own Proof. / Qed. around a script (Admitted stays, to be refused)
        elif word in _COMMANDS:
            helpers.append(piece)
        else:
            script.append(piece)
    if block is not None:
        # Left open, it would swallow the gate's theorem; the scan names it (coq.py).
        notes.append(f"unclosed:{block or 'a statement'}")
    if source is not text:
        notes.append("the Markdown fence was removed")
    if not (requires or helpers) and not notes:
        return CoqAnswer("", "", text, (), ())
    return _assemble(requires, helpers, script, names, notes)


def _assemble(
    requires: list[str], helpers: list[str], script: list[str], names: list[str], notes: list[str]
) -> CoqAnswer:
    helper_text = "".join(helpers).strip("\n")
    if RESERVED in names:
        helper_text = re.sub(rf"\b{RESERVED}\b", RENAMED, helper_text)
        names = [RENAMED if n == RESERVED else n for n in names]
        notes.append(f"your theorem {RESERVED} was renamed {RENAMED} (the name is the gate's)")
    script_text = "".join(script).strip("\n")
    if requires:
        notes.append("the Require lines were moved before the theorem")
    if names:
        notes.append(f"{', '.join(names)} became helper{'s' if len(names) > 1 else ''}")
    if names and not script_text.strip():
        script_text = closing_script(names)
        notes.append("the generated statement is closed from " + " or ".join(reversed(names[-MAX_CLOSER_NAMES:])))
    return CoqAnswer("".join(requires).strip("\n"), helper_text, script_text, tuple(names), tuple(notes))


_COMPARISONS = (
    "Coq.Reals.RIneq.Rle_ge",
    "Coq.Reals.RIneq.Rge_le",
    "Coq.Reals.RIneq.Rlt_gt",
    "Coq.Reals.RIneq.Rgt_lt",
)


def closing_script(names: list[str] | tuple[str, ...]) -> str:
    """A script that proves the generated statement from one of the model's theorems: the last
    one first, each with closers from the most to the least literal (`exact` with every argument
    explicit, so implicit arguments do not get in the way; `apply` with the side conditions left
    to `auto`/`lra`; the same after turning `>=` into `<=`; `eapply`), then `lra` and `nra` on
    their own. Each alternative must close the goal (`solve`), so a partial one is not taken."""
    flip = "(" + " || ".join(f"apply {c}" for c in _COMPARISONS) + ")"
    alternatives = []
    for name in list(reversed(names))[:MAX_CLOSER_NAMES]:
        alternatives += [
            f"exact (@{name})",
            f"intros; apply {name}; auto with real",
            f"intros; apply {name}; repeat split; lra",
            f"intros; {flip}; apply {name}; auto with real",
            f"intros; {flip}; apply {name}; repeat split; lra",
            f"intros; eapply {name}; eauto",
        ]
    alternatives += ["intros; lra", "intros; nra"]
    body = "\n  | ".join(f"solve [ {a} ]" for a in alternatives)
    return f"first [ {body} ]."


def unclosed(answer: CoqAnswer) -> str | None:
    """The statement left without Qed/Defined, if any."""
    for note in answer.notes:
        if note.startswith("unclosed:"):
            return note.removeprefix("unclosed:")
    return None


def describe(answer: CoqAnswer) -> str:
    """One sentence for the verdict's detail: how the answer was taken apart."""
    notes = [n for n in answer.notes if not n.startswith("unclosed:")]
    return ("your formal_proof was taken apart: " + "; ".join(notes)) if notes else ""
