"""Attacks with trivial claims: a claim read off its own assumptions and ranges earns no
mechanical level, and a replacement lemma with such a claim caps the theorem.

Each test is one attack (a direct call, or a scripted model through the real Theory stage) and
asserts that the overstated result never reaches the reader: no `smt` on a claim its ranges
decide, no `proved` theorem resting on a trivial replacement."""

from __future__ import annotations

import pytest
from unit.theory.theory_script import Script, claim, lemma, make_ctx, put_state

from eurekaclaw.agents.theory.level import ReviewEvidence, decide_level
from eurekaclaw.agents.theory.refutation import replacement_cap
from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.types.artifacts import CheckResult, Claim, ClaimVariable, LemmaNode
from eurekaclaw.types.tasks import InputSpec
from eurekaclaw.verify.trivial import claim_flags

SPEC = InputSpec(mode="prove", statement="the conjecture")
PROVEN = ("proved", "self_reviewed")
Z3_PASSED = [CheckResult(checker="z3", verdict="passed", detail="unsat")]


def V(name: str, domain: str = "real", **kw: object) -> ClaimVariable:
    return ClaimVariable(name=name, domain=domain, **kw)  # type: ignore[arg-type]


READ_OFF = [
    Claim(variables=[V("x", "interval", low=0, high=1), V("t", "nonnegative")], conclusion="t*x <= t"),
    Claim(variables=[V("x")], assumptions=["abs(x) <= 2"], conclusion="x^2 <= 4"),
    Claim(variables=[V("x")], assumptions=["-1 <= x", "x <= 1"], conclusion="abs(x) <= 1"),
    Claim(variables=[V("y")], assumptions=["y <= 3"], conclusion="y <= 3"),
    Claim(variables=[V("x", "interval", low=0, high=1), V("y", "interval", low=0, high=1)], conclusion="x*y <= 1"),
    Claim(variables=[V("x", "interval", low=-1, high=1, open_low=True, open_high=True)], conclusion="abs(x) <= 1"),
    Claim(variables=[V("n", "natural", low=1)], conclusion="1/n^2 <= 1"),
]


@pytest.mark.parametrize("c", READ_OFF, ids=lambda c: c.conclusion)
def test_a_claim_read_off_its_ranges_earns_no_smt(c: Claim) -> None:
    """Attack: the model gives a lemma a claim its own ranges decide, so Z3 "proves" it at once."""
    flags = claim_flags(c, timeout_s=2)
    assert flags, "a claim its ranges decide must be flagged"
    node = LemmaNode(id="L", statement="s", claim=c, statement_source="claim", claim_flags=flags)
    verdict = decide_level(node, Z3_PASSED)
    assert verdict.level == "unverified" and "too trivial" in verdict.note
    assert verdict.supporting and "Z3" in verdict.supporting[0]
    reviewed = decide_level(node, Z3_PASSED, review=ReviewEvidence(passed=True, counts=True))
    assert reviewed.level == "reviewed", "the review, not the trivial check, is what supports it"


def test_a_claim_needing_work_keeps_its_level() -> None:
    """Control: x^2 - 2x + 1 >= 0 over all reals is not decided by interval arithmetic and keeps smt."""
    c = Claim(variables=[V("x")], conclusion="x^2 - 2*x + 1 >= 0")
    flags = [f for f in claim_flags(c, timeout_s=2) if "interval" in f]
    assert flags == []
    node = LemmaNode(id="L", statement="s", claim=c, statement_source="claim")
    assert decide_level(node, Z3_PASSED).level == "smt"


def test_a_trivial_replacement_caps_like_a_missing_claim() -> None:
    """Attack: after a refutation the replacement lemma carries a flagged claim instead of none."""
    flagged = LemmaNode(id="L1b", statement="s", claim=READ_OFF[3], claim_flags=["restates"], replaces="L1")
    missing = LemmaNode(id="L1c", statement="s", replaces="L1")
    fine = LemmaNode(id="L1d", statement="s", claim=READ_OFF[0], replaces="L1")
    assert replacement_cap(flagged, "L1") and "flagged" in (replacement_cap(flagged, "L1") or "")
    assert replacement_cap(missing, "L1")
    assert replacement_cap(fine, "L1") is None


TRIVIAL_REPLAN = {
    "rationale": "a safer bound",
    "lemmas": [
        {
            "id": "L1b",
            "statement": "t x <= t",
            "dependencies": [],
            "claim_is_statement": True,
            "claim": {
                "variables": [
                    {"name": "x", "domain": "interval", "low": 0, "high": 1},
                    {"name": "t", "domain": "nonnegative"},
                ],
                "conclusion": "t*x <= t",
            },
        },
        {"id": "L2", "statement": "L2 via L1b", "dependencies": ["L1b"]},
    ],
}


async def test_a_trivial_replacement_through_the_theory_stage_never_yields_a_proved_theorem(tmp_path):
    """Attack: a false lemma is refuted and the model re-plans around it with a claim its ranges
    decide (`t*x <= t` for 0 <= x <= 1, t >= 0); every review passes."""
    script = Script().on("formalizer", "L1", TRIVIAL_REPLAN)
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L1", claim=claim("x**2 <= x", "x")), lemma("L2", "L1"), lemma("T", "L2", root=True))
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.lemma_dag["L1"].status == "refuted"
    assert state.lemma_dag["L1b"].claim_flags
    assert any("L1b" in r and "flagged" in r for r in state.level_cap_reasons)
    assert state.status not in PROVEN
    record = state.proven_lemmas.get("L1b")
    assert record is None or record.verification_level not in ("smt", "formal")
