"""A small, safe evaluator for bound and claim expressions written by a model.

The text is parsed with `ast.parse(mode="eval")` (parsing executes nothing) and every node is
checked against a whitelist before it is turned into a tree of numpy closures; there is no
eval/exec and no sympy `parse_expr` (which evaluates its input). Numbers become floats, so
`10**10**10` is inf rather than a hung big-integer computation.

Grammar: numbers, variables the caller allows, constants pi and E, + - * / ** (and ^ as a power,
with the precedence of **), unary minus, calls to the functions in FUNCTIONS, comparisons
(< <= > >= == !=, chained), and `and` / `or` / `not` in relations.

A relation evaluates to 1.0 (true), 0.0 (false) or nan (undefined: a side is not finite, e.g.
the square root of a negative number), so callers can tell "false" from "not defined here".
Sides are compared with the tolerance the numeric falsifier uses, ATOL + RTOL (|lhs| + |rhs|):
`==`, `<=` and `>=` hold when the sides are equal up to it (float rounding at equality is no
violation), and a strict relation or `!=` whose sides are that close is nan, because floating
point cannot tell equal from almost equal there.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

MAX_CHARS = 1000
MAX_NODES = 400

Value = Any  # float or numpy array
Env = dict[str, Value]
Node = Callable[[Env], Value]


class ExpressionError(ValueError):
    """The expression cannot be used; the message says why in one line."""


def _log(x: Value, base: Value | None = None) -> Value:
    return np.log(x) if base is None else np.log(x) / np.log(base)


FUNCTIONS: dict[str, tuple[Callable[..., Value], int, int]] = {
    "log": (_log, 1, 2),
    "ln": (np.log, 1, 1),
    "log2": (np.log2, 1, 1),
    "log10": (np.log10, 1, 1),
    "exp": (np.exp, 1, 1),
    "sqrt": (np.sqrt, 1, 1),
    "abs": (np.abs, 1, 1),
    "sin": (np.sin, 1, 1),
    "cos": (np.cos, 1, 1),
    "tan": (np.tan, 1, 1),
    "atan": (np.arctan, 1, 1),
    "floor": (np.floor, 1, 1),
    "ceil": (np.ceil, 1, 1),
    "min": (lambda *a: np.minimum.reduce(np.broadcast_arrays(*a)), 2, 8),
    "max": (lambda *a: np.maximum.reduce(np.broadcast_arrays(*a)), 2, 8),
}
CONSTANTS = {"pi": math.pi, "E": math.e}
_BINOPS: dict[type, Callable[[Value, Value], Value]] = {
    ast.Add: np.add,
    ast.Sub: np.subtract,
    ast.Mult: np.multiply,
    ast.Div: np.divide,
    ast.Pow: np.power,
}
# Comparison -> (difference that is >= 0 when it holds, strict). For == and != the difference
# is -|lhs - rhs| and |lhs - rhs|.
_CMPOPS: dict[type, tuple[Callable[[Value, Value], Value], bool]] = {
    ast.Lt: (lambda a, b: b - a, True),
    ast.LtE: (lambda a, b: b - a, False),
    ast.Gt: (lambda a, b: a - b, True),
    ast.GtE: (lambda a, b: a - b, False),
    ast.Eq: (lambda a, b: -np.abs(a - b), False),
    ast.NotEq: (lambda a, b: np.abs(a - b), True),
}
# The numeric falsifier's tolerance (verify/falsifier.py), so both say the same about a claim.
ATOL = 1e-9
RTOL = 1e-9
# "^" becomes "**" before parsing: as a Python operator it would bind looser than "+".
_REPLACE = {"^": "**", "≤": "<=", "≥": ">=", "−": "-", "·": "*", "×": "*", "π": "pi"}


def _truth_value(op: tuple[Callable[[Value, Value], Value], bool], a: Value, b: Value) -> Value:
    difference, strict = op
    defined = np.isfinite(a) & np.isfinite(b)
    d = difference(a, b)
    tol = ATOL + RTOL * (np.abs(a) + np.abs(b))
    if strict:
        truth = np.where(d > tol, 1.0, np.where(d < -tol, 0.0, np.nan))
    else:
        truth = np.where(d >= -tol, 1.0, 0.0)
    return np.where(defined, truth, np.nan)


def _and(x: Value, y: Value) -> Value:
    false = (x == 0) | (y == 0)
    return np.where(false, 0.0, np.where(np.isnan(x) | np.isnan(y), np.nan, 1.0))


def _or(x: Value, y: Value) -> Value:
    true = (x == 1) | (y == 1)
    return np.where(true, 1.0, np.where(np.isnan(x) | np.isnan(y), np.nan, 0.0))


@dataclass(frozen=True)
class Compiled:
    text: str
    names: frozenset[str]  # variables the expression uses
    is_relation: bool
    _fn: Node

    def __call__(self, env: Env) -> Value:
        missing = self.names - set(env)
        if missing:
            raise ExpressionError(f"no value for {', '.join(sorted(missing))} in {self.text!r}")
        with np.errstate(all="ignore"):
            return self._fn({k: (float(v) if isinstance(v, int | float) else v) for k, v in env.items()})


def compile_expression(text: str, variables: Iterable[str], *, relation: bool | None = None) -> Compiled:
    """Compile `text`. relation=True requires a comparison, False forbids one, None allows both."""
    if not isinstance(text, str) or not text.strip():
        raise ExpressionError("empty expression")
    if len(text) > MAX_CHARS:
        raise ExpressionError(f"expression longer than {MAX_CHARS} characters")
    clean = text.strip()
    for a, b in _REPLACE.items():
        clean = clean.replace(a, b)
    try:
        tree = ast.parse(clean, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse {text!r}: {exc.msg}") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise ExpressionError(f"expression has more than {MAX_NODES} parts")
    builder = _Builder(set(variables))
    fn, is_rel = builder.build(tree.body)
    if relation is True and not is_rel:
        raise ExpressionError(f"{text!r} is not a relation (expected <, <=, >, >= or ==)")
    if relation is False and is_rel:
        raise ExpressionError(f"{text!r} is a relation; expected a numeric expression")
    return Compiled(text, frozenset(builder.used), is_rel, fn)


class _Builder:
    def __init__(self, variables: set[str]) -> None:
        self.variables = variables
        self.used: set[str] = set()

    def build(self, node: ast.AST) -> tuple[Node, bool]:
        """(closure, whether it yields a truth value)."""
        if isinstance(node, ast.Compare):
            return self._compare(node), True
        if isinstance(node, ast.BoolOp):
            parts = [self._truth(v) for v in node.values]
            combine = _and if isinstance(node.op, ast.And) else _or

            def boolop(env: Env) -> Value:
                result = parts[0](env)
                for p in parts[1:]:
                    result = combine(result, p(env))
                return result

            return boolop, True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self._truth(node.operand)
            return (lambda env: 1.0 - inner(env)), True
        return self._number(node), False

    def _truth(self, node: ast.AST) -> Node:
        fn, is_rel = self.build(node)
        if not is_rel:
            raise ExpressionError("`and`, `or` and `not` need comparisons on both sides")
        return fn

    def _compare(self, node: ast.Compare) -> Node:
        operands = [self._number(node.left)] + [self._number(c) for c in node.comparators]
        ops = []
        for op in node.ops:
            if type(op) not in _CMPOPS:
                raise ExpressionError(f"comparison {type(op).__name__} is not allowed")
            ops.append(_CMPOPS[type(op)])

        def compare(env: Env) -> Value:
            values = [o(env) for o in operands]
            result = _truth_value(ops[0], values[0], values[1])
            for i, op in enumerate(ops[1:], start=1):
                result = _and(result, _truth_value(op, values[i], values[i + 1]))
            return result

        return compare

    def _number(self, node: ast.AST) -> Node:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, int | float):
                raise ExpressionError(f"constant {node.value!r} is not a number")
            value = float(node.value)
            return lambda env: value
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _BINOPS:
                raise ExpressionError(f"operator {type(node.op).__name__} is not allowed")
            op, left, right = _BINOPS[type(node.op)], self._number(node.left), self._number(node.right)
            return lambda env: op(left(env), right(env))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            inner = self._number(node.operand)
            if isinstance(node.op, ast.UAdd):
                return inner
            return lambda env: np.negative(inner(env))
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Compare | ast.BoolOp):
            raise ExpressionError("a comparison cannot be used as a number")
        raise ExpressionError(f"{type(node).__name__} is not allowed in an expression")

    def _name(self, name: str) -> Node:
        if name in self.variables:
            self.used.add(name)
            return lambda env: env[name]
        if name in CONSTANTS:
            value = CONSTANTS[name]
            return lambda env: value
        known = ", ".join(sorted(self.variables | set(CONSTANTS)))
        raise ExpressionError(f"unknown name {name!r}; allowed: {known}")

    def _call(self, node: ast.Call) -> Node:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            name = node.func.id if isinstance(node.func, ast.Name) else type(node.func).__name__
            raise ExpressionError(f"function {name!r} is not allowed; allowed: {', '.join(sorted(FUNCTIONS))}")
        if node.keywords:
            raise ExpressionError("keyword arguments are not allowed")
        fn, lo, hi = FUNCTIONS[node.func.id]
        if not lo <= len(node.args) <= hi:
            raise ExpressionError(f"{node.func.id} takes {lo}..{hi} arguments, got {len(node.args)}")
        args = [self._number(a) for a in node.args]
        return lambda env: fn(*[a(env) for a in args])
