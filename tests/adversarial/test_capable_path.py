"""Attacks on the capable path (issue 27): a whole Coq file is taken apart and the generated
statement is closed from the model's own theorem with a few standard closers. A file whose
theorem is *weaker* than the claim must not become a proof of the claim that way.

The claim is radius_small of the README's UCB1 proof (tests/e2e/capable_responder.py): true, and
beyond `lra`/`nra` alone, so only the model's theorem could close it. Each attack asserts the
verdict is "failed", never "passed" (which would be level `formal`)."""

from __future__ import annotations

import pytest
from toolreq import require_tool

from eurekaclaw.types.artifacts import Claim
from eurekaclaw.verify.coq import coq_check_claim

RADIUS = Claim.model_validate(
    {
        "variables": [
            {"name": "n", "domain": "natural", "low": 1},
            {"name": "T", "domain": "natural", "low": 2},
            {"name": "D", "domain": "interval", "low": 0, "open_low": True, "high": 1},
        ],
        "assumptions": ["n*D^2 >= 8*log(T)"],
        "conclusion": "sqrt(2*log(T)/n) <= D/2",
    }
)

HEADER = "Require Import Reals Psatz.\nOpen Scope R_scope.\n\n"

# the key step of the proof taken as a hypothesis of the model's theorem
KEY_STEP_ASSUMED = (
    HEADER
    + """Theorem radius_small : forall (n T : nat) (D : R),
  0 < D -> 2 * ln (INR T) / INR n <= (D / 2) ^ 2 ->
  sqrt (2 * ln (INR T) / INR n) <= D / 2.
Proof.
  intros n T D HD Hkey.
  rewrite <- (sqrt_pow2 (D / 2)) by lra.
  apply sqrt_le_1_alt. exact Hkey.
Qed.
"""
)

# a weaker conclusion (D instead of D / 2) under the lemma's own name
WEAKER_CONCLUSION = (
    HEADER
    + """Theorem radius_small : forall (n T : nat) (D : R),
  0 < D -> 2 * ln (INR T) / INR n <= D ^ 2 ->
  sqrt (2 * ln (INR T) / INR n) <= D.
Proof.
  intros n T D HD Hkey.
  rewrite <- (sqrt_pow2 D) by lra.
  apply sqrt_le_1_alt. exact Hkey.
Qed.

Corollary radius_half : forall (n T : nat) (D : R),
  0 < D -> 2 * ln (INR T) / INR n <= D ^ 2 ->
  sqrt (2 * ln (INR T) / INR n) <= D.
Proof. exact radius_small. Qed.
"""
)


@pytest.mark.parametrize("answer", [KEY_STEP_ASSUMED, WEAKER_CONCLUSION], ids=["key_step_assumed", "weaker_conclusion"])
def test_a_weaker_whole_file_theorem_does_not_prove_the_claim(answer: str) -> None:
    """Attack: a whole .v file, honest-looking, whose theorem assumes the hard step or concludes
    less; the gate takes it apart and tries its closers (`exact`, `apply ...; auto`, `lra`, ...)
    from that theorem, which must all fail on the generated statement."""
    require_tool("coqc")
    result = coq_check_claim(RADIUS, answer, helpers="", timeout_s=60.0)
    assert result.verdict == "failed", result.detail
    # the helpers compiled and the split happened: it is the closing script that coqc refused
    assert "closed from" in result.detail and "radius_small" in result.detail
    assert "Error: No applicable tactic." in result.detail
