"""coq_statement: the Coq proposition generated from a claim. Text-level tests pin the mapping;
a few real coqc proofs show the encodings mean what they should (sum index shift, empty sums,
integer bounds, floor)."""

from __future__ import annotations

import math
import re

import pytest
from toolreq import require_tool

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify import CoqUntranslatable, coq_check_claim
from eurekaclaw.verify.claims import parse_claim
from eurekaclaw.verify.coq_statement import coq_statement
from eurekaclaw.verify.forms import evaluated
from eurekaclaw.verify.grammar import ClaimError

X = ClaimVariable(name="x")
X_GT_M1 = ClaimVariable(name="x", low=-1, open_low=True)
POS_A, POS_B = ClaimVariable(name="a", domain="positive"), ClaimVariable(name="b", domain="positive")
N = ClaimVariable(name="n", domain="natural")
N1 = ClaimVariable(name="n", domain="natural", low=1)
Z = ClaimVariable(name="z", domain="integer")


def stmt(variables: list[ClaimVariable], conclusion: str, assumptions: tuple[str, ...] = ()) -> str:
    return coq_statement(Claim(variables=variables, conclusion=conclusion, assumptions=list(assumptions)))


@pytest.mark.parametrize(
    ("variables", "conclusion", "assumptions", "expected"),
    [
        (
            [POS_A, POS_B],
            "(a + b)/2 >= sqrt(a*b)",
            (),
            "forall (a : R) (b : R),\n  0 < a ->\n  0 < b ->\n  (a + b) / 2 >= sqrt (a * b)",
        ),
        (
            [N1, X_GT_M1],
            "(1 + x)^n >= 1 + n*x",
            (),
            "forall (n : nat) (x : R),\n  (1 <= n)%nat ->\n  -1 < x ->\n  (x + 1) ^ n >= INR n * x + 1",
        ),
        (
            [X_GT_M1],
            "x/(1 + x) <= log(1 + x) <= x",
            (),
            # x > -1 already makes x + 1 positive: no definedness hypothesis is needed
            "forall (x : R),\n  -1 < x ->\n  x / (x + 1) <= ln (x + 1) /\\ ln (x + 1) <= x",
        ),
        (
            [X, ClaimVariable(name="y")],
            "x*y <= 1/4",
            ("x + y == 1",),
            "forall (x : R) (y : R),\n  x + y = 1 ->\n  x * y <= 1 / 4",
        ),
        ([X], "-x^2 + 3*x/2 - 0.1 >= -1", (), "forall (x : R),\n  - x ^ 2 + 3 * x / 2 - 1 / 10 >= -1"),
        ([X], "abs(x) >= min(x, 0, -x)", (), "forall (x : R),\n  Rabs x >= Rmin 0 (Rmin x (- x))"),
        ([X], "x^(3/4) >= x^(-1/2)", (), "forall (x : R),\n  x >= 0 ->\n  x > 0 ->\n  sqrt (sqrt x) ^ 3 >= 1 / sqrt x"),
        ([X, Z], "x^z != 0", (), "forall (x : R) (z : Z),\n  x <> 0 ->\n  powerRZ x z <> 0"),
        ([X, POS_A], "a^x > 0", (), "forall (x : R) (a : R),\n  0 < a ->\n  Rpower a x > 0"),
        ([POS_A], "(a + 1)^(1/3) >= 0", (), "forall (a : R),\n  0 < a ->\n  Rpower (a + 1) (1 / 3) >= 0"),
        ([X], "log(x, 2) > 0", (), "forall (x : R),\n  x > 0 ->\n  ln x / ln 2 > 0"),
        ([X], "tan(x) > exp(x) - e*pi", (), "forall (x : R),\n  cos x <> 0 ->\n  tan x > exp x - exp 1 * PI"),
        (
            [X],
            "floor(x) <= x < ceil(x) + 1",
            (),
            "forall (x : R),\n  IZR (Int_part x) <= x /\\ x < IZR (- Int_part (- x)) + 1",
        ),
        ([N], "factorial(n) >= 1", (), "forall (n : nat),\n  INR (fact n) >= 1"),
        (
            [ClaimVariable(name="R"), ClaimVariable(name="PI"), ClaimVariable(name="fun")],
            "R + PI + fun >= pi",
            (),
            "forall (R_ : R) (PI_ : R) (fun_ : R),\n  PI_ + R_ + fun_ >= PI",
        ),
        ([], "log(2) > 0", (), "ln 2 > 0"),
        # sums: sum_f_R0 f N adds f 0 .. f N, so Σ_{k=1}^{n} shifts by 1 and counts n - 1
        (
            [N1],
            "Sum(1/k^2, (k, 1, n)) <= 2 - 1/n",
            (),
            "forall (n : nat),\n  (1 <= n)%nat ->\n"
            "  sum_f_R0 (fun k : nat => 1 / INR (k + 1) ^ 2) (n - 1) <= 2 - 1 / INR n",
        ),
        (
            [N],
            "Sum(sqrt(k), (k, 1, n)) >= 0",
            (),  # n = 0 is allowed: the empty sum
            "forall (n : nat),\n"
            "  (if (n <? 1)%nat then 0 else sum_f_R0 (fun k : nat => sqrt (INR (k + 1))) (n - 1)) >= 0",
        ),
        (
            [N, X],
            "Sum(x^k, (k, 0, n)) <= 2",
            # the sum as written (no computer-algebra closed form), and no hidden x <> 0: the
            # exponent k ranges over 0..n
            (),
            "forall (n : nat) (x : R),\n  sum_f_R0 (fun k : nat => x ^ k) n <= 2",
        ),
        (
            [N],
            "Sum(Sum(1/(j + 1), (j, 0, k)), (k, 0, n - 1)) >= 0",
            (),
            "forall (n : nat),\n  (if (n <? 1)%nat then 0 else sum_f_R0 (fun k : nat => "
            "sum_f_R0 (fun j : nat => 1 / (INR j + 1)) k) (n - 1)) >= 0",
        ),
    ],
)
def test_statement_text(
    variables: list[ClaimVariable], conclusion: str, assumptions: tuple[str, ...], expected: str
) -> None:
    assert stmt(variables, conclusion, assumptions) == expected


def test_integer_sum_bounds_use_Z() -> None:
    text = stmt([N, Z], "Sum(1/(k^2 + 1), (k, z, n)) <= 2")
    assert "INR n - IZR z + 1 >= 0 ->" in text  # the claim's own condition b >= a - 1
    assert (
        "(if (((Z.of_nat n) - z) <? 0)%Z then 0 else sum_f_R0 (fun k : nat => "
        "1 / (IZR (Z.of_nat k + z) ^ 2 + 1)) (Z.to_nat ((Z.of_nat n) - z)))" in text
    )


@pytest.mark.parametrize(
    ("variables", "conclusion", "why"),
    [
        ([N], "binomial(n, 2) >= 0", "binomial"),
        ([X], "x^(1/3) >= 0", "odd root"),  # Rpower 0 (1/3) = 1, not 0
    ],
)
def test_untranslatable_claims_raise(variables: list[ClaimVariable], conclusion: str, why: str) -> None:
    with pytest.raises(CoqUntranslatable, match=why):
        stmt(variables, conclusion)
    assert issubclass(CoqUntranslatable, ClaimError)


def test_unparseable_claim_raises_claim_error() -> None:
    with pytest.raises(ClaimError):
        stmt([X], "y > 0")


# --- the encodings, proved in Coq -----------------------------------------------------------


@pytest.fixture(scope="module")
def coqc() -> str:
    return require_tool("coqc")


NAT_IS = "assert (Hn : n = {v}%nat) by (apply INR_eq; rewrite H; simpl; lra).\nsubst n. simpl. {close}"


@pytest.mark.parametrize(
    ("claim", "script"),
    [
        # 1/1 + 1/4: a sum from k = 0, or with three terms, would not be 5/4
        (
            Claim(variables=[N], assumptions=["n == 2"], conclusion="Sum(1/k^2, (k, 1, n)) == 5/4"),
            "intros n H.\n" + NAT_IS.format(v=2, close="field."),
        ),
        # n = 0: the empty sum is 0
        (
            Claim(variables=[N], assumptions=["n == 0"], conclusion="Sum(1/k^2, (k, 1, n)) == 0"),
            "intros n H.\n" + NAT_IS.format(v=0, close="reflexivity."),
        ),
        # integer bounds k = -1, 0, 1: 1/2 + 1 + 1/2
        (
            Claim(variables=[N, Z], assumptions=["n == 1", "z == -1"], conclusion="Sum(1/(k^2 + 1), (k, z, n)) == 2"),
            # (no hypothesis n - z + 1 >= 0: the assumptions already give it, signs.py)
            "intros n z Hn Hz.\nassert (En : n = 1%nat) by (apply INR_eq; rewrite Hn; simpl; lra).\n"
            "assert (Ez : z = (-1)%Z) by (apply eq_IZR; exact Hz).\nsubst n z. simpl. field.",
        ),
        # floor is Int_part: the two inequalities that characterise it
        (Claim(variables=[X], conclusion="floor(x) <= x < floor(x) + 1"), "intros x. destruct (base_Int_part x). lra."),
    ],
    ids=["shift", "empty", "integer-bounds", "floor"],
)
def test_encodings_are_exact(coqc: str, claim: Claim, script: str) -> None:
    result = coq_check_claim(claim, script, timeout_s=120)
    assert result.verdict == "passed", result.detail


# --- the printer: a small reader of Coq's R_scope notation evaluates the generated text -------

_LEVELS = {"+": 50, "-": 50, "*": 40, "/": 40, "^": 30}
_FUNCTIONS = {
    "sqrt": math.sqrt,
    "ln": math.log,
    "exp": math.exp,
    "Rabs": abs,
    "Rmin": min,
    "Rmax": max,
    "Rpower": lambda a, b: math.exp(b * math.log(a)),
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
}


def _eval_coq(text: str, env: dict[str, float]) -> float:
    """Evaluate a term of the generated statement with Coq's levels (+ - 50 left, * / 40 left,
    unary - 35, ^ 30 right, application 10), independently of the printer."""
    tokens = re.findall(r"\d+|[A-Za-z_][\w']*|[-+*/^()]", text)
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def atom() -> float:
        tok = take()
        if tok == "(":
            value = expr(200)
            assert take() == ")"
            return value
        if tok.isdigit():
            return float(tok)
        if tok == "PI":
            return math.pi
        if tok in _FUNCTIONS:
            args = []
            while peek() is not None and (peek() == "(" or re.fullmatch(r"\w+", peek() or "")):
                args.append(atom())
            return _FUNCTIONS[tok](*args)
        return env[tok]

    def expr(limit: int) -> float:
        if peek() == "-":
            take()
            left, level = -expr(35), 35
        else:
            left, level = atom(), 10
        while peek() in _LEVELS and _LEVELS[peek()] <= limit:  # type: ignore[index]
            op = take()
            prec = _LEVELS[op]
            if op == "^":
                assert level < 30
                left, level = left ** expr(30), 30
                continue
            right = expr(prec - 1)
            left = {"+": left + right, "-": left - right, "*": left * right, "/": left / right}[op]
            level = prec
        return left

    value = expr(200)
    assert pos == len(tokens), text
    return value


@pytest.mark.parametrize(
    "expression",
    [
        "x - (y - x)",
        "x - y - x",
        "-(x + y)*2",
        "(-x)^2 - -x^3",
        "x/(y*x) + 1",
        "x/y/x",
        "2^(x^2)",
        "-x^2",
        "(x - y)^3/(x + y)^2",
        "sqrt(x*y) - sqrt(x)/y",
        "log(x + y, 2)*exp(-x)",
        "abs(x - y) - min(x, y, 1) + max(x, -y)",
        "x^(3/2) - x^(-1/2)",
        "1/(1/x)",
        "x - 3*y/4 - 0.5",
        "-(x - y)",
        "x*(-y)",
        "x^(1/4)*y",
        "(x + 1)^(-2)",
        "1 - 1/(1 + x^2)",
        "x^y - y^x",
        "2*-x + -(3)*y",
        "-(-(x))",
        "(x*y)^2/(x/y)",
        "exp(x)^2 - exp(2*x)",
        "sin(x)^2 + cos(x)^2 - tan(y)*pi",
        "e^x - x^e",
    ],
)
def test_printed_terms_mean_what_the_claim_means(expression: str) -> None:
    variables = [ClaimVariable(name="x", domain="positive"), ClaimVariable(name="y", domain="positive")]
    claim = Claim(variables=variables, conclusion=f"{expression} == 0")
    parsed = parse_claim(claim)
    text = coq_statement(parsed).splitlines()[-1].strip()
    assert text.endswith(" = 0")
    for x, y in [(0.3, 1.7), (1.25, 0.4), (2.5, 2.0), (0.9, 3.1)]:
        expected = float(evaluated(parsed.conclusion[0].lhs).subs({parsed.symbols["x"]: x, parsed.symbols["y"]: y}))
        got = _eval_coq(text[: -len(" = 0")], {"x": x, "y": y})
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), (text, x, y)
