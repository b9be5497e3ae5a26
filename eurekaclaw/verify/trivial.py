"""claim_flags: why a claim is too trivial to earn a mechanical level.

A lemma whose claim says nothing (`0 <= 1`), repeats an assumption, rests on contradictory
assumptions, or only speaks about a sliver of the main theorem's range can be "proved" by any
checker without that proof saying anything about the lemma. Such a claim earns no mechanical
level; the reasons are returned as readable sentences (an empty list: nothing found).

Checks (docs/verification.md, "Trivial claims"):
  a. the conclusion involves no variable once simplified;
  b. every link of the conclusion restates, or follows by rearranging, one assumption or one
     domain bound;
  c. the domains, assumptions and definedness conditions are contradictory (vacuous), or they
     fix every variable to a single value;
  d. with a reference (the main theorem's claim): a variable of the same name ranges over less
     than it does in the reference;
  e. plain interval arithmetic (verify/intervals.py) over the variables' ranges (domains,
     single-variable bounds among the assumptions, `abs(x) <= c`) decides every link of the
     conclusion (`t*x <= t` for 0 <= x <= 1 and t >= 0, `x^2 <= 4` for |x| <= 2), while over
     unrestricted variables it does not: the conclusion is read off the ranges.
A conclusion that holds for every value of its variables (x^2 >= 0, Cauchy-Schwarz, a closed
form of a sum) is NOT flagged: a statement true on its whole domain is what a theorem is. Nor is
one interval arithmetic cannot decide (x^2 - 2x + 1 >= 0 needs the square completed).

Cheap checks (sympy normal forms, the parser's sign rules) run in-process; the solver check (c)
goes to the SMT worker pool with a short timeout, and an inconclusive solver flags nothing. An internal error is itself a flag:
a claim nobody could analyse earns nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import sympy as sp

from eurekaclaw.types.artifacts import Claim
from eurekaclaw.verify.claims import ParsedClaim, Relation, parse_claim
from eurekaclaw.verify.exact import parsed_for
from eurekaclaw.verify.forms import evaluated
from eurekaclaw.verify.grammar import ClaimError
from eurekaclaw.verify.intervals import REAL, Interval, decides

log = logging.getLogger(__name__)

SIMPLIFY_MAX_OPS = 40  # sympy.simplify beyond this size can take seconds; compare as built
_KIND = {"<=": ">=", ">=": ">=", "<": ">", ">": ">", "==": "==", "!=": "!="}
_SYMBOL = {"<=": "≤", ">=": "≥", "<": "<", ">": ">", "==": "=", "!=": "≠"}


def claim_flags(claim: Claim, reference: Claim | None = None, *, timeout_s: float = 5.0) -> list[str]:
    """Reasons why `claim` is too trivial to earn a mechanical level (empty: none found).
    `reference` is the main theorem's claim, for the range check. Never raises."""
    try:
        return _flags(claim, reference, timeout_s)
    except ClaimError as exc:
        return [f"the claim does not parse: {exc}"]
    except Exception as exc:  # fail closed: a claim nobody could analyse earns nothing
        log.warning("claim analysis failed on %r: %s", claim.conclusion, exc, exc_info=True)
        return [f"the claim could not be analysed: {type(exc).__name__}: {exc}"]


def _flags(claim: Claim, reference: Claim | None, timeout_s: float) -> list[str]:
    parsed = parsed_for(claim)
    flags: list[str] = []
    # as written: a sum that sympy replaced by its closed form still counts as a sum
    constant = _no_variable(parse_claim(claim, display=True))
    if constant is not None:
        flags.append(
            f"after simplification the conclusion involves no variable (it reads {constant}): "
            "it is a statement about numbers, not about the lemma's quantities"
        )
    restated = _restated(parsed)
    flags += restated
    ranges = _ranges(parsed)
    if not restated:
        flags += _read_off_ranges(parsed, ranges)
    empty = [n for n, r in ranges.items() if r.empty]
    if empty:
        flags.append(f"the domains and assumptions leave no value for {', '.join(empty)}: the claim is vacuously true")
    if reference is not None:
        flags += _narrowed(ranges, reference)
    solver = _solver_facts(claim, timeout_s) if parsed.symbols and not empty else {}
    if solver.get("vacuous"):
        flags.append(
            "the domains, assumptions and definedness conditions cannot all hold (a solver proved them "
            "contradictory): the claim is vacuously true"
        )
    pinned = solver.get("pinned") or _pinned_by_ranges(ranges)
    if pinned and not solver.get("vacuous"):
        flags.append(
            f"the domains and assumptions fix every variable to a single value ({', '.join(pinned)}): "
            "the claim is a statement about one point"
        )
    return flags


# --------------------------------------------------------------------------------------------
# normal forms
# --------------------------------------------------------------------------------------------


def _normal(expr: sp.Expr) -> sp.Expr:
    """sympy's value form, simplified when that is cheap."""
    value = evaluated(expr)
    # simplify would also evaluate a Sum into its closed form, turning an identity about the
    # sum into 0 == 0
    if sp.count_ops(value) <= SIMPLIFY_MAX_OPS and not value.has(sp.Sum):
        try:
            return sp.simplify(value)
        except Exception:  # simplify can fail on exotic forms; the evaluated form still compares
            return value
    return value


@dataclass(frozen=True)
class _Fact:
    """`d kind 0` with kind in >=, >, ==, != ; `what` names where it came from."""

    kind: str
    d: sp.Expr
    what: str


def _fact(rel: Relation, what: str) -> _Fact:
    return _Fact(_KIND[rel.op], _normal(rel.difference()), what)


def _no_variable(parsed: ParsedClaim) -> str | None:
    """The conclusion as numbers when no link involves a variable after simplification."""
    parts = []
    for rel in parsed.conclusion:
        d = _normal(rel.difference())
        if d.free_symbols:
            return None
        parts.append(f"{d} {_SYMBOL[_KIND[rel.op]]} 0")
    return " and ".join(parts)


def _number(expr: sp.Expr) -> sp.Expr | None:
    value = _normal(expr)
    return value if value.is_number and value.is_real else None


def _implies(fact: _Fact, goal: _Fact) -> bool | None:
    """True/False when `fact` implies `goal` by a constant shift or a constant positive
    factor (None: not by such a rearrangement)."""
    if not fact.d.free_symbols:
        return None
    shift = _number(goal.d - fact.d)  # goal.d = fact.d + shift
    if shift is not None:
        if fact.kind in (">=", ">") and goal.kind in (">=", ">"):
            return bool(shift > 0 or (shift == 0 and not (goal.kind == ">" and fact.kind == ">=")))
        if fact.kind == goal.kind and fact.kind in ("==", "!=") and shift == 0:
            return True
    ratio = _number(goal.d / fact.d)  # goal.d = ratio * fact.d
    if ratio is not None and ratio != 0:
        if fact.kind == "==" and goal.kind in ("==", ">="):
            return True
        if fact.kind == "!=" and goal.kind == "!=":
            return True
        if ratio > 0 and fact.kind in (">=", ">") and goal.kind in (">=", ">"):
            return not (goal.kind == ">" and fact.kind == ">=")
    return None


def _domain_facts(parsed: ParsedClaim) -> list[_Fact]:
    facts = []
    for name, dom in parsed.domains.items():
        x = parsed.symbols[name]
        if dom.lo is not None:
            facts.append(
                _Fact(
                    ">" if dom.lo_open else ">=",
                    x - dom.lo,
                    f"the domain of {name} ({name} {'>' if dom.lo_open else '≥'} {dom.lo})",
                )
            )
        if dom.hi is not None:
            facts.append(
                _Fact(
                    ">" if dom.hi_open else ">=",
                    dom.hi - x,
                    f"the domain of {name} ({name} {'<' if dom.hi_open else '≤'} {dom.hi})",
                )
            )
    return facts


def _restated(parsed: ParsedClaim) -> list[str]:
    """(b): every link of the conclusion restates or rearranges one assumption or bound."""
    facts = [_fact(r, f"assumption {r.index + 1} ({r.text})") for r in parsed.assumptions]
    facts += _domain_facts(parsed)
    sources = []
    for rel in parsed.conclusion:
        goal = _fact(rel, "")
        source = next((f for f in facts if _implies(f, goal)), None)
        if source is None:
            return []
        same = source.kind == goal.kind and _number(goal.d - source.d) == 0
        sources.append(("restates " if same else "follows directly from ") + source.what)
    return [f"the conclusion {'; '.join(dict.fromkeys(sources))}: it adds nothing to what is assumed"]


# --------------------------------------------------------------------------------------------
# variable ranges (domain + single-variable linear bounds among the assumptions)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Range:
    kind: str
    lo: sp.Expr | None
    hi: sp.Expr | None
    lo_open: bool
    hi_open: bool

    @property
    def empty(self) -> bool:
        if self.lo is None or self.hi is None:
            return False
        return bool(self.lo > self.hi or (self.lo == self.hi and (self.lo_open or self.hi_open)))

    def covers(self, other: _Range) -> bool:
        """Whether every value `other` allows is allowed here."""
        if other.kind == "real" and self.kind == "int":
            return False
        lo_ok = self.lo is None or (
            other.lo is not None
            and (other.lo > self.lo or (other.lo == self.lo and (other.lo_open or not self.lo_open)))
        )
        hi_ok = self.hi is None or (
            other.hi is not None
            and (other.hi < self.hi or (other.hi == self.hi and (other.hi_open or not self.hi_open)))
        )
        return bool(lo_ok and hi_ok)

    def describe(self) -> str:
        left = "(" if self.lo is None or self.lo_open else "["
        right = ")" if self.hi is None or self.hi_open else "]"
        lo = "-∞" if self.lo is None else str(self.lo)
        hi = "∞" if self.hi is None else str(self.hi)
        return f"{'integers in ' if self.kind == 'int' else ''}{left}{lo}, {hi}{right}"


def _tighten(
    r: _Range, lo: sp.Expr | None = None, lo_open: bool = False, hi: sp.Expr | None = None, hi_open: bool = False
) -> _Range:
    if lo is not None and (r.lo is None or lo > r.lo or (lo == r.lo and lo_open)):
        r = _Range(r.kind, lo, r.hi, lo_open, r.hi_open)
    if hi is not None and (r.hi is None or hi < r.hi or (hi == r.hi and hi_open)):
        r = _Range(r.kind, r.lo, hi, r.lo_open, hi_open)
    if r.kind == "int":  # integers: closed integer bounds
        lo_i = None if r.lo is None else (sp.floor(r.lo) + 1 if r.lo_open and r.lo.is_integer else sp.ceiling(r.lo))
        hi_i = None if r.hi is None else (sp.ceiling(r.hi) - 1 if r.hi_open and r.hi.is_integer else sp.floor(r.hi))
        r = _Range("int", lo_i, hi_i, False, False)
    return r


def _ranges(parsed: ParsedClaim) -> dict[str, _Range]:
    ranges = {n: _tighten(_Range(d.kind, d.lo, d.hi, d.lo_open, d.hi_open)) for n, d in parsed.domains.items()}
    by_symbol = {s: n for n, s in parsed.symbols.items()}
    for rel in parsed.assumptions:
        fact = _fact(rel, "")
        if len(fact.d.free_symbols) != 1 or fact.kind == "!=":
            continue
        (sym,) = fact.d.free_symbols
        try:
            poly = sp.Poly(fact.d, sym)
        except sp.PolynomialError:
            continue
        if poly.degree() != 1 or not all(c.is_number and c.is_real for c in poly.all_coeffs()):
            continue
        a, b = poly.all_coeffs()
        bound = -b / a
        name = by_symbol[sym]
        strict = fact.kind == ">"
        if fact.kind == "==":
            ranges[name] = _tighten(ranges[name], lo=bound, hi=bound)
        elif a > 0:
            ranges[name] = _tighten(ranges[name], lo=bound, lo_open=strict)
        else:
            ranges[name] = _tighten(ranges[name], hi=bound, hi_open=strict)
    return ranges


def _narrowed(ranges: dict[str, _Range], reference: Claim) -> list[str]:
    """(d): variables shared with the reference whose range here misses part of the reference's."""
    try:
        ref_ranges = _ranges(parsed_for(reference))
    except ClaimError:
        return []  # the main theorem's claim is not this claim's fault; nothing to compare with
    flags = []
    for name, here in ranges.items():
        there = ref_ranges.get(name)
        if there is not None and not here.covers(there):
            flags.append(
                f"{name} ranges over {here.describe()} here but over {there.describe()} in the main theorem: "
                "the claim's domain or assumptions shrink the variable's range below the one the theorem states"
            )
    return flags


# --------------------------------------------------------------------------------------------
# (e) decided by interval arithmetic over the ranges
# --------------------------------------------------------------------------------------------


def _abs_bounds(parsed: ParsedClaim) -> dict[sp.Symbol, sp.Expr]:
    """|x| <= c (or < c) among the assumptions, for a constant c: x lies in [-c, c]."""
    out: dict[sp.Symbol, sp.Expr] = {}
    for rel in parsed.assumptions:
        if rel.op not in ("<=", "<", ">=", ">"):
            continue
        small, big = (rel.lhs, rel.rhs) if rel.op in ("<=", "<") else (rel.rhs, rel.lhs)
        small, big = evaluated(small), evaluated(big)
        if isinstance(small, sp.Abs) and small.args[0].is_Symbol and big.is_number and big.is_real:
            sym = small.args[0]
            out[sym] = min(out.get(sym, big), big)
    return out


def _box(parsed: ParsedClaim, ranges: dict[str, _Range]) -> dict[sp.Symbol, Interval]:
    absb = _abs_bounds(parsed)
    box: dict[sp.Symbol, Interval] = {}
    for name, sym in parsed.symbols.items():
        r = ranges[name]
        lo = r.lo if r.lo is not None else -sp.oo
        hi = r.hi if r.hi is not None else sp.oo
        if sym in absb:
            lo, hi = max(lo, -absb[sym]), min(hi, absb[sym])
        box[sym] = Interval(lo, hi)
    return box


def _forms(rel: Relation) -> list[sp.Expr]:
    """The difference as written, as sympy evaluates it, and with common factors pulled out
    (t - t*x -> t*(1 - x)); never factored further (that would complete squares)."""
    written = rel.difference()
    value = evaluated(written)
    forms = [written, value]
    for extra in (sp.factor_terms(value), sp.factor_terms(sp.expand(value))):
        if extra not in forms:
            forms.append(extra)
    return forms


def _decided(rel: Relation, box: dict[sp.Symbol, Interval]) -> bool:
    kind = _KIND[rel.op]
    return any(decides(kind, form, box) for form in _forms(rel))


def _read_off_ranges(parsed: ParsedClaim, ranges: dict[str, _Range]) -> list[str]:
    """(e): interval arithmetic over the ranges decides the conclusion, over bare variables not."""
    if not parsed.symbols or parsed.has_unresolved_sum or any(r.empty for r in ranges.values()):
        return []
    box = _box(parsed, ranges)
    if not all(_decided(rel, box) for rel in parsed.conclusion):
        return []
    bare = {sym: REAL for sym in parsed.symbols.values()}
    if all(_decided(rel, bare) for rel in parsed.conclusion):
        return []  # true for every value of its variables: a theorem, not a restatement
    used = ", ".join(f"{n} ∈ {ranges[n].describe()}" for n in parsed.symbols)
    absb = _abs_bounds(parsed)
    if absb:
        used += "; " + ", ".join(f"|{s}| ≤ {c}" for s, c in absb.items())
    return [
        f"interval arithmetic over the variables' ranges ({used}) already decides the conclusion: "
        "it is read off the domains and assumptions, not proved"
    ]


def _pinned_by_ranges(ranges: dict[str, _Range]) -> list[str]:
    if not ranges or not all(r.lo is not None and r.lo == r.hi for r in ranges.values()):
        return []
    return [f"{n} = {r.lo}" for n, r in ranges.items()]


# --------------------------------------------------------------------------------------------
# the solver
# --------------------------------------------------------------------------------------------


def _solver_facts(claim: Claim, timeout_s: float) -> dict[str, Any]:
    # imported here: the pool module starts worker processes and is not needed otherwise
    from eurekaclaw.verify.smt import smt_analyse

    return smt_analyse(claim, timeout_s=timeout_s)
