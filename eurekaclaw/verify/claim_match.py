"""Claims compared with claims: refutations that stick up to renaming, and the scope of the
proved root claim against the user's statement. Pure functions; nothing here calls a model.

Refutations. A claim that is a refuted claim with its variables renamed (variables of equal
domain, the same assumptions and conclusion once the names are swapped) is refuted by the
same counterexample. And every stored counterexample is a point: the new claim is evaluated
there exactly under every way of giving its variables the stored values (names first, then
renamings between variables of equal domain, then any other). Exact evaluation checks domains,
definedness and assumptions (verify/exact.py), so a point where it says "fails" refutes the
claim whoever found it and whatever the names were.

Scope. The root claim may assume more than the statement's claim (an assumption, a smaller
domain, a definedness condition) or conclude something else (another constant). Every
hypothesis of the root claim is looked for among the statement's (the same relation after the
renaming, a rearrangement of one, or decided by interval arithmetic over the statement's
ranges); one that is not found is a difference, and points where the statement's premises hold
but the root claim's do not are searched for (a witness). There the statement's own conclusion
is evaluated exactly: where it fails, the statement is false; where it holds, the proved claim
is narrower. A difference without a witness stays "unknown", never "same".
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import sympy as sp

from eurekaclaw.types.artifacts import Claim, Counterexample
from eurekaclaw.verify import trivial
from eurekaclaw.verify.claim_model import ParsedClaim, Relation, VarDomain
from eurekaclaw.verify.exact import evaluate_parsed, parsed_for
from eurekaclaw.verify.forms import evaluated
from eurekaclaw.verify.grammar import ClaimError
from eurekaclaw.verify.intervals import decides

MAX_RENAMINGS = 120  # per stored counterexample
MAX_PERMUTATIONS = 5_000  # beyond this only the names themselves are tried
MAX_WITNESS_POINTS = 300
_KIND = {"<=": ">=", ">=": ">=", "<": ">", ">": ">", "==": "==", "!=": "!="}
_SHOW = {">=": "≥", "<=": "≤", "!=": "≠", "==": "="}

Canon = tuple[str, sp.Expr]


# --------------------------------------------------------------------------------------------
# canonical relations
# --------------------------------------------------------------------------------------------


def canonical(rel: Relation, rename: dict[sp.Symbol, sp.Symbol] | None = None) -> Canon:
    """`(kind, d)` with `d kind 0` equivalent to the relation: d expanded and divided by its
    positive rational content, and for == / != given a fixed sign. `x <= 1`, `1 >= x` and
    `2*x <= 2` share one form."""
    d = rel.difference()
    if rename:
        d = d.xreplace(rename)
    d = sp.expand(evaluated(d))
    if d != 0:
        _, d = d.as_content_primitive()
    kind = _KIND[rel.op]
    if kind in ("==", "!=") and sp.default_sort_key(-d) < sp.default_sort_key(d):
        d = sp.expand(-d)
    return kind, d


def _canon_set(rels: list[Relation], rename: dict[sp.Symbol, sp.Symbol] | None = None) -> set[Canon]:
    return {canonical(r, rename) for r in rels}


def _parsed(claim: Claim) -> ParsedClaim | None:
    try:
        return parsed_for(claim)
    except (ClaimError, ValueError, TypeError):
        return None


def equal_domain_renamings(a: ParsedClaim, b: ParsedClaim) -> Iterator[dict[str, str]]:
    """Bijections from a's variables to b's that pair only variables of equal domain."""
    if len(a.domains) != len(b.domains):
        return
    groups: dict[VarDomain, tuple[list[str], list[str]]] = {}
    for name, dom in a.domains.items():
        groups.setdefault(dom, ([], []))[0].append(name)
    for name, dom in b.domains.items():
        if dom not in groups:
            return
        groups[dom][1].append(name)
    if any(len(x) != len(y) for x, y in groups.values()):
        return
    total = 1
    for mine, _ in groups.values():
        total *= len(list(itertools.permutations(mine))) if len(mine) <= 6 else MAX_PERMUTATIONS + 1
    if total > MAX_PERMUTATIONS:
        return
    per_group = [
        [dict(zip(mine, perm, strict=True)) for perm in itertools.permutations(theirs)]
        for mine, theirs in groups.values()
    ]
    for combo in itertools.product(*per_group):
        out: dict[str, str] = {}
        for part in combo:
            out.update(part)
        yield out


def same_up_to_renaming(new: Claim, old: Claim) -> dict[str, str] | None:
    """A renaming (new's names -> old's) of variables of equal domain under which `new` has
    exactly `old`'s assumptions and conclusion; None when there is none (or a side does not
    parse)."""
    a, b = _parsed(new), _parsed(old)
    if a is None or b is None:
        return None
    target_assume = _canon_set(b.assumptions)
    target_concl = _canon_set(b.conclusion)
    for renaming in equal_domain_renamings(a, b):
        rename = {a.symbols[k]: b.symbols[v] for k, v in renaming.items()}
        if _canon_set(a.conclusion, rename) == target_concl and _canon_set(a.assumptions, rename) == target_assume:
            return renaming
    return None


# --------------------------------------------------------------------------------------------
# refutations that stick
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RefutedMatch:
    """Why a new claim is refuted by what the session already knows."""

    counterexample: Counterexample  # the stored one
    assignment: dict[str, Any]  # the point, in the new claim's variable names
    how: Literal["same_claim", "fails_at_counterexample"]
    detail: str
    renaming: dict[str, str] = field(default_factory=dict)  # new claim's name -> stored name


def _numeric(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float | str)


def _domain_of(cx: Counterexample, key: str) -> VarDomain | None:
    if cx.claim is None:
        return None
    parsed = _parsed(cx.claim)
    return parsed.domains.get(key) if parsed is not None else None


def assignments_for(parsed: ParsedClaim, cx: Counterexample) -> Iterator[tuple[dict[str, str], dict[str, Any]]]:
    """(renaming, point) pairs: the stored values given to the claim's variables, its own
    names first, then maps between variables of equal domain, then any other injective map."""
    names = list(parsed.symbols)
    keys = [k for k, v in cx.assignment.items() if _numeric(v)]
    if not names or len(keys) < len(names):
        return
    seen: set[tuple[str, ...]] = set()
    if all(n in keys for n in names):
        seen.add(tuple(names))
        yield {n: n for n in names}, {n: cx.assignment[n] for n in names}
    count = 1
    for i in range(len(names)):
        count *= len(keys) - i
    if count > MAX_PERMUTATIONS:
        return
    doms = {k: _domain_of(cx, k) for k in keys}
    perms = list(itertools.permutations(keys, len(names)))
    # equal domains first: the renamings the refutation is about
    perms.sort(key=lambda p: -sum(doms[k] == parsed.domains[n] for n, k in zip(names, p, strict=True)))
    tried = 0
    for perm in perms:
        if perm in seen:
            continue
        seen.add(perm)
        tried += 1
        if tried > MAX_RENAMINGS:
            return
        yield dict(zip(names, perm, strict=True)), {n: cx.assignment[k] for n, k in zip(names, perm, strict=True)}


def refuted_by(claim: Claim, known: list[Counterexample]) -> RefutedMatch | None:
    """The first stored counterexample that refutes `claim`: the claim fails there exactly
    under some renaming, or it is a refuted claim renamed. None when nothing does."""
    parsed = _parsed(claim)
    if parsed is None:
        return None
    for cx in known:
        if not cx.confirmed:
            continue
        for renaming, point in assignments_for(parsed, cx):
            try:
                ev = evaluate_parsed(parsed, point)
            except (ClaimError, ValueError, TypeError, ArithmeticError):
                continue
            if ev.holds is False:
                names = ", ".join(f"{n} = {point[n]}" for n in point)
                renamed = {n: k for n, k in renaming.items() if n != k}
                how = f" (its variables renamed: {_pairs(renamed)})" if renamed else ""
                return RefutedMatch(
                    cx, point, "fails_at_counterexample", f"fails at {names}{how}: {ev.detail}", renaming
                )
    for cx in known:
        # an experiment's violation is statistical, not a point of the claim
        if not cx.confirmed or cx.claim is None or cx.checker == "experiment":
            continue
        same = same_up_to_renaming(claim, cx.claim)
        if same is not None:
            point = {n: cx.assignment[k] for n, k in same.items() if k in cx.assignment}
            return RefutedMatch(
                cx,
                point,
                "same_claim",
                f"is the refuted claim of lemma {cx.lemma_id} with its variables renamed ({_pairs(same)})",
                same,
            )
    return None


def _pairs(renaming: dict[str, str]) -> str:
    return ", ".join(f"{n} for {k}" for n, k in renaming.items()) or "same names"


# --------------------------------------------------------------------------------------------
# the root claim against the statement's claim
# --------------------------------------------------------------------------------------------

ScopeRelation = Literal["same", "narrower", "differs", "unknown"]


@dataclass
class ScopeDecision:
    relation: ScopeRelation
    sentence: str
    differences: list[str] = field(default_factory=list)
    witness: dict[str, str] = field(default_factory=dict)  # in the statement's variable names
    statement_fails_at_witness: bool = False


def _show(text: str) -> str:
    for ascii_op, sign in _SHOW.items():
        text = text.replace(ascii_op, sign)
    return " ".join(text.split())


def _domain_words(name: str, dom: VarDomain) -> str:
    kind = "integer" if dom.kind == "int" else "real"
    if dom.lo is None and dom.hi is None:
        return f"every {kind} {name}"
    left = "(" if dom.lo is None or dom.lo_open else "["
    right = ")" if dom.hi is None or dom.hi_open else "]"
    lo = "-∞" if dom.lo is None else str(dom.lo)
    hi = "∞" if dom.hi is None else str(dom.hi)
    return f"{kind} {name} in {left}{lo}, {hi}{right}"


def scope_words(parsed: ParsedClaim, conditions: bool = True) -> str:
    """Where a claim speaks: its variables' domains, assumptions and definedness conditions.
    An unbounded variable that an assumption restricts is described by the assumption alone
    ("x ≥ 1", not "every real x, x ≥ 1")."""
    rels = [_show(r.text) for r in parsed.assumptions]
    if conditions:
        rels += [_show(f"{evaluated(r.lhs)} {r.op} 0") for r in parsed.conditions]
    named = {
        s.name
        for r in [*parsed.assumptions, *(parsed.conditions if conditions else [])]
        for s in r.lhs.free_symbols | r.rhs.free_symbols
    }
    parts = [
        _domain_words(n, d) for n, d in parsed.domains.items() if not (d.lo is None and d.hi is None and n in named)
    ]
    return ", ".join(dict.fromkeys(parts + rels)) or "no variables"


def _fact_holds(rel: Relation, canon: Canon, statement: ParsedClaim, rename: dict[sp.Symbol, sp.Symbol]) -> bool:
    """Whether the statement's own premises give this hypothesis of the root claim."""
    known = _canon_set(statement.assumptions) | _canon_set(statement.conditions)
    if canon in known:
        return True
    goal = trivial._Fact(canon[0], canon[1], "")
    facts = [trivial._Fact(k, d, "") for k, d in known] + trivial._domain_facts(statement)
    if any(trivial._implies(f, goal) for f in facts):
        return True
    box = trivial._box(statement, trivial._ranges(statement))
    return decides(canon[0], canon[1], box)


def _missing_hypotheses(root: ParsedClaim, statement: ParsedClaim, sigma: dict[str, str]) -> list[str]:
    rename = {root.symbols[k]: statement.symbols[v] for k, v in sigma.items()}
    out = []
    s_ranges = trivial._ranges(statement)
    for name, dom in root.domains.items():
        mine = trivial._tighten(trivial._Range(dom.kind, dom.lo, dom.hi, dom.lo_open, dom.hi_open))
        theirs = s_ranges[sigma[name]]
        if not mine.covers(theirs):
            out.append(f"{_domain_words(name, dom)} (the statement: {theirs.describe()})")
    for rel in root.assumptions:
        if not _fact_holds(rel, canonical(rel, rename), statement, rename):
            out.append(_show(rel.text))
    for rel in root.conditions:
        if not _fact_holds(rel, canonical(rel, rename), statement, rename):
            out.append(_show(f"{evaluated(rel.lhs)} {rel.op} 0") + " (a definedness condition)")
    return out


def _correspondence(root: ParsedClaim, statement: ParsedClaim) -> dict[str, str] | None:
    """root name -> statement name: the same names, else a bijection under which the
    conclusions agree."""
    if set(root.symbols) == set(statement.symbols):
        return {n: n for n in root.symbols}
    if len(root.symbols) != len(statement.symbols) or len(root.symbols) > 6:
        return None
    target = _canon_set(statement.conclusion)
    for perm in itertools.permutations(statement.symbols):
        sigma = dict(zip(root.symbols, perm, strict=True))
        rename = {root.symbols[k]: statement.symbols[v] for k, v in sigma.items()}
        if _canon_set(root.conclusion, rename) == target:
            return sigma
    return None


def _values(name: str, dom: VarDomain, extra: list[sp.Rational]) -> list[sp.Rational]:
    base = [
        sp.Rational(v) for v in ("0", "1/2", "-1/2", "1", "-1", "2", "-2", "1/3", "3", "-3", "1/10", "10", "-10", "100")
    ]
    ends = [b for b in (dom.lo, dom.hi) if b is not None]
    near = [e + d for e in ends + extra for d in (sp.Integer(0), sp.Rational(1, 10), -sp.Rational(1, 10), 1, -1)]
    values = [v for v in dict.fromkeys(base + near) if dom.contains(v)]
    return values


def _boundaries(root: ParsedClaim, sigma: dict[str, str]) -> dict[str, list[sp.Rational]]:
    """Root-claim bound values per statement variable: witnesses lie just past them."""
    out: dict[str, list[sp.Rational]] = {v: [] for v in sigma.values()}
    for name, r in trivial._ranges(root).items():
        out[sigma[name]] += [b for b in (r.lo, r.hi) if b is not None and b.is_Rational]
    return out


def _witness(root: ParsedClaim, statement: ParsedClaim, sigma: dict[str, str]) -> tuple[dict[str, str], bool] | None:
    """A point where the statement's premises hold and the root claim's do not, and whether
    the statement's conclusion fails there."""
    bounds = _boundaries(root, sigma)
    grids = [_values(n, d, bounds.get(n, [])) for n, d in statement.domains.items()]
    names = list(statement.domains)
    if any(not g for g in grids):
        return None
    points: list[tuple[sp.Rational, ...]] = []
    total = 1
    for g in grids:
        total *= len(g)
    if total <= MAX_WITNESS_POINTS:
        points = list(itertools.product(*grids))
    else:
        rng = random.Random(0)
        points = [tuple(rng.choice(g) for g in grids) for _ in range(MAX_WITNESS_POINTS)]
    back = {v: k for k, v in sigma.items()}
    covered: dict[str, str] | None = None
    for values in points:
        point = {n: str(v) for n, v in zip(names, values, strict=True)}
        s_ev = evaluate_parsed(statement, point)
        if s_ev.status not in ("holds", "fails"):
            continue
        r_ev = evaluate_parsed(root, {back[n]: point[n] for n in names})
        if r_ev.status not in ("outside", "undefined"):
            continue
        if s_ev.status == "fails":
            return point, True  # the sharpest witness: the statement itself is false there
        if covered is None:
            covered = point
    return (covered, False) if covered is not None else None


def compare_scope(root_claim: Claim, statement_claim: Claim) -> ScopeDecision:
    """How the proved root claim relates to the statement's claim (see the module doc)."""
    root, statement = _parsed(root_claim), _parsed(statement_claim)
    if root is None or statement is None:
        which = "the root claim" if root is None else "the statement's claim"
        return ScopeDecision("unknown", f"{which} could not be parsed, so the two were not compared")
    sigma = _correspondence(root, statement)
    proved = f"proved: {_show(root_claim.conclusion)} for {scope_words(root)}"
    asked = (
        f"the statement asked for {_show(statement_claim.conclusion)} for {scope_words(statement, conditions=False)}"
    )
    if sigma is None:
        return ScopeDecision("differs", f"{proved}; {asked} (other variables)", ["the variables differ"])
    rename = {root.symbols[k]: statement.symbols[v] for k, v in sigma.items()}
    if _canon_set(root.conclusion, rename) != _canon_set(statement.conclusion):
        return ScopeDecision(
            "differs",
            f"{proved}; {asked}",
            [f"the conclusion {_show(root_claim.conclusion)} is not {_show(statement_claim.conclusion)}"],
        )
    missing = _missing_hypotheses(root, statement, sigma)
    if not missing:
        return ScopeDecision(
            "same", f"proved as stated: {_show(statement_claim.conclusion)} for {scope_words(statement, False)}"
        )
    found = _witness(root, statement, sigma)
    extra = "; ".join(missing)
    if found is None:
        return ScopeDecision(
            "unknown",
            f"proved for {scope_words(root)}; the statement asked for {scope_words(statement, False)}; "
            f"the proved claim also assumes {extra}, and no point was found where that matters",
            missing,
        )
    point, fails = found
    at = ", ".join(f"{n} = {v}" for n, v in point.items())
    tail = (
        f"; the statement is false at {at}"
        if fails
        else f"; e.g. {at} is covered by the statement but not by the proved claim"
    )
    return ScopeDecision(
        "narrower",
        f"proved for {scope_words(root)}; the statement asked for {scope_words(statement, False)}{tail}",
        missing,
        point,
        fails,
    )
