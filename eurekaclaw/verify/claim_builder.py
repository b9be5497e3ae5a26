"""AST (grammar.py) → sympy under the claim language's fixed vocabulary: the constants pi/e, a
whitelist of functions, declared variables and sum indices in their own scope.

Nodes that involve a variable are built unevaluated (as written; see claims.py for why), and
every sub-expression records where it is defined (log argument > 0, denominator != 0, ...).
Constant sub-expressions that sympy would evaluate eagerly (2^(10^9), factorial(10^7)) are
size-checked first, so a claim cannot make the parser hang or exhaust memory.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Callable
from typing import Any

import sympy as sp

from eurekaclaw.verify.claim_model import Relation, RelOp
from eurekaclaw.verify.forms import evaluated, known_sign, negate
from eurekaclaw.verify.grammar import ClaimError, Node
from eurekaclaw.verify.signs import SignFacts

# Largest integer a constant may be (~3,900 digits): every constant must still print, and Python
# refuses to turn integers of more than 4,300 digits into text.
MAX_CONSTANT_BITS = 13_000
MAX_EXPONENT = 10**6
MAX_FACTORIAL = 2_000
MAX_DIRECT_SUM_TERMS = 10_000  # a sum with concrete bounds is added up term by term

NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,39}")
CONSTANTS: dict[str, sp.Expr] = {"pi": sp.pi, "e": sp.E, "E": sp.E}
FUNCTION_ARITY: dict[str, tuple[int, int]] = {
    "sqrt": (1, 1),
    "log": (1, 2),
    "ln": (1, 1),
    "exp": (1, 1),
    "abs": (1, 1),
    "Abs": (1, 1),
    "min": (2, 16),
    "max": (2, 16),
    "Min": (2, 16),
    "Max": (2, 16),
    "floor": (1, 1),
    "ceil": (1, 1),
    "ceiling": (1, 1),
    "sin": (1, 1),
    "cos": (1, 1),
    "tan": (1, 1),
    "factorial": (1, 1),
    "binomial": (2, 2),
    "Sum": (2, 2),
    "sum": (2, 2),
}
RESERVED = set(CONSTANTS) | set(FUNCTION_ARITY) | set(keyword.kwlist) | {"lambda", "I", "oo", "nan", "zoo"}


def _number(text: str, what: str) -> sp.Rational:
    mantissa, _, exponent = text.lower().partition("e")
    if exponent and abs(int(exponent)) > 400:
        raise ClaimError(f"{what}: number {text} is out of range (exponent limit 400)")
    return sp.Rational(text)


def _constant_size_bits(base: sp.Expr) -> float:
    """Roughly how many bits one factor of `base` adds to an exact power of it."""
    if base.is_Rational:
        return float(max(abs(int(base.p)).bit_length(), int(base.q).bit_length())) if abs(base) != 1 else 0.0
    magnitude = abs(complex(base.evalf(15)))
    if not math.isfinite(magnitude):
        return math.inf
    return max(1.0, abs(math.log2(magnitude))) if magnitude > 0 else 0.0


def _check_constant_power(base: sp.Expr, exponent: sp.Expr, what: str) -> None:
    """sympy evaluates powers of constants eagerly; refuse the ones that would be enormous."""
    if not exponent.is_Rational:
        return
    if abs(exponent) > MAX_EXPONENT:
        raise ClaimError(f"{what}: exponent {exponent} is too large (limit {MAX_EXPONENT:,})")
    if base.is_number and abs(exponent) > 1 and abs(float(exponent)) * _constant_size_bits(base) > MAX_CONSTANT_BITS:
        raise ClaimError(f"{what}: the constant ({base})^({exponent}) is too large to handle")


class ExpressionBuilder:
    """AST -> sympy. `display=True` keeps everything as written for rendering: numeric
    sub-expressions are not folded and sums keep their Sum form."""

    def __init__(
        self, symbols: dict[str, sp.Symbol], what: str, *, display: bool = False, facts: SignFacts | None = None
    ) -> None:
        self.symbols = symbols
        self.what = what
        self.display = display
        self.unknown: list[str] = []
        self.unresolved_sum = False
        self.conditions: list[Relation] = []
        # what the domains, the enclosing sums' index ranges and the earlier assumptions say
        # about signs (signs.py); a condition they already guarantee is not added
        self.facts = facts if facts is not None else SignFacts({}, [])

    def make(self, cls: Any, *args: sp.Expr) -> sp.Expr:
        """A node as written; folded to its value when it involves no variable."""
        if not self.display and all(a.is_number for a in args):
            return self.sized(cls(*args))
        return cls(*args, evaluate=False)

    def sized(self, value: sp.Expr) -> sp.Expr:
        """`value`, unless it is a rational too large to handle (10^3000 * 10^3000)."""
        if value.is_Rational and max(abs(int(value.p)).bit_length(), int(value.q).bit_length()) > MAX_CONSTANT_BITS:
            raise ClaimError(
                f"{self.what}: a constant in the claim has more than {MAX_CONSTANT_BITS:,} bits (about 3,900 digits)"
            )
        return value

    def neg(self, value: sp.Expr) -> sp.Expr:
        return -value if value.is_number and not self.display else negate(value)

    def require(self, expr: sp.Expr, op: RelOp, why: str) -> None:
        """Record that `expr op 0` must hold for the expression to be defined."""
        if self._guaranteed(expr, op):
            return
        if not expr.free_symbols <= set(self.symbols.values()):
            # Involves a sum index: a condition for every index value cannot be one relation
            # over the variables, and dropping it would let a checker read an undefined term
            # (Coq's 1/0 = 0) as a value.
            raise ClaimError(
                f"{self.what}: {why} ({evaluated(expr)} {op} 0) for every index of the sum, which "
                "the claim's bounds and assumptions do not guarantee; restate the sum"
            )
        if expr.is_number:
            value = evaluated(expr)
            verdict = {">": value > 0, ">=": value >= 0, "!=": sp.Ne(value, 0)}[op]
            if verdict == sp.false:
                raise ClaimError(f"{self.what}: {why} fails for the constant {value}, so the claim is undefined")
            if verdict == sp.true:
                return
        rel = Relation(op, expr, sp.Integer(0), f"{why} ({evaluated(expr)} {op} 0)")
        if all((r.op, r.lhs) != (op, expr) for r in self.conditions):
            self.conditions.append(rel)

    def _guaranteed(self, expr: sp.Expr, op: RelOp) -> bool:
        """`expr op 0` wherever the claim is asked about, by the parser's sign rules (forms.py)
        or the interval analysis over ranges and earlier assumptions (signs.py)."""
        if not expr.is_number and known_sign(expr, op):
            return True  # a*b >= 0 for positive a, b; x^2 + 1 > 0
        if op == ">":
            return self.facts.is_positive(expr)
        if op == ">=":
            return self.facts.is_nonnegative(expr)
        return op == "!=" and self.facts.is_nonzero(expr)

    def power(self, base: sp.Expr, exponent: sp.Expr) -> sp.Expr:
        # Decisions use the values; the node keeps the form as written.
        b = evaluated(base) if base.is_number else base
        exp = evaluated(exponent) if exponent.is_number else exponent
        _check_constant_power(b, exp, self.what)
        if exp.is_Rational and not exp.is_integer:
            self.require(base, ">" if exp < 0 else ">=", "a fractional power needs a non-negative base")
        elif exp.is_Rational and exp < 0:
            self.require(base, "!=", "a negative power needs a non-zero base")
        elif not exp.is_Rational and not (b.is_number and b.is_positive):
            self._symbolic_power(base, exp)
        return self.make(sp.Pow, base, exponent)

    def _symbolic_power(self, base: sp.Expr, exp: sp.Expr) -> None:
        """base^exp with a symbolic exponent: a condition only where the exponent's sign, as
        far as the ranges and assumptions tell, leaves the power undefined somewhere."""
        if exp.is_integer:
            if not (exp.is_nonnegative or self.facts.is_nonnegative(exp)):
                self.require(base, "!=", "a power with a possibly negative integer exponent needs a non-zero base")
        elif self.facts.is_positive(exp):
            self.require(base, ">=", "a power with a positive non-integer exponent needs a non-negative base")
        else:
            self.require(base, ">", "a power with a non-integer exponent of unknown sign needs a positive base")

    def build(self, node: Node, scope: dict[str, sp.Symbol]) -> sp.Expr:
        if node.kind in ("binop",) and node.value in ("+", "-", "*", "/"):
            return self._spine(node, scope)
        if node.kind == "num":
            return _number(node.value, self.what)
        if node.kind == "name":
            return self._name(node, scope)
        if node.kind == "neg":
            return self.neg(self.build(node.args[0], scope))
        if node.kind == "binop" and node.value == "^":
            base, exponent = (self.build(a, scope) for a in node.args)
            return self.power(base, exponent)
        if node.kind == "call":
            return self._call(node, scope)
        if node.kind == "tuple":
            raise ClaimError(
                f"{self.what}: a parenthesised list at position {node.pos} is only allowed as the (k, a, b) of a Sum"
            )
        raise ClaimError(f"{self.what}: a relation at position {node.pos} cannot be used inside an expression")

    def _spine(self, node: Node, scope: dict[str, sp.Symbol]) -> sp.Expr:
        """Left-nested + - (or * /) chains are walked iteratively: a 5,000-character sum
        must not hit Python's recursion limit."""
        additive = node.value in ("+", "-")
        ops = ("+", "-") if additive else ("*", "/")
        items: list[tuple[str, Node]] = []
        cur = node
        while cur.kind == "binop" and cur.value in ops:
            items.append((cur.value, cur.args[1]))
            cur = cur.args[0]
        acc = self.build(cur, scope)
        parts = [acc]
        for op, operand in reversed(items):
            value = self.build(operand, scope)
            if additive:
                parts.append(value if op == "+" else self.neg(value))
            elif op == "*":
                parts.append(value)
            else:
                self.require(value, "!=", "a denominator must be non-zero")
                parts.append(self.make(sp.Pow, value, sp.Integer(-1)))
        if (
            self.display
            and not additive  # 1 + 2^(-1) is not 1/2
            and len(parts) == 2
            and parts[0].is_Rational
            and isinstance(parts[1], sp.Pow)
            and parts[1].base.is_Rational
        ):
            return parts[0] / parts[1].base  # 1/4 reads as the fraction it is
        if not additive and len(parts) == 2 and parts[0] == 1 and items[0][0] == "/" and not parts[1].is_number:
            return parts[1]  # 1/x is x^-1 (built as 1 * x^-1 it printed as the mixed number 1 1/x)
        return self.make(sp.Add if additive else sp.Mul, *parts)

    def _name(self, node: Node, scope: dict[str, sp.Symbol]) -> sp.Expr:
        if node.value in scope:
            return scope[node.value]
        if node.value in CONSTANTS:
            return CONSTANTS[node.value]
        if node.value in FUNCTION_ARITY:
            raise ClaimError(f"{self.what}: {node.value} is a function; call it as {node.value}(...)")
        if node.value not in self.unknown:
            self.unknown.append(node.value)
        return sp.Symbol(f"unknown_{node.value}")

    def _call(self, node: Node, scope: dict[str, sp.Symbol]) -> sp.Expr:
        name = node.value
        if name not in FUNCTION_ARITY:
            if name in scope:
                raise ClaimError(f"{self.what}: {name} is a variable, not a function (write {name}*(...) to multiply)")
            raise ClaimError(
                f"{self.what}: unknown function {name!r} (supported: {', '.join(sorted(set(FUNCTION_ARITY)))})"
            )
        lo, hi = FUNCTION_ARITY[name]
        if not lo <= len(node.args) <= hi:
            count = str(lo) if lo == hi else f"{lo} to {hi}"
            raise ClaimError(f"{self.what}: {name} takes {count} argument(s), got {len(node.args)}")
        if name in ("Sum", "sum"):
            return self._sum(node, scope)
        args = [self.build(a, scope) for a in node.args]
        if name == "sqrt":
            return self.power(args[0], sp.Rational(1, 2))
        if name in ("log", "ln"):
            self.require(args[0], ">", "the argument of log must be positive")
            if len(args) == 2:
                self.require(args[1], ">", "the base of log must be positive")
                self.require(self.make(sp.Add, args[1], sp.Integer(-1)), "!=", "the base of log must not be 1")
                # log(x, b) = log(x)/log(b); sympy's own two-argument log would drop the base
                # when not evaluated
                return self.make(
                    sp.Mul, self.make(sp.log, args[0]), self.make(sp.Pow, self.make(sp.log, args[1]), sp.Integer(-1))
                )
        elif name == "tan":
            self.require(self.make(sp.cos, args[0]), "!=", "tan needs cos(argument) != 0")
        elif name == "factorial":
            self.require(args[0], ">=", "factorial needs a non-negative argument")
        return _FUNCTIONS[name](self, args)

    def _sum(self, node: Node, scope: dict[str, sp.Symbol]) -> sp.Expr:
        body, limits = node.args
        if limits.kind != "tuple" or len(limits.args) != 3 or limits.args[0].kind != "name":
            raise ClaimError(f"{self.what}: write sums as Sum(expr, (k, a, b)) with a new index name k")
        index = limits.args[0].value
        if index in scope or index in RESERVED or not NAME.fullmatch(index):
            raise ClaimError(
                f"{self.what}: the sum index {index!r} must be a new name (not a variable, constant or function)"
            )
        low, high = (self.build(a, scope) for a in limits.args[1:])
        if low.is_integer is not True or high.is_integer is not True:
            raise ClaimError(
                f"{self.what}: sum bounds must be integer expressions (use floor(...) or integer variables)"
            )
        k = sp.Symbol(index, integer=True)
        outer = self.facts
        self.facts = outer.with_index(k, low, high)
        try:
            summand = self.build(body, {**scope, index: k})
        finally:
            self.facts = outer
        self.require(
            self.make(sp.Add, high, self.neg(low), sp.Integer(1)), ">=", "a sum needs upper bound >= lower bound - 1"
        )
        # Kept as written, never replaced by a computer-algebra closed form: a checker must see
        # the sum the claim states (a closed form is a lemma of its own). Evaluation at a point
        # adds the terms up (numeric.py, exact.py).
        span = evaluated(high) - evaluated(low)
        if span.is_Number and span > MAX_DIRECT_SUM_TERMS:
            raise ClaimError(f"{self.what}: the sum has {span + 1} terms (limit {MAX_DIRECT_SUM_TERMS:,})")
        self.unresolved_sum = True
        return sp.Sum(summand, (k, low, high))


def _factorial(builder: ExpressionBuilder, args: list[sp.Expr]) -> sp.Expr:
    (a,) = args
    value = evaluated(a) if a.is_number else a
    if value.is_Number and not (value.is_integer and 0 <= value <= MAX_FACTORIAL):
        raise ClaimError(f"{builder.what}: factorial({value}) is out of range (integers 0..{MAX_FACTORIAL})")
    return builder.make(sp.factorial, a)


def _binomial(builder: ExpressionBuilder, args: list[sp.Expr]) -> sp.Expr:
    n, k = args
    value = evaluated(n) if n.is_number else n
    if value.is_Number and abs(value) > 100 * MAX_FACTORIAL:
        raise ClaimError(f"{builder.what}: binomial({value}, {k}) is out of range")
    return builder.make(sp.binomial, n, k)


def _fn(cls: Any) -> Callable[[ExpressionBuilder, list[sp.Expr]], sp.Expr]:
    return lambda builder, args: builder.make(cls, *args)


_FUNCTIONS: dict[str, Callable[[ExpressionBuilder, list[sp.Expr]], sp.Expr]] = {
    "log": _fn(sp.log),
    "ln": _fn(sp.log),
    "exp": _fn(sp.exp),
    "abs": _fn(sp.Abs),
    "Abs": _fn(sp.Abs),
    "min": _fn(sp.Min),
    "max": _fn(sp.Max),
    "Min": _fn(sp.Min),
    "Max": _fn(sp.Max),
    "floor": _fn(sp.floor),
    "ceil": _fn(sp.ceiling),
    "ceiling": _fn(sp.ceiling),
    "sin": _fn(sp.sin),
    "cos": _fn(sp.cos),
    "tan": _fn(sp.tan),
    "factorial": _factorial,
    "binomial": _binomial,
}
