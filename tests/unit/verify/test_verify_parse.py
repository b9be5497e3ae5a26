"""The claim language: what parses, what is refused, and that refusing never executes anything."""

from __future__ import annotations

import builtins
import time

import pytest
import sympy as sp
import sympy.parsing.sympy_parser as sympy_parser

from eurekaclaw.errors import BadInputError
from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify import ClaimError, parse_claim
from eurekaclaw.verify.claims import VarDomain


def claim(conclusion: str, *assumptions: str, variables: list[ClaimVariable] | None = None) -> Claim:
    return Claim(
        variables=variables if variables is not None else [ClaimVariable(name="x")],
        assumptions=list(assumptions),
        conclusion=conclusion,
    )


def test_claim_error_is_bad_input() -> None:
    assert issubclass(ClaimError, BadInputError)


def test_parses_operators_functions_and_constants() -> None:
    x = sp.Symbol("x", real=True)
    parsed = parse_claim(
        claim(
            "2^3 ** 1 + abs(x) - min(x, 1) * max(x, 2) / sqrt(4) <= pi*e + log(8, 2) + ln(exp(1)) + floor(x) + ceil(x)"
        )
    )
    rel = parsed.conclusion[0].simplified
    assert rel.op == "<="
    assert rel.lhs == 8 + sp.Abs(x) - sp.Min(x, 1) * sp.Max(x, 2) / 2
    assert sp.simplify(rel.rhs - (sp.pi * sp.E + 3 + 1 + sp.floor(x) + sp.ceiling(x))) == 0


def test_unary_minus_binds_looser_than_power_and_power_is_right_associative() -> None:
    x = sp.Symbol("x", real=True)
    parsed = parse_claim(claim("-x^2 == -(x^2)"))
    assert parsed.conclusion[0].simplified.lhs == -(x**2)
    parsed = parse_claim(claim("2^3^2 == 512"))
    assert parsed.conclusion[0].lhs == 512  # constants are folded to their value


def test_chained_relation_becomes_conjunction() -> None:
    parsed = parse_claim(claim("0 <= x^2 < x^2 + 1"))
    assert [r.op for r in parsed.conclusion] == ["<=", "<"]


def test_single_equals_means_equality() -> None:
    assert parse_claim(claim("x = x")).conclusion[0].op == "=="


def test_sum_kept_as_written_and_index_scope() -> None:
    """A sum reaches the checkers as written: never replaced by a computer-algebra closed form
    (the old parser turned this identity into `a = a` before any checker saw it)."""
    n = ClaimVariable(name="n", domain="natural", low=1)
    parsed = parse_claim(claim("Sum(k^2, (k, 1, n)) == n*(n + 1)*(2*n + 1)/6", variables=[n]))
    lhs = parsed.conclusion[0].lhs
    assert isinstance(lhs, sp.Sum) and isinstance(parsed.conclusion[0].simplified.lhs, sp.Sum)
    assert lhs.limits == ((lhs.variables[0], 1, parsed.symbols["n"]),)
    with pytest.raises(ClaimError, match="unknown identifier.*'k'"):
        parse_claim(claim("Sum(k, (k, 1, n)) + k >= 0", variables=[n]))
    with pytest.raises(ClaimError, match="sum index"):
        parse_claim(claim("Sum(n, (n, 1, 3)) >= 0", variables=[n]))
    with pytest.raises(ClaimError, match="Sum\\(expr, \\(k, a, b\\)\\)"):
        parse_claim(claim("Sum(k, k) >= 0", variables=[n]))


def test_domains() -> None:
    variables = [
        ClaimVariable(name="a", domain="positive"),
        ClaimVariable(name="b", domain="nonnegative", high=5),
        ClaimVariable(name="n", domain="natural", low=2),
        ClaimVariable(name="m", domain="integer", low=-1.5, high=3, open_high=True),
        ClaimVariable(name="t", domain="interval", low=0, high=1, open_low=True),
    ]
    doms = parse_claim(claim("a + b + n + m + t >= 0", variables=variables)).domains
    assert doms["a"] == VarDomain("real", sp.Integer(0), None, True, False)
    assert doms["b"] == VarDomain("real", sp.Integer(0), sp.Integer(5), False, False)
    assert doms["n"] == VarDomain("int", sp.Integer(2), None)
    assert doms["m"] == VarDomain("int", sp.Integer(-1), sp.Integer(2))
    assert doms["t"] == VarDomain("real", sp.Integer(0), sp.Integer(1), True, False)


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ([ClaimVariable(name="x", domain="interval")], "interval needs"),
        ([ClaimVariable(name="x", low=2, high=1)], "empty"),
        ([ClaimVariable(name="x"), ClaimVariable(name="x")], "declared twice"),
        ([ClaimVariable(name="pi")], "reserved"),
        ([ClaimVariable(name="lambda")], "reserved"),
        ([ClaimVariable(name="x__y")], "invalid"),
        ([ClaimVariable(name="_x")], "invalid"),
    ],
)
def test_bad_variables(variables: list[ClaimVariable], message: str) -> None:
    with pytest.raises(ClaimError, match=message):
        parse_claim(claim("1 >= 0", variables=variables))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("y + z >= 0", "unknown identifier\\(s\\) 'y', 'z'"),
        ("foo(x) >= 0", "unknown function 'foo'"),
        ("x(2) >= 0", "x is a variable"),
        ("sqrt >= 0", "sqrt is a function"),
        ("2x >= 0", "missing operator"),
        ("x y >= 0", "missing operator"),
        ("x >= ", "ends unexpectedly"),
        ("x + 1", "expected a relation"),
        ("log(x, 1, 2) > 0", "takes 1 to 2"),
        ("x! >= 1", "factorial"),
        ("\\sqrt{x} >= 0", "LaTeX"),
        ("|x| >= 0", "abs"),
        ("x ≤ 1", "<="),
        ("log(-1) < 0", "undefined"),
        ("x != 0 != 1", "cannot be chained"),
        ("(x, 1) > 0", "only allowed as the"),
        ("1e99999 > x", "out of range"),
        ("2^(10^9) > x", "exponent"),
        ("3^(10^5) > x", "too large"),
        ("10^3000*10^3000 > x", "13,000 bits"),  # each power is fine, their product is not
        ("x <= Sum(2^k, (k, 1, 100000))", "terms"),
        ("factorial(10^7) > x", "out of range"),
        ("Sum(sin(k), (k, 1, 10^9)) > x", "terms"),
    ],
)
def test_rejections_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(ClaimError, match=message):
        parse_claim(claim(text))


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('touch /tmp/eurekaclaw_pwned') > 0",
        "x.__class__ > 0",
        "().__class__.__bases__[0] > 0",
        "lambda: 1 > 0",
        "x.real > 0",
        "[x][0] > 0",
        "'a' > 0",
        "x; import os",
        "eval('1') > 0",
        "exec > 0",
        "x @ x > 0",
    ],
)
def test_hostile_input_is_rejected_without_execution(text: str, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ClaimError):
        parse_claim(claim(text))
    assert not (tmp_path / "eurekaclaw_pwned").exists()


def test_huge_and_deep_inputs_are_rejected_quickly() -> None:
    started = time.monotonic()
    with pytest.raises(ClaimError, match="characters long"):
        parse_claim(claim("x + " * 250_000 + "x > 0"))  # 1 MB
    with pytest.raises(ClaimError, match="nested too deeply"):
        parse_claim(claim("(" * 500 + "x" + ")" * 500 + " > 0"))
    with pytest.raises(ClaimError, match="nested too deeply"):
        parse_claim(claim("-" * 500 + "x > 0"))
    with pytest.raises(ClaimError, match="nested too deeply"):
        parse_claim(claim("x" + "^x" * 200 + " > 0"))
    assert time.monotonic() - started < 30  # generous: only guards against a hang


def test_long_flat_sum_within_limit_parses() -> None:
    parsed = parse_claim(claim("x" + " + x" * 1200 + " >= 0"))
    assert parsed.conclusion[0].simplified.lhs == 1201 * sp.Symbol("x", real=True)


def test_user_text_never_reaches_eval_or_sympify(monkeypatch: pytest.MonkeyPatch) -> None:
    import sympy.physics  # noqa: F401  (sympy evaluates its own constants on first import)

    seen: list[str] = []
    real_eval, real_sympify, real_parse = builtins.eval, sp.sympify, sympy_parser.parse_expr

    def spy(real):
        def wrapper(arg, *a, **k):
            if isinstance(arg, str):
                seen.append(arg)
            return real(arg, *a, **k)

        return wrapper

    monkeypatch.setattr(builtins, "eval", spy(real_eval))
    monkeypatch.setattr(sp, "sympify", spy(real_sympify))
    monkeypatch.setattr(sympy_parser, "parse_expr", spy(real_parse))
    variables = [ClaimVariable(name="canaryvar", domain="positive")]
    parse_claim(claim("canaryvar + 1/canaryvar >= 2 + 0*log(canaryvar)", variables=variables))
    assert not [s for s in seen if "canary" in s]


def test_definedness_conditions_survive_simplification() -> None:
    parsed = parse_claim(claim("sqrt(x)^2 >= 0"))
    x = sp.Symbol("x", real=True)
    assert parsed.conclusion[0].lhs == sp.Pow(sp.sqrt(x), 2, evaluate=False)  # kept as written
    assert parsed.conclusion[0].simplified.lhs == x  # sympy's own form drops the root
    assert [(c.op, str(c.lhs)) for c in parsed.conditions] == [(">=", "x")]
    parsed = parse_claim(claim("log(x - 1) + 1/(x - 2) >= 0"))
    assert {(c.op, str(c.lhs)) for c in parsed.conditions} == {(">", "x - 1"), ("!=", "x - 2")}


def test_expressions_are_kept_as_written() -> None:
    """sympy would turn sqrt(x*y) into sqrt(x)*sqrt(y) for x >= 0 (undefined at y < 0 although
    the product may be 0): the parsed claim keeps the form the checkers must see."""
    variables = [ClaimVariable(name="x", domain="nonnegative"), ClaimVariable(name="y")]
    parsed = parse_claim(claim("sqrt(x*y) + y >= 0", variables=variables))
    x, y = parsed.symbols["x"], parsed.symbols["y"]
    lhs = parsed.conclusion[0].lhs
    assert sp.Pow(sp.Mul(x, y, evaluate=False), sp.Rational(1, 2), evaluate=False) in lhs.args
    assert not any(isinstance(a, sp.Pow) and a.base == y for a in sp.preorder_traversal(lhs))
    assert sp.sqrt(y) in sp.preorder_traversal(parsed.conclusion[0].simplified.lhs)
    assert [(c.op, str(c.lhs)) for c in parsed.conditions] == [(">=", "x*y")]
    # the difference used by the checkers is unevaluated as well: x/x - 1 is not 0
    rel = parse_claim(claim("x/x >= 1")).conclusion[0]
    assert rel.difference() != 0 and sp.simplify(rel.difference()) == 0
    assert [c.op for c in parse_claim(claim("x/x >= 1")).conditions] == ["!="]


def test_conditions_the_domain_guarantees_are_not_recorded() -> None:
    positive = [ClaimVariable(name="x", domain="positive")]
    assert parse_claim(claim("log(x) + sqrt(x) + 1/x >= -100", variables=positive)).conditions == []
    assert parse_claim(claim("sqrt(x^2 + 1) >= 1")).conditions == []
    assert [c.op for c in parse_claim(claim("log(x) <= x")).conditions] == [">"]
    both = [ClaimVariable(name="a", domain="positive"), ClaimVariable(name="n", domain="natural")]
    assert parse_claim(claim("sqrt(a*n) + sqrt(n - 1 + 1) >= 0", variables=both)).conditions == []
    # only simple sign rules decide: sympy itself calls binomial(n, 3) non-positive for every
    # integer n and would wrongly drop this one
    kept = parse_claim(claim("sqrt(10^400 - binomial(n, 3)) >= 0", variables=both)).conditions
    assert [c.op for c in kept] == [">="]


def test_conclusion_conditions_and_relation_index() -> None:
    parsed = parse_claim(claim("sqrt(x - 1) >= 0", "log(x) > 0", "x <= 3"))
    assert [r.index for r in parsed.assumptions] == [0, 1]
    assert [r.index for r in parsed.conclusion] == [-1]
    assert {str(c.lhs) for c in parsed.conditions} == {"x", "x - 1"}
    assert [str(c.lhs) for c in parsed.conclusion_conditions] == ["x - 1"]


def test_display_mode_keeps_numbers_and_sums() -> None:
    n = ClaimVariable(name="n", domain="natural", low=1)
    parsed = parse_claim(claim("Sum(k, (k, 1, n)) <= 2^3*n^2", variables=[n]), display=True)
    rel = parsed.conclusion[0]
    assert isinstance(rel.lhs, sp.Sum)
    assert sp.Pow(2, 3, evaluate=False) in rel.rhs.args
    checked = parse_claim(claim("Sum(k, (k, 1, n)) <= 2^3*n^2", variables=[n]))
    # checking folds the constant but keeps the sum (a closed form is a lemma of its own)
    assert isinstance(checked.conclusion[0].lhs, sp.Sum) and 8 in checked.conclusion[0].rhs.args
