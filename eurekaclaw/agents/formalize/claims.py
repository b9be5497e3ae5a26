"""Machine-checkable claims: turn the model's claim into a typed Claim and make sure the
verification layer can parse it. A claim that cannot be parsed is worse than none (the checks
would error on every attempt), so it is reported back to the model once and then dropped.

A claim the model says is the whole statement makes the lemma's displayed statement: it is
rendered by code from the claim, so what a reader sees is what a checker checked. A claim that
is too trivial to mean anything (no free variable, a restated assumption, vacuous assumptions,
ranges narrower than the main theorem's) is flagged and earns no mechanical level."""

from __future__ import annotations

import logging

from pydantic import ValidationError

from eurekaclaw.agents.formalize.models import ClaimOut
from eurekaclaw.types.artifacts import Claim, LemmaNode

log = logging.getLogger(__name__)


def to_claim(raw: ClaimOut | None) -> tuple[Claim | None, str | None]:
    """(claim, None) when usable; (None, reason) when not; (None, None) when there is none."""
    if raw is None:
        return None, None
    try:
        claim = Claim.model_validate(raw.model_dump())
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        return None, f"{where}: {err['msg']}"
    if not claim.conclusion.strip():
        return None, "the conclusion is empty"
    # The parser loads sympy: imported here, when a plan is checked, not when the CLI starts.
    from eurekaclaw.verify import ClaimError, parse_claim

    try:
        parse_claim(claim)
    except ClaimError as exc:
        return None, str(exc) or type(exc).__name__
    except Exception as exc:  # a checker bug must not take the plan down; the claim is dropped
        log.warning("claim parser failed on %r: %s", claim.conclusion, exc)
        return None, f"the claim checker failed on it ({type(exc).__name__}: {exc})"
    return claim, None


def normalised_statement(text: str) -> str:
    """A statement reduced to what a restatement cannot hide behind: case, spacing, `$`."""
    return " ".join(text.replace("$", " ").lower().split())


def render_from_claim(node: LemmaNode) -> None:
    """Show the lemma as exactly what its claim says (the model's wording is kept as prose)."""
    if node.claim is None:
        return
    from eurekaclaw.verify.render import claim_latex

    if node.statement_source != "claim":
        node.prose = node.statement
    node.statement = claim_latex(node.claim)
    node.statement_source = "claim"


def flags_for(claim: Claim, reference: Claim | None) -> list[str]:
    """Why this claim would earn no mechanical level (empty: it may)."""
    from eurekaclaw.verify.trivial import claim_flags

    try:
        return claim_flags(claim, reference)
    except Exception as exc:  # fail closed: a claim nobody could analyse earns nothing
        log.warning("claim analysis failed on %r: %s", claim.conclusion, exc)
        return [f"the claim could not be analysed ({type(exc).__name__}: {exc})"]


def attach_claim(node: LemmaNode, raw: ClaimOut | None, *, exact: bool, reference: Claim | None) -> str | None:
    """Validate and attach the model's claim to `node`; flag a trivial one; show the lemma as
    its claim when the model says the claim is the whole statement. Returns why the claim
    was dropped (None when it was attached or there was none)."""
    claim, reason = to_claim(raw)
    node.claim = claim
    node.claim_flags = []
    if claim is None:
        return reason
    node.claim_flags = flags_for(claim, None if node.is_root else reference)
    if exact:
        render_from_claim(node)
    return None
