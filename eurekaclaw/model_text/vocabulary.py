"""Deny by default: does a sentence of model text speak of how something was checked, or of a proof status?

Not a list of phrases: stems. Any word of verification, formalisation, mechanisation, checking,
certification, kernels, solvers, provers, proof assistants, reviews or a tool's name (Coq, Rocq,
Lean, Isabelle, HOL, Agda, Z3, cvc5, SAT/SMT, Vampire, ...) makes a sentence of prose one that
EurekaClaw must write itself from its records. In prose, so do the proof-status words about our
own results ("proved", "proven", "established", "a complete proof", "our contribution is a proof").

What may stay, narrowly:
- a proof-status word right after a negation or a hypothetical ("we could not prove", "has not yet
  been proved"), never after "not only";
- a proof-status word in a sentence about someone else's work: it cites (`\\cite`, "[3]", "et al.")
  and names nothing of ours ("we", "our", "this algorithm", a lemma, the main theorem);
- in statements and proofs ("block" mode) the words mathematics uses for its own steps ("one
  verifies that", "is easily checked", "we prove"); the tool, kernel and machine words still go.
The text is read through `normalise.for_analysis` (look-alikes, markup and hyphen tricks undone).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from eurekaclaw.model_text.normalise import (
    fold,
    for_analysis,
    for_display,
    glued_views,
    mixed_script_word,
    strip_latex,
)

Mode = Literal["prose", "block", "memory"]

_TOOLS = (
    r"coq|coqc|coqchk|coqide|rocq|gallina|ssreflect|mathcomp|lean[234]|mathlib|isabelle|isar|hol|hol4|"
    r"hol[\s-]?light|agda|idris|mizar|metamath|acl2|pvs|twelf|nuprl|matita|dafny|why3|boogie|fstar|f\*|"
    r"z3|cvc[345]?|yices|mathsat|boolector|bitwuzla|smt|smt-?lib|sat|minisat|cadical|kissat|lingeling|"
    r"vampire|eprover|e\s+prover|spass|prover9|otter|leo-?i{2,3}|satallax|zipperposition|iprover|alt-?ergo|"
    r"sledgehammer|nitpick|kodkod|nusmv|cbmc|klee|frama-?c|keymaera|wolfram\s+alpha|mathematica"
)
# Math uses "kernel" for other things: these uses are taken out of the view before the check.
_MATH_KERNEL = re.compile(
    r"\b(?:heat|gaussian|rbf|polynomial|linear|laplace|laplacian|reproducing|markov|transition|integral|"
    r"convolution|poisson|dirichlet|fejer|smoothing|epanechnikov|matern|exponential|positive[\s-]definite|"
    r"stochastic|tangent|ntk|bergman|szego|green'?s?)\s+kernels?\b|\bkernels?\s+(?:of|function|functions|method|methods|matrix|"
    r"matrices|density|regression|trick|estimat\w*|bandwidth|ridge|mean|space|hilbert|operator|smoother)\b"
)
# The writer's own names for its tables and references.
_OUR_NAMES = re.compile(r"\b(?:verification\s+summary|verified\s+references?|the\s+summary\s+table)\b")
_FORMALLY_OPENER = re.compile(r"^\W*formally\s*,")

_CHECKER_STEMS = [
    rf"\b(?:{_TOOLS})\b",
    # "lean" is also a verb: the prover when it reads as one (capitalised names are caught apart)
    r"\b(?:in|by|with|using|via|through|to|from|and|or|the|a|its)\s+lean\b|\blean(?:'s)?\s+(?:prover|proof|"
    r"proofs|development|file|files|kernel|code|formali\w*|theorem|project|library|version|checker|environment)\b",
    r"\bverif\w*",
    r"\bunverifi\w*",
    r"\bformali[sz]\w*",
    r"\bformally\b",
    r"\bformal\b(?!\s+(?:statement|statements|definition|definitions|setting|model|framework|sense|"
    r"description|notation|problem|version|objects?|language|expression|claims?|counterpart|analogue|power|series|"
    r"sums?|derivatives?|expansions?|variables?|adjoints?|parameters?|groups?|neighbou?rhoods?))",
    r"\bmechani[sz](?:e|es|ed|ing|ation|ations)\b",
    r"\bmechanical(?:ly)?\b",
    r"\bkernels?\b",
    r"\bsolv(?:er|ers)\b",
    r"\bprovers?\b",
    r"\bcertif\w*",
    r"\bcheckers?\b",
    r"\bcheck(?:ed|s|ing)?\b",
    r"\bproof[\s-]*assist\w*",
    r"\binteractive\s+theorem",
    r"\btheorem[\s-]*prov\w*",
    r"\b(?:machine|computer)[\s-]*(?:check\w*|verif\w*|certif\w*|prov\w*|proof\w*|assist\w*|aided|readable)\b",
    r"\btype[\s-]*check\w*",
    r"\bautomat(?:ed|ic|ically|ion)\b",
    r"\bdischarg\w*",
    r"\bproof\s+obligations?\b",
    r"\btactics?\b",
    r"\bsorry\b",
    r"\badmitted\b",
    r"\bself[\s-]*review\w*",
    r"\breview(?:ed|er|ers|ing)?\b",
    r"\bconfirm\w*",
    r"\bvalidat\w*",
    r"\bcorroborat\w*",
    r"\bsubstantiat\w*",
    r"\bvindicat\w*",
]
# In a statement or a proof these are mathematics ("one verifies", "as is easily checked").
_BLOCK_ALLOWED = {
    r"\bverif\w*": r"\bverif(?:ied|ication|ications|ier|iers|iable|iably)\b",
    r"\bcheck(?:ed|s|ing)?\b": None,
    r"\bconfirm\w*": None,
    r"\bvalidat\w*": None,
    r"\bcorroborat\w*": None,
    r"\bsubstantiat\w*": None,
    r"\bvindicat\w*": None,
    r"\breview(?:ed|er|ers|ing)?\b": None,
}


def _compile(stems: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{s})" for s in stems))


CHECKER_WORDS = _compile(_CHECKER_STEMS)
BLOCK_CHECKER_WORDS = _compile([_BLOCK_ALLOWED.get(s, s) or r"(?!x)x" for s in _CHECKER_STEMS])
STATUS_WORDS = re.compile(
    r"\bprov(?:e|es|ed|en|ing|ably|able)\b|\bdisprov\w*|\brefut\w*|\bestablish\w*|"
    r"\b(?:complete|full|rigorous|entire|detailed|correct|valid|new|first|short|simple|elementary)\s+proofs?\b|"
    r"\bproofs?\s+(?:of|that)\b(?!\s+concept)|\bqed\b"
)
# When the main statement is not proved, a claimed result is a claim of its proof too.
RESULT_WORDS = re.compile(
    r"\b(?:we|this\s+(?:paper|work|note|article)|our\s+(?:main\s+)?results?|here\s+we)\s+(?:\w+ly\s+)?"
    r"(?:(?:have|has|had)\s+(?:\w+ly\s+)?)?"
    r"(?:show|shows|showed|shown|demonstrate\w*|derive\w*|obtain\w*|settle\w*|resolve\w*|answer\w*)\b|"
    r"\bnew\s+theorem\b|\btheorem\s+\d+\b|\bmain\s+(?:theorem|result)\b|\bwe\s+(?:give|present|provide)\b|"
    # a claim of truth or finality is a claim of proof too (stems, not phrases)
    r"\bdemonstrat(?:ed|es|ing)\b|\bsettl(?:e|es|ed|ing)\b|\b(?:resolv|confirm)(?:es|ed|ing)\b|"
    r"\b(?:is|are|was|were|be|been|now|becomes?|remains?)\s+(?:(?:indeed|in\s+fact|thus|therefore|hence|"
    r"now|also|certainly|clearly|definitely)\s+)?(?:true|correct|valid|sound|settled|a\s+(?:theorem|fact|"
    r"certainty))\b|\b(?:air|water)tight\b|\bbullet[\s-]?proof\b|\bbeyond\s+(?:any\s+)?doubt\b|"
    r"\b(?:definitive|conclusive)(?:ly)?\b|\bnot\s+a\s+conjecture\b"
)
_NEGATION_BEFORE = re.compile(
    r"(?:\b(?:not|never|cannot|unable\s+to|fail(?:s|ed)?\s+to|yet\s+to|remains?\s+to|remained\s+to|"
    r"attempt(?:s|ed)?\s+to|tr(?:y|ies|ied)\s+to|aim(?:s|ed)?\s+to|hope\s+to|would|could|might|may|whether|"
    r"needs?|needed|requires?|required)|n't)"
    r"(?:\s+(?:be|been|yet|fully|completely|rigorously|so\s+far|still|actually|we|it|they|this|that|a|an|new|"
    r"another|different))*\s+$"
)
# "whether the conjecture is true", "if the bound is valid", "we conjecture that it is true": a
# claim of truth inside a condition, a question or a conjecture is no claim of a proof
_HYPOTHETICAL = re.compile(
    r"\b(?:if|whether|suppose[sd]?|supposing|assum(?:e|es|ed|ing)|provided|unless|conjectur(?:e|es|ed)\s+that|would|could|"
    r"might|open\s+question)\b"
)
_NOT_ONLY = re.compile(r"\bnot\s+only\b|\bno\s+doubt\b|\bnever\s+(?:fail|in\s+doubt)")
_CITATION = re.compile(r"\[cite\]|\[\d+(?:\s*[,-]\s*\d+)*\]|\bet\s+al\b")
_OURS = re.compile(
    r"\b(?:we|our|ours|us|here|herein|hereby|present|proposed|main|this|these|lemma|lemmas|lem:\S*|thm:\S*|"
    r"the\s+(?:theorem|conjecture|statement|claim|bound|result|results|lemma|inequality)\s+(?:above|below|"
    r"here|stated|given))\b"
)


@dataclass(frozen=True)
class Finding:
    """Why a sentence may not stay: what it speaks of and the word that shows it."""

    kind: Literal["checker", "status", "result", "disguise"]
    word: str

    def describe(self) -> str:
        return {
            "checker": f"it speaks of how a result was checked ({self.word!r})",
            "status": f"it states a proof status ({self.word!r})",
            "result": f"it claims a result of an unproved statement ({self.word!r})",
            "disguise": f"it spells a word with look-alike letters ({self.word!r})",
        }[self.kind]


def _views(sentence: str, exempt: Iterable[str]) -> list[str]:
    base = [for_analysis(_without_footnotes(sentence)), for_analysis(sentence)]
    views = []
    for view in dict.fromkeys(base):
        for phrase in exempt:
            if phrase:
                view = view.replace(phrase, " ")
        view = _OUR_NAMES.sub(" ", _MATH_KERNEL.sub(" ", _FORMALLY_OPENER.sub(" ", view)))
        views += [view, *glued_views(view)]
    return list(dict.fromkeys(views))


def _without_footnotes(text: str) -> str:
    out, i = [], 0
    for m in re.finditer(r"\\footnote\*?(?:\[[^\]]*\])?\{", text):
        if m.start() < i:
            continue
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0) if text[j - 1] != "\\" else 0
            j += 1
        out.append(text[i : m.start()])
        i = j
    out.append(text[i:])
    return " ".join(out)


def _negated(view: str, start: int) -> bool:
    before = view[max(0, start - 80) : start]
    return bool(_NEGATION_BEFORE.search(before)) and not _NOT_ONLY.search(before)


def _status_finding(view: str, cited_elsewhere: bool) -> Finding | None:
    if cited_elsewhere:
        return None
    for m in STATUS_WORDS.finditer(view):
        if not _negated(view, m.start()):
            return Finding("status", m.group(0))
    return None


# tool names that are also English words, caught in their capitalised spelling
_NAMED_TOOLS = re.compile(r"\b(?:Lean|LEAN|Vampire|VAMPIRE|Otter|Alloy|Spin|Glucose)\b")


_FAILURE = re.compile(
    r"\b(?:violat\w*|fail(?:s|ed|ure|ures)?|refut\w*|counterexamples?|wrong|false|missed|broke|broken|"
    r"contradict\w*|disagree\w*|rejected)\b"
)


def _reports_failure(view: str) -> bool:
    """A lesson: the sentence reports that something went wrong (not "never failed")."""
    return any(not _negated(view, m.start()) for m in _FAILURE.finditer(view))


def judge(
    sentence: str,
    *,
    mode: Mode = "prose",
    proved: bool = True,
    exempt: Iterable[str] = (),
    lessons: bool = False,
) -> Finding | None:
    """Why `sentence` (model text, LaTeX allowed) may not be shown as written, or None.

    `mode` "prose" is the strict rule (paper prose, titles, answers); "block" is for statements
    and proofs; "memory" (insight texts) allows the mathematician's verbs as "block" does but
    refuses proof-status words as "prose" does. `proved` says whether the main statement is proved (when it is
    not, "we show" claims its proof too). `exempt` lists analysis views of texts that are not
    the model's (the user's statement) and are ignored inside the sentence. With `lessons` (memory
    texts), a sentence that reports a failure may name a check ("a self-review missed the violated
    bound"): it can only lower trust; proof-status words still go."""
    disguised = mixed_script_word(sentence)
    if disguised:
        return Finding("disguise", disguised)
    exempt = [e for e in exempt if e]
    named = _NAMED_TOOLS.search(fold(strip_latex(for_display(sentence))))
    if named and not (named.start() == 0 and named.group(0) == "Lean" and mode == "block"):
        return Finding("checker", named.group(0))
    # memory texts are proof know-how ("check x != 0 before dividing"): the mathematician's verbs
    # stay, as in a proof, but tool words and proof-status words about results still go
    words = CHECKER_WORDS if mode == "prose" else BLOCK_CHECKER_WORDS
    for view in _views(sentence, exempt):
        m = words.search(view)
        if m and not (lessons and _reports_failure(view)):
            return Finding("checker", m.group(0))
        if mode == "block":
            continue
        cited_elsewhere = bool(_CITATION.search(view)) and not _OURS.search(view)
        found = _status_finding(view, cited_elsewhere)
        if found:
            return found
        if not proved and not cited_elsewhere:
            for m in RESULT_WORDS.finditer(view):
                if not _negated(view, m.start()) and not _HYPOTHETICAL.search(view[: m.start()]):
                    return Finding("result", m.group(0))
    return None


def exempt_view(text: str) -> str:
    """The analysis view of a text that is not the model's (to pass as `exempt`)."""
    return for_analysis(text).rstrip(".")
