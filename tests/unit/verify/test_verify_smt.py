"""smt_check and its worker: verdict mapping, hard timeout, vacuity, untranslatable claims."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from claim_table import claim
from toolreq import require_module

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify import smt as smt_mod
from eurekaclaw.verify import smt_check
from eurekaclaw.verify.claims import parse_claim
from eurekaclaw.verify.smt_translate import Translator, Untranslatable


@pytest.fixture(autouse=True)
def _z3() -> None:
    require_module("z3")


def test_proves_refutes_and_reports_version() -> None:
    proved = smt_check(claim("x + 1/x >= 2", x="positive"), timeout_s=5)
    assert proved.checker == "z3" and proved.verdict == "passed" and proved.version
    refuted = smt_check(claim("x + 1/x >= 2"), timeout_s=5)
    assert refuted.verdict == "failed" and refuted.counterexample is not None
    assert refuted.counterexample["x"] < 0


def test_sqrt_is_translated_with_a_fresh_root() -> None:
    result = smt_check(claim("sqrt(x^2) == abs(x)"), timeout_s=5)
    assert result.verdict == "passed"


def test_vacuous_claim_is_not_a_proof() -> None:
    result = smt_check(claim("x > 100", "x > 2", "x < 1"), timeout_s=5)
    assert result.verdict == "unknown" and "vacuous" in result.detail


def test_untranslatable_is_unknown_never_passed() -> None:
    result = smt_check(claim("sin(x) <= 1"), timeout_s=5)
    assert result.verdict == "unknown" and "sin" in result.detail
    with pytest.raises(Untranslatable):
        import z3

        Translator(z3, parse_claim(claim("factorial(n) >= 1", n="natural"))).negated_conclusion()


def test_unparseable_claim_is_error() -> None:
    result = smt_check(claim("y > 0"), timeout_s=5)
    assert result.verdict == "error" and "unknown identifier" in result.detail


def fermat_cubes() -> Claim:
    """Fermat's last theorem for cubes: far beyond nonlinear integer SMT."""
    positive = [ClaimVariable(name=n, domain="natural", low=1) for n in "xyz"]
    return Claim(variables=positive, conclusion="x^3 + y^3 != z^3")


def test_solver_timeout_is_unknown() -> None:
    result = smt_check(fermat_cubes(), timeout_s=0.5)
    assert result.verdict == "unknown"


def test_hard_timeout_kills_the_worker() -> None:
    """A worker that does not answer by the deadline is killed; the answer is a timeout."""
    pool = smt_mod.SmtPool(grace_s=0.0)
    c = fermat_cubes()
    # the solver is told it has a minute, the pool only waits half a second
    reply = pool.request({"claim": c.model_dump(mode="json"), "timeout_s": 60, "solver": "z3"}, timeout_s=0.5)
    assert reply["status"] == "timeout"
    assert pool.idle == []
    pool.close()


def test_worker_single_shot_protocol() -> None:
    request = {"claim": claim("x^2 >= 0").model_dump(mode="json"), "timeout_s": 5}
    out = subprocess.run(
        [sys.executable, "-m", "eurekaclaw.verify.smt_worker"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(out.stdout)["status"] == "unsat"
    out = subprocess.run(
        [sys.executable, "-m", "eurekaclaw.verify.smt_worker"],
        input='{"claim": {"conclusion": "__import__(1)"}}',
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    reply = json.loads(out.stdout)
    assert reply["status"] == "error" and "__" in reply["reason"]


def test_model_that_fails_exact_recheck_is_not_a_counterexample(monkeypatch: pytest.MonkeyPatch) -> None:
    c = claim("x^2 >= 0")

    def lying_pool(payload, timeout_s):
        return {"status": "sat", "model": {"x": "1/3"}, "exact": True, "version": "z3 test"}

    monkeypatch.setattr(smt_mod._POOL, "request", lying_pool)
    result = smt_check(c, timeout_s=1)
    assert result.verdict == "unknown" and result.counterexample is None


def test_missing_solver_is_no_checker() -> None:
    assert smt_check(claim("x >= x"), solver="not-a-solver").verdict == "no_checker"


def test_algebraic_model_value_is_exact_text() -> None:
    z3 = pytest.importorskip("z3")
    from eurekaclaw.verify.smt_translate import model_value

    x = z3.Real("x")
    for constraint, expected in [(x * x == 2, "sqrt(2)"), (x**5 - x - 1 == 0, "CRootOf(x^5 - x - 1, 0)")]:
        s = z3.Solver()
        s.add(constraint, x > 0)
        assert s.check() == z3.sat
        assert model_value(z3, s.model()[x]) == (expected, True)
