"""The phrases that claim machine verification (used by machine_claims.py).

Names of tools are matched case-sensitively ("lean" and "kernel" are also plain words), but
with the spellings a model uses: "LEAN", "\\textsc{Coq}", "the Coq proof assistant", "Lean-verified".
A claim does not count when a negation or a hypothetical comes shortly before it ("did not verify
this in Coq", "rather than by Z3") or when the sentence credits someone else's work with it
("Prior work [5] verified ... in Coq", "Smith et al. formally verified ...").
"""

from __future__ import annotations

import re

_VERB = (
    r"(?:verif(?:y|ies|ied)|check(?:s|ed)?|prov(?:e|es|ed|en)|certif(?:y|ies|ied)|confirm(?:s|ed)?|"
    r"accept(?:s|ed)?|validat(?:e|es|ed)|discharg(?:e|es|ed)|type[\s-]?checked|compiled)"
)
_GAP = r"(?:[\w,'~\\{}:-]+\s+){0,4}?"
_WRAP = r"(?:\\(?:text\w\w|emph|mathrm|mathsf|mathtt)\{)?"  # \textsc{Coq}
_NAME = r"(?-i:Coq|COQ|Lean|LEAN|Isabelle|Agda|HOL\s?Light)"
_ARTICLE = r"(?:an?\s+|the\s+|its\s+)?"
_ASSISTANT = (
    rf"(?:{_ARTICLE}{_WRAP}{_NAME}(?:\}})?(?:\s?4|/HOL)?(?:\s+(?:proof\s+assistant|theorem\s+prover))?|"
    rf"{_ARTICLE}proof\s+assistant|{_ARTICLE}(?:proof|{_NAME})(?:'s)?\s+kernel)"
)
_SMT = r"(?-i:SMT)[\s-](?:solvers?|checks?|checking|quer(?:y|ies)|encodings?|backends?|calls?)"
# a bare "SMT" claims nothing unless it ends the phrase ("verified by SMT."): "the SMT inequality"
_SOLVER = (
    rf"(?:{_ARTICLE}(?:{_SMT}|(?-i:SMT)(?=\s*[.,;:)])|(?:solver\s+)?{_WRAP}(?:Z3|cvc5|CVC5)(?:\}})?(?:\s+solver)?))"
)
_SUBJECT_VERB = r"(?:\s+(?:has|have|had))?\s+(?:fully\s+|also\s+)?" + _VERB
_BY = r"\(?(?:in|by|with|using|through|via)\s+"
_PROVER = r"(?:an?\s+|the\s+)?(?:automated\s+(?:theorem\s+)?(?:checker|prover|tool)|theorem\s+prover)"


def _any(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(alternatives), re.IGNORECASE)


# kind -> the phrases that claim it; "formal proof" alone is not one (it also means "rigorous")
PATTERNS: dict[str, re.Pattern[str]] = {
    "formal": _any(
        r"\bformal(?:ly)?[\s-]+(?:verified|checked|certified|machine[\s-]checked)",
        r"\b(?:verified|checked|certified|proved|proven)\s+formally\b",
        r"\b(?:type|kernel)[\s-]checked\b",
        rf"\bformali[sz]ed\s+(?:and\s+(?:verified|checked)\s+)?in\s+{_WRAP}{_NAME}",
        rf"\b{_NAME}\s+formali[sz]ation",
        rf"\b{_NAME}-(?:verified|checked|certified|proved|proven)\b",
        rf"\b{_VERB}\s+{_GAP}{_BY}{_ASSISTANT}\b",
        rf"(?:\b{_NAME}(?:'s\s+kernel|\s+(?:proof\s+assistant|theorem\s+prover))?|\bthe\s+proof\s+assistant)"
        rf"{_SUBJECT_VERB}\b",
    ),
    "smt": _any(
        rf"\b{_VERB}\s+{_GAP}{_BY}{_SOLVER}\b",
        rf"\b(?:by|via|with|using)\s+{_ARTICLE}{_SMT}\b",
        r"\b(?:Z3|cvc5|SMT)-(?:verified|checked|certified|proved|proven)\b",
        rf"\b(?:(?:Z3|cvc5)(?:\s+solver)?|{_SMT}|the\s+solver){_SUBJECT_VERB}\b",
    ),
    "machine": _any(
        r"\bmachine[\s-](?:check(?:s|ed)?|verif(?:y|ies|ied)|certif(?:y|ies|ied)|prov(?:e|ed|en)|"
        r"checkable\s+proof)\b",
        r"\bmechani(?:cally|sed|zed)[\s-]+(?:verified|checked|proved|proven|certified)",
        r"\bcomputer[\s-](?:verified|checked|assisted\s+proof)",
        rf"\b{_VERB}\s+{_GAP}by\s+(?:(?:an?\s+|the\s+)?(?:computer|machine)\b|{_PROVER})",
        rf"\b{_PROVER}{_SUBJECT_VERB}\b",
    ),
    "numeric": _any(
        r"\bnumerically\s+(?:verified|checked|confirmed|validated|tested)",
        r"\b(?:verified|checked|confirmed|validated)\s+numerically\b",
        r"\bnumerical(?:ly)?\s+(?:checks?|tests?|experiments?|verification|falsification)\s+"
        r"(?:confirms?|confirmed|verif(?:y|ies|ied)|show(?:s|ed)?|passed)\b",
    ),
}
# a negation shortly before the claim: "did not verify this in Coq", "rather than by Z3";
# a bare "than" is not one ("more than 100 cases were verified by Z3")
_NEGATION = re.compile(
    r"(?:\b(?:not|no|never|neither|nor|without|lacks?|lacking|cannot|rather\s+than|other\s+than|instead\s+of|"
    r"in\s+contrast\s+to|unlike|whether|unless|yet\s+to\s+be|could\s+be|would\s+be|might|may|future)\b|n't)"
    r"\W*(?:[\w~\\{}:-]+\W+){0,4}$",
    re.IGNORECASE,
)
# before the claim, the sentence credits others: a citation, "et al.", "prior work"
_ATTRIBUTED = re.compile(
    r"\bet\s+al\b|\\(?:cite|citet|citep)\w*\{|\[\d+(?:\s*[,-]\s*\d+)*\]|"
    r"\b(?:prior|previous|earlier|existing|related|their|other)\s+(?:work|works|papers?|authors)\b",
    re.IGNORECASE,
)
THEOREM_MENTION = re.compile(
    r"\b(?:main\s+)?theorem\b(?!\s+provers?)|\\(?:c|C|auto|name)?ref\{thm:[^}]*\}", re.IGNORECASE
)


def claims_in(sentence: str) -> list[tuple[int, str]]:
    """(position, kind) of each machine verification the sentence claims; negated claims
    and those credited to other work excluded."""
    found = []
    for kind, rx in PATTERNS.items():
        for m in rx.finditer(sentence):
            before = sentence[: m.start()]
            if not _NEGATION.search(before[-60:]) and not _ATTRIBUTED.search(before):
                found.append((m.start(), kind))
    return sorted(found)
