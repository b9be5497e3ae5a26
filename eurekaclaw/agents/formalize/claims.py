"""Machine-checkable claims: turn the model's claim into a typed Claim and make sure the
verification layer can parse it. A claim that cannot be parsed is worse than none (the checks
would error on every attempt), so it is reported back to the model once and then dropped."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError

from eurekaclaw.agents.formalize.models import ClaimOut
from eurekaclaw.types.artifacts import Claim

log = logging.getLogger(__name__)


def _parser() -> tuple[Any, type[Exception]] | None:
    """verify.parse_claim and its error type, or None when the verification layer is absent."""
    try:
        from eurekaclaw.verify import ClaimError, parse_claim
    except ImportError:
        return None
    return parse_claim, ClaimError


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
    parser = _parser()
    if parser is None:
        # Without the verification layer nothing can check the claim anyway; keep it so the
        # checks can run on it once the layer is installed.
        return claim, None
    parse_claim, claim_error = parser
    try:
        parse_claim(claim)
    except claim_error as exc:
        return None, str(exc) or type(exc).__name__
    except Exception as exc:  # a checker bug must not take the plan down; the claim is dropped
        log.warning("claim parser failed on %r: %s", claim.conclusion, exc)
        return None, f"the claim checker failed on it ({type(exc).__name__}: {exc})"
    return claim, None
