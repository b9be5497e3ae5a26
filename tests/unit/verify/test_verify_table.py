"""The claim table: every false claim is caught with a confirmed counterexample by the
falsifier or by Z3; no true claim ever gets one; Z3 never proves a false claim."""

from __future__ import annotations

import pytest
from claim_table import CASES, FALSE_CASES, TRUE_CASES, Case

from eurekaclaw.verify import evaluate_claim_at, falsify, smt_check
from eurekaclaw.verify.mechanical import mechanical_level, refuted

SMT_TIMEOUT = 3.0


def test_table_size() -> None:
    assert len(TRUE_CASES) >= 30 and len(FALSE_CASES) >= 30
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", TRUE_CASES, ids=lambda c: c.id)
def test_true_claim_is_never_refuted(case: Case) -> None:
    report = falsify(case.claim, seed=0)
    assert not report.confirmed, report.detail
    assert report.verdict != "counterexample"
    smt = smt_check(case.claim, timeout_s=SMT_TIMEOUT)
    assert smt.verdict in ("passed", "unknown"), smt.detail
    assert smt.counterexample is None
    if case.smt:
        assert smt.verdict == "passed", smt.detail
    checks = [report.to_check_result(), smt]
    assert refuted(checks) is None
    assert mechanical_level(checks) == ("smt" if smt.verdict == "passed" else None)


@pytest.mark.parametrize("case", FALSE_CASES, ids=lambda c: c.id)
def test_false_claim_is_refuted(case: Case) -> None:
    report = falsify(case.claim, seed=0)
    smt = smt_check(case.claim, timeout_s=SMT_TIMEOUT)
    assert smt.verdict != "passed", smt.detail
    found = [r for r in (report.to_check_result(), smt) if r.counterexample is not None]
    assert found, f"no counterexample: falsifier: {report.detail} | z3: {smt.detail}"
    for result in found:
        assert result.verdict == "failed"
        # confirmed means: the exact re-check agrees, independently of the checker
        assert evaluate_claim_at(case.claim, result.counterexample).holds is False
    assert refuted([report.to_check_result(), smt]) is not None
    assert mechanical_level([report.to_check_result(), smt]) is None
