"""Mechanical verification: machine-checkable claims, a numeric falsifier, SMT (Z3/cvc5) and
Coq/Lean proof checking. docs/verification.md describes the claim language and the verdicts.
The checkers are listed once, in registry.py (entry-point group `eurekaclaw.checkers`).

Names are imported on first use (PEP 562), so the SMT worker, which needs only the parser,
does not pay for scipy at start-up. The statement generators live in their own modules and are
imported from there (`from eurekaclaw.verify.coq_statement import coq_statement`, likewise
`lean_statement`): a package attribute named like a submodule is replaced by the submodule as
soon as it is imported.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "CheckerInfo": "checkers",
    "available_checkers": "checkers",
    "ClaimError": "grammar",
    "ParsedClaim": "claims",
    "parse_claim": "claims",
    "ClaimEvaluation": "exact",
    "evaluate_claim_at": "exact",
    "FalsifierReport": "falsifier",
    "falsify": "falsifier",
    "smt_check": "smt",
    "coq_check_claim": "coq",
    "CoqUntranslatable": "coq_terms",
    "lean_check_claim": "lean",
    "LeanUntranslatable": "lean_statement",
    "run_mechanical_checks": "mechanical",
    "mechanical_level": "mechanical",
    "refuted": "mechanical",
}

__all__ = [
    "CheckerInfo",
    "ClaimError",
    "ClaimEvaluation",
    "CoqUntranslatable",
    "FalsifierReport",
    "LeanUntranslatable",
    "ParsedClaim",
    "available_checkers",
    "coq_check_claim",
    "evaluate_claim_at",
    "falsify",
    "lean_check_claim",
    "mechanical_level",
    "parse_claim",
    "refuted",
    "run_mechanical_checks",
    "smt_check",
]

if TYPE_CHECKING:
    from eurekaclaw.verify.checkers import CheckerInfo, available_checkers
    from eurekaclaw.verify.claims import ParsedClaim, parse_claim
    from eurekaclaw.verify.coq import coq_check_claim
    from eurekaclaw.verify.coq_terms import CoqUntranslatable
    from eurekaclaw.verify.exact import ClaimEvaluation, evaluate_claim_at
    from eurekaclaw.verify.falsifier import FalsifierReport, falsify
    from eurekaclaw.verify.grammar import ClaimError
    from eurekaclaw.verify.lean import lean_check_claim
    from eurekaclaw.verify.lean_statement import LeanUntranslatable
    from eurekaclaw.verify.mechanical import mechanical_level, refuted, run_mechanical_checks
    from eurekaclaw.verify.smt import smt_check


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'eurekaclaw.verify' has no attribute {name!r}")
    value = getattr(import_module(f"eurekaclaw.verify.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
