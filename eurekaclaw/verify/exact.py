"""Exact / high-precision evaluation of a claim at one point.

This is the arbiter for every counterexample: the falsifier and the SMT checker only report a
counterexample that this module confirms. Values are substituted as exact rationals (a float is
read as the decimal it prints as), so floor(10*x) at x=0.1 is exactly 1. When an exact result
would be enormous (factorial(10^6), x^n with n = 10^6) the claim is evaluated with mpmath at 60
digits instead, and a difference too close to zero to call is reported as undecided, never as
a violation.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import mpmath
import sympy as sp

from eurekaclaw.types.artifacts import Claim
from eurekaclaw.verify.claims import ParsedClaim, Relation, parse_claim
from eurekaclaw.verify.forms import evaluated
from eurekaclaw.verify.numeric import TooLarge, compile_mpmath

MP_DIGITS = 60
MAX_MP_INPUT_DIGITS = 3_000  # inputs longer than this are not evaluated in high precision
ZERO_TOL = mpmath.mpf(10) ** -40  # relative; below this a difference is "too close to call"
EXACT_EXPONENT_LIMIT = 5_000
EXACT_SPECIAL_LIMIT = 3_000
EXACT_SUM_TERMS = 50
# Unambiguous (no quadratic backtracking); the length is capped separately, long enough for a
# solver's model far beyond the float range and below Python's limit on converting digit
# strings to int (4,300 digits).
_EXACT_STR = re.compile(r"-?\d+(/\d+)?|-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?")
MAX_EXACT_CHARS = 4_200

Status = Literal["holds", "fails", "outside", "undefined", "undecided"]


@dataclass
class ClaimEvaluation:
    """holds: True/False, or None when the point is outside the domain/assumptions, a
    sub-expression is undefined there, or the sign could not be decided.
    slack: the conclusion's margin (positive = holds; for == it is -|lhs - rhs|)."""

    holds: bool | None
    slack: float
    detail: str
    status: Status = "undecided"


@lru_cache(maxsize=256)
def _parsed(claim_json: str) -> ParsedClaim:
    return parse_claim(Claim.model_validate_json(claim_json))


def parsed_for(claim: Claim) -> ParsedClaim:
    return _parsed(claim.model_dump_json())


def to_exact(value: Any) -> sp.Expr:
    """An assignment value as an exact number: a rational (floats are read as their shortest
    repr), or a real algebraic number written as a solver model gives it ("sqrt(2)",
    "CRootOf(x^5 - x - 1, 0)"; smt_translate.model_value)."""
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, str):
        text = value.strip()
        if len(text) > MAX_EXACT_CHARS:
            raise ValueError(f"{value[:40]!r} is not a number")
        if not _EXACT_STR.fullmatch(text):
            return _algebraic(text)
        return sp.Rational(text)
    number = float(value)  # numpy scalars and friends
    if not math.isfinite(number):
        raise ValueError(f"{number} is not finite")
    if number == int(number) and abs(number) < 2**53:
        return sp.Integer(int(number))
    return sp.Rational(repr(number))


_ROOT_OF = re.compile(r"CRootOf\(([-+*^ x0-9]{1,400}), (\d{1,3})\)")
MAX_ALGEBRAIC_CHARS = 400


def _algebraic(text: str) -> sp.Expr:
    """A real algebraic number from its exact text, through the claim language's own safe
    parser (never eval): radicals over the rationals, or the index-th real root of an integer
    polynomial in x."""
    from eurekaclaw.types.artifacts import ClaimVariable
    from eurekaclaw.verify.claims import parse_expression
    from eurekaclaw.verify.grammar import ClaimError

    if len(text) > MAX_ALGEBRAIC_CHARS:
        raise ValueError(f"{text[:40]!r} is not a number")
    try:
        m = _ROOT_OF.fullmatch(text)
        if m is not None:
            x = sp.Symbol("x")
            poly = sp.Poly(
                evaluated(parse_expression(m.group(1), [ClaimVariable(name="x")])).subs(sp.Symbol("x", real=True), x), x
            )
            if not poly.is_univariate or poly.degree() < 1 or not all(c.is_Integer for c in poly.all_coeffs()):
                raise ValueError(f"{text[:40]!r} is not a polynomial root")
            value: sp.Expr = sp.CRootOf(poly, int(m.group(2)))
        else:
            value = evaluated(parse_expression(text, []))
    except (ClaimError, sp.PolynomialError, IndexError) as exc:
        raise ValueError(f"{text[:40]!r} is not a number ({exc})") from None
    if not (value.is_number and value.is_real and value.is_algebraic):
        raise ValueError(f"{text[:40]!r} is not a real algebraic number")
    return value


def _mpf(value: sp.Expr) -> Any:
    """The value as an mpmath number at the current working precision."""
    if value.is_Rational:
        return mpmath.mpf(int(value.p)) / int(value.q)
    return mpmath.mpf(sp.Float(value.evalf(mpmath.mp.dps + 10), mpmath.mp.dps + 10))


def _input_digits(value: sp.Expr) -> int:
    if value.is_Rational:
        return int((abs(int(value.p)).bit_length() + int(value.q).bit_length()) * 0.30103) + 2
    return 30  # an algebraic number from a solver model: small coefficients


def _exact_is_cheap(parsed: ParsedClaim, approx: dict[sp.Symbol, float]) -> bool:
    """Whether exact rational evaluation stays small at this point."""
    approx = dict(approx)

    def value(e: sp.Expr) -> float:
        try:
            return abs(float(e.evalf(15, subs=approx)))
        except (TypeError, ValueError, OverflowError):
            return math.inf

    # A sum index stands for its largest bound (in size), so a power k^n or x^k inside a sum is
    # costed at its worst term; outer sums first, since inner bounds may use outer indices.
    for expr in parsed.all_expressions():
        for node in sp.preorder_traversal(expr):
            if isinstance(node, sp.Sum):
                for index, low, high in node.limits:
                    approx[index] = max(value(low), value(high))

    for expr in parsed.all_expressions():
        for node in sp.preorder_traversal(expr):
            if isinstance(node, sp.Pow) and not node.exp.is_Number and value(node.exp) > EXACT_EXPONENT_LIMIT:
                return False
            if isinstance(node, sp.factorial | sp.harmonic | sp.gamma) and value(node.args[0]) > EXACT_SPECIAL_LIMIT:
                return False
            if isinstance(node, sp.binomial) and value(node.args[0]) > 50 * EXACT_SPECIAL_LIMIT:
                return False
            if isinstance(node, sp.Sum):
                # no closed form: adding up irrational terms symbolically is slow and no more
                # certain than mpmath at 60 digits
                _, low, high = node.limits[0]
                if value(high - low) > EXACT_SUM_TERMS:
                    return False
    return True


PROBE_DIGITS = 15


def _too_large(parsed: ParsedClaim, exact: dict[sp.Symbol, sp.Expr]) -> str | None:
    """Why the point is beyond what can be evaluated in reasonable time (exp(exp(10^6)): both
    sympy and mpmath would work with 1.4 million bits), or None. Probed at low precision with
    guarded functions before anything else touches the point."""
    probe = parsed.cache.get("probe")
    if probe is None:
        probe = parsed.cache["probe"] = compile_mpmath(
            list(parsed.symbols.values()), parsed.all_expressions(), guarded=True
        )
    with mpmath.workdps(PROBE_DIGITS):
        args = [_mpf(exact[s]) for s in parsed.symbols.values()]
        try:
            probe(*args)
        except TooLarge as exc:
            return str(exc)
        except (ZeroDivisionError, ValueError, OverflowError, TypeError):
            pass  # undefined points are the evaluation's business; the probe only guards cost
    return None


class _Decider:
    """Signs of relation differences at one point, exactly when cheap, else with mpmath."""

    def __init__(self, parsed: ParsedClaim, exact: dict[sp.Symbol, sp.Expr]) -> None:
        self.parsed = parsed
        self.exact = exact
        approx = {s: float(v) for s, v in exact.items()}
        self.cheap = _exact_is_cheap(parsed, approx)
        self.unstable = False  # a high-precision value changed with the working precision

    def _mp(self, expr: sp.Expr) -> Any:
        """The value at MP_DIGITS digits beyond what the inputs need (so n = 10^400 + 1 and
        n - 2 stay different numbers), computed twice, the second time at double precision:
        when the two disagree the working precision was not enough (a cancellation inside,
        say), and the value is nan — undecided — rather than a confident wrong sign."""
        # bit lengths, not str(): Python refuses to print integers of more than 4,300 digits
        input_digits = max(
            (_input_digits(v) for v in self.exact.values()),
            default=0,
        )
        if input_digits > MAX_MP_INPUT_DIGITS:
            return mpmath.nan
        fn = self.parsed.cache.get(("mp", expr))
        if fn is None:
            fn = self.parsed.cache[("mp", expr)] = compile_mpmath(list(self.exact), [expr], guarded=True)
        digits = MP_DIGITS + input_digits
        values = []
        for dps in (digits, 2 * digits):
            with mpmath.workdps(dps):
                args = [_mpf(v) for v in self.exact.values()]
                try:
                    values.append(fn(*args)[0])
                except (ZeroDivisionError, ValueError, OverflowError, TypeError, TooLarge):
                    return mpmath.nan
        low, high = values
        with mpmath.workdps(2 * digits):
            try:
                if not (mpmath.isfinite(low) and mpmath.isfinite(high)):
                    return mpmath.nan
                if abs(high - low) > mpmath.mpf(10) ** -(MP_DIGITS // 2) * max(abs(high), abs(low)):
                    self.unstable = True
                    return mpmath.nan
            except TypeError:
                return mpmath.nan
        return high

    def _value(self, expr: sp.Expr) -> tuple[Any, sp.Expr | None]:
        """(mpmath number or nan, exact sympy value when available)."""
        if self.cheap:
            exact = expr.xreplace(self.exact) if self.exact else expr
            if not exact.is_Number:
                exact = evaluated(exact)  # nodes xreplace left alone are still as written
            if exact.has(sp.Sum):
                exact = exact.doit()
            if exact.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or exact.free_symbols:
                return mpmath.nan, None
            with mpmath.workdps(MP_DIGITS):
                num = exact.evalf(MP_DIGITS)
                re_part, im_part = num.as_real_imag()
                if not (re_part.is_Number and im_part.is_Number):
                    return mpmath.nan, None
                if im_part != 0 and abs(im_part) > ZERO_TOL * (1 + abs(re_part)):
                    return mpmath.nan, None
                return mpmath.mpf(str(re_part)) if re_part != 0 else mpmath.mpf(0), exact
        value = self._mp(expr)
        if isinstance(value, mpmath.mpc):
            if abs(value.imag) > ZERO_TOL * (1 + abs(value.real)):
                return mpmath.nan, None
            value = value.real
        return (mpmath.mpf(value) if isinstance(value, int | float | mpmath.mpf) else mpmath.nan), None

    def sign(self, rel: Relation) -> tuple[int | None, Any, str]:
        """(-1/0/1 sign of rel.difference(), its value, note); None sign = undefined/undecided."""
        diff = rel.difference()
        self.unstable = False
        d, exact = self._value(diff)
        if not mpmath.isfinite(d):
            return (
                None,
                d,
                "the value changes with the working precision; cannot decide" if self.unstable else "undefined",
            )
        if exact is not None and exact.is_Rational:
            return (0 if exact == 0 else 1 if exact > 0 else -1), d, "exact"
        # Relative to the sides, so exp(-10^6) vs exp(-2*10^6) is still decided.
        scale = max(abs(self._value(rel.lhs)[0]), abs(self._value(rel.rhs)[0]))
        if not mpmath.isfinite(scale):
            scale = abs(d)
        if d != 0 and abs(d) > ZERO_TOL * scale:
            return (1 if d > 0 else -1), d, "exact" if self.cheap else f"{MP_DIGITS} digits"
        if exact is not None and (exact.is_zero or _algebraic_zero(exact) or sp.simplify(exact) == 0):
            return 0, mpmath.mpf(0), "exact"
        return None, d, f"|difference| < 1e-40 at {MP_DIGITS} digits; cannot decide"


def _algebraic_zero(value: sp.Expr) -> bool:
    """Whether an algebraic number (an expression in roots at a solver's model) is exactly 0:
    its minimal polynomial is x. Anything else, or a failure, is 'not shown to be zero'."""
    if not value.is_number or value.has(sp.exp, sp.log, sp.sin, sp.cos, sp.tan, sp.pi, sp.E):
        return False
    if not value.has(sp.CRootOf, sp.Pow):
        return False
    x = sp.Dummy("x")
    try:
        return bool(sp.minimal_polynomial(value, x) == x)
    except (NotImplementedError, ValueError, TypeError, sp.PolynomialError):
        return False


def _truth(op: str, sign: int) -> bool:
    return {"<=": sign >= 0, ">=": sign >= 0, "<": sign > 0, ">": sign > 0, "==": sign == 0, "!=": sign != 0}[op]


def _slack(op: str, d: Any) -> float:
    value = float(d) if mpmath.isfinite(d) else math.nan
    if op == "==":
        return -abs(value)
    if op == "!=":
        return abs(value)
    return value


def evaluate_parsed(parsed: ParsedClaim, assignment: dict[str, Any]) -> ClaimEvaluation:
    point = _exact_point(parsed, assignment)
    if isinstance(point, ClaimEvaluation):
        return point
    too_large = _too_large(parsed, point)
    if too_large is not None:
        return ClaimEvaluation(None, math.nan, f"cannot be evaluated here: {too_large}", "undecided")
    decider = _Decider(parsed, point)
    failure = _premises_fail(parsed, decider)
    return failure if failure is not None else _conclusion(parsed, decider)


def _exact_point(parsed: ParsedClaim, assignment: dict[str, Any]) -> dict[sp.Symbol, sp.Expr] | ClaimEvaluation:
    """The assignment as exact values, or the evaluation saying why it is not a point of the domain."""
    exact: dict[sp.Symbol, sp.Expr] = {}
    for name, symbol in parsed.symbols.items():
        if name not in assignment:
            return ClaimEvaluation(None, math.nan, f"no value for variable {name}", "outside")
        try:
            value = to_exact(assignment[name])
        except (ValueError, TypeError, OverflowError) as exc:
            return ClaimEvaluation(None, math.nan, f"{name}: {exc}", "outside")
        domain = parsed.domains[name]
        if not domain.contains(value):
            return ClaimEvaluation(
                None, math.nan, f"{name}={value} is outside its domain ({domain.describe()})", "outside"
            )
        exact[symbol] = value
    return exact


def _premises_fail(parsed: ParsedClaim, decider: _Decider) -> ClaimEvaluation | None:
    """Why the point does not count (a definedness condition or an assumption fails or cannot be
    decided), or None when every premise holds."""
    for rel in parsed.conditions:
        sign, _, note = decider.sign(rel)
        if sign is None or not _truth(rel.op, sign):
            why = "cannot be decided" if sign is None else "fails"
            return ClaimEvaluation(None, math.nan, f"undefined here: {rel.text} {why}", "undefined")
    for rel in parsed.assumptions:
        sign, _, note = decider.sign(rel)
        if sign is None:
            return ClaimEvaluation(
                None, math.nan, f"assumption {rel.text!r} cannot be decided here ({note})", "undefined"
            )
        if not _truth(rel.op, sign):
            return ClaimEvaluation(None, math.nan, f"assumption {rel.text!r} does not hold here", "outside")
    return None


def _conclusion(parsed: ParsedClaim, decider: _Decider) -> ClaimEvaluation:
    slacks: list[float] = []
    failed: list[str] = []
    undecided: list[str] = []
    method = "exact" if decider.cheap else f"{MP_DIGITS}-digit"
    for rel in parsed.conclusion:
        sign, d, note = decider.sign(rel)
        slacks.append(_slack(rel.op, d))
        if sign is None:
            undecided.append(f"{rel.text} ({note})")
        elif not _truth(rel.op, sign):
            failed.append(f"{rel.op} fails with difference {mpmath.nstr(d, 12)}")
    slack = min(slacks) if slacks else math.nan
    if failed:
        return ClaimEvaluation(
            False, slack, f"conclusion violated ({method} arithmetic): " + "; ".join(failed), "fails"
        )
    if undecided:
        return ClaimEvaluation(None, slack, "conclusion undecided: " + "; ".join(undecided), "undecided")
    return ClaimEvaluation(True, slack, f"conclusion holds ({method} arithmetic), slack {slack:.6g}", "holds")


def evaluate_claim_at(claim: Claim, assignment: dict[str, float]) -> ClaimEvaluation:
    """Re-check `claim` at one point in exact/high-precision arithmetic. Values may be ints,
    floats (read as their decimal repr) or exact strings such as "1/3". Raises ClaimError when
    the claim itself does not parse."""
    return evaluate_parsed(parsed_for(claim), assignment)
