"""Claims as statements for people: `claim_latex` for the paper, `claim_plain` for the terminal.

A lemma whose statement is rendered from its claim shows exactly what the checkers checked:
the domains (as parsed, so `positive` reads x > 0), every assumption and the conclusion, in the
order and form they were written (claims.py's display mode keeps sums as sums and numbers as
numbers). Variable names are validated identifiers; they are typeset from a fixed recipe
(greek letters, subscripts, \\mathit for longer names), never passed through as LaTeX.
Both functions are deterministic and raise ClaimError for a claim that does not parse.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.str import StrPrinter

from eurekaclaw.types.artifacts import Claim
from eurekaclaw.verify.claims import ParsedClaim, Relation, VarDomain, parse_claim

GREEK = {
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "varepsilon",
    "zeta",
    "eta",
    "theta",
    "vartheta",
    "iota",
    "kappa",
    "mu",
    "nu",
    "xi",
    "rho",
    "varrho",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "varphi",
    "chi",
    "psi",
    "omega",
    "Gamma",
    "Delta",
    "Theta",
    "Lambda",
    "Xi",
    "Pi",
    "Sigma",
    "Upsilon",
    "Phi",
    "Psi",
    "Omega",
}
_LATEX_OPS = {"<=": r"\le", ">=": r"\ge", "<": "<", ">": ">", "==": "=", "!=": r"\ne"}
_PLAIN_OPS = {"<=": "≤", ">=": "≥", "<": "<", ">": ">", "==": "=", "!=": "≠"}
_JUXTAPOSED_FRAC = re.compile(r"(?<![\w{}^_\\])(\d+(?:\.\d+)?) \\frac")
_SCI_MIN_EXPONENT = 5  # 10^5 and beyond (and 10^-5 and below) are written with a power of ten


def _name_part(part: str) -> str:
    if part in GREEK:
        return "\\" + part
    if len(part) == 1 or part.isdigit():
        return part
    return r"\mathit{" + part + "}"


def latex_name(name: str) -> str:
    """x, x_{1}, \\alpha_{i}, \\mathit{regret}_{T}: a validated identifier as LaTeX."""
    base, sub = name, ""
    if "_" in name:
        base, sub = name.split("_", 1)
    else:
        m = re.fullmatch(r"([A-Za-z]+?)(\d+)", name)
        if m:
            base, sub = m.groups()
    parts = [p for p in sub.split("_") if p]
    out = _name_part(base)
    return out + "_{" + ",".join(_name_part(p) for p in parts) + "}" if parts else out


def _sci(value: sp.Rational) -> tuple[str, int] | None:
    """(mantissa, exponent) when a rational is a short decimal times a large power of ten
    (10^400, 2.5e-7), else None."""
    if value == 0:
        return None
    p, q = abs(int(value.p)), int(value.q)
    k = 0
    while q % 2 == 0 or q % 5 == 0:  # p/q = M / 10^k for an integer M when q = 2^a 5^b
        q //= 2 if q % 2 == 0 else 5
        k += 1
        if k > 2000:
            return None
    if q != 1:
        return None
    mantissa_int = p * 10**k // int(value.q)
    exponent = -k
    while mantissa_int % 10 == 0:
        mantissa_int //= 10
        exponent += 1
    digits = str(mantissa_int)
    sci_exponent = exponent + len(digits) - 1
    if len(digits) > 4 or abs(sci_exponent) < _SCI_MIN_EXPONENT:
        return None
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return ("-" if value < 0 else "") + mantissa, sci_exponent


def _negated(term: sp.Expr) -> sp.Expr | None:
    """The t of a term written -t (display mode builds it as Mul(-1, t) or a negative number)."""
    if isinstance(term, sp.Mul) and len(term.args) == 2 and term.args[0] == -1:
        return term.args[1]
    if term.is_Number and term < 0:
        return -term
    return None


class _AsWritten:
    # supplied by the sympy printer this mixes into
    minus: str
    parenthesize: Callable[..., str]
    _wrap: Callable[[str], str]

    """Sums and negations printed from the unevaluated tree. sympy's own printers negate a
    term by evaluating -term, which would print y - x/x as y - 1."""

    minus = "-"

    def _print_Add(self, expr: sp.Add, order: Any = None) -> str:
        out = ""
        for i, term in enumerate(expr.args):
            body = _negated(term)
            sign = "-" if body is not None else "+"
            text = self._signed_body(term if body is None else body)
            if i == 0:
                out = self.minus + text if sign == "-" else text
            else:
                out += f" {sign} {text}"
        return out

    def _signed_body(self, body: sp.Expr) -> str:
        text = self.parenthesize(body, PRECEDENCE["Add"])  # a - (b + c), a + (b + c) as written
        return self._wrap(text) if text.startswith("-") else text

    def _print_Mul(self, expr: sp.Mul) -> str:
        body = _negated(expr)
        if body is not None and not expr.is_Number:
            return self.minus + self._signed_body(body)
        # 1/x is built as 1 * x^-1 (as written); printed with the 1 it read as the mixed
        # number 1 1/x in LaTeX
        factors = [a for a in expr.args if a != 1]
        if len(factors) < len(expr.args) and factors:
            rest = factors[0] if len(factors) == 1 else sp.Mul(*factors, evaluate=False)
            return self._print(rest)  # type: ignore[attr-defined]
        return super()._print_Mul(expr)  # type: ignore[misc]


class _Latex(_AsWritten, LatexPrinter):
    minus = "- "

    def __init__(self, names: dict[sp.Symbol, str]) -> None:
        super().__init__({"order": "none", "ln_notation": True, "symbol_names": names})

    def _wrap(self, text: str) -> str:
        return r"\left(" + text + r"\right)"

    def _print_Mul(self, expr: sp.Mul) -> str:
        # a number juxtaposed with a fraction (3 \frac{1}{n}) reads as a mixed number
        return _JUXTAPOSED_FRAC.sub(r"\1 \\cdot \\frac", super()._print_Mul(expr))

    def _print_Rational(self, expr: sp.Rational) -> str:
        sci = _sci(expr)
        if sci is None:
            return super()._print_Rational(expr)
        mantissa, exponent = sci
        power = f"10^{{{exponent}}}"
        if mantissa in ("1", "-1"):
            return ("-" if mantissa == "-1" else "") + power
        return f"{mantissa} \\cdot {power}"

    def _print_Integer(self, expr: sp.Integer) -> str:
        return self._print_Rational(expr)

    def parenthesize(self, item: Any, level: int, is_neg: bool = False, strict: bool = False) -> str:
        # 10^{9} as a base would give 10^{9}^{2}, which LaTeX rejects
        if isinstance(item, sp.Rational) and _sci(item) is not None and level >= PRECEDENCE["Pow"]:
            return self._wrap(self._print(item))
        return super().parenthesize(item, level, is_neg, strict)


class _Plain(_AsWritten, StrPrinter):
    def __init__(self) -> None:
        super().__init__({"order": "none"})

    def _wrap(self, text: str) -> str:
        return "(" + text + ")"

    def _print_Rational(self, expr: sp.Rational) -> str:
        sci = _sci(expr)
        if sci is None:
            return super()._print_Rational(expr)
        return f"{sci[0]}e{sci[1]}"

    def _print_Integer(self, expr: sp.Integer) -> str:
        return self._print_Rational(expr) if _sci(expr) else super()._print_Integer(expr)

    def parenthesize(self, item: Any, level: int, strict: bool = False) -> str:
        if isinstance(item, sp.Rational) and _sci(item) is not None and level >= PRECEDENCE["Pow"]:
            return self._wrap(self._print(item))
        return super().parenthesize(item, level, strict)

    def _print_Abs(self, expr: sp.Abs) -> str:
        return "|" + self._print(expr.args[0]) + "|"

    def _print_Min(self, expr: sp.Min) -> str:
        return "min(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Max(self, expr: sp.Max) -> str:
        return "max(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_ceiling(self, expr: sp.ceiling) -> str:
        return "ceil(" + self._print(expr.args[0]) + ")"

    def _print_Pi(self, expr: Any) -> str:
        return "π"

    def _print_Exp1(self, expr: Any) -> str:
        return "e"

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        return super()._print_Pow(expr, rational).replace("**", "^")


# --------------------------------------------------------------------------------------------
# statements
# --------------------------------------------------------------------------------------------


def _chains(relations: list[Relation]) -> list[list[Relation]]:
    """Links grouped back into the chains they were written as (one per assumption)."""
    groups: dict[int, list[Relation]] = {}
    for rel in relations:
        groups.setdefault(rel.index, []).append(rel)
    return list(groups.values())


def _chain(links: list[Relation], show: Any, ops: dict[str, str]) -> str:
    parts = [show(links[0].lhs)]
    for rel in links:
        parts += [ops[rel.op], show(rel.rhs)]
    return " ".join(parts)


def _join(items: list[str], sep: str = ", ", last: str = " and ") -> str:
    return items[0] if len(items) == 1 else sep.join(items[:-1]) + last + items[-1]


@dataclass(frozen=True)
class _DomainNotation:
    """How a variable's domain is written: templates over {name}, {lo}, {hi}."""

    pair: str  # an integer with two values
    span: str  # an integer range
    int_from: str
    int_to: str
    integers: str
    member: str
    ge: str
    le: str
    reals: str


_LATEX_DOMAIN = _DomainNotation(
    pair=r"{name} \in \{{{lo}, {hi}\}}",
    span=r"{name} \in \{{{lo}, \dots, {hi}\}}",
    int_from=r"{name} \in \mathbb{{Z}}_{{\ge {lo}}}",
    int_to=r"{name} \in \mathbb{{Z}}_{{\le {hi}}}",
    integers=r"{name} \in \mathbb{{Z}}",
    member=r"\in",
    ge=_LATEX_OPS[">="],
    le=_LATEX_OPS["<="],
    reals=r"{name} \in \mathbb{{R}}",
)
_PLAIN_DOMAIN = _DomainNotation(
    pair="{name} ∈ {{{lo}, {hi}}}",
    span="{name} ∈ {{{lo}, …, {hi}}}",
    int_from="{name} ≥ {lo} (integer)",
    int_to="{name} ≤ {hi} (integer)",
    integers="{name} ∈ ℤ",
    member="∈",
    ge="≥",
    le="≤",
    reals="{name} ∈ ℝ",
)


def _domain_text(name: str, dom: VarDomain, num: Any, notation: _DomainNotation) -> str:
    lo, hi = (None if dom.lo is None else num(dom.lo)), (None if dom.hi is None else num(dom.hi))
    if lo is not None and hi is not None and dom.lo == dom.hi:
        return f"{name} = {lo}"
    if dom.kind == "int":
        if lo is not None and hi is not None:
            two = dom.lo is not None and dom.hi == dom.lo + 1
            return (notation.pair if two else notation.span).format(name=name, lo=lo, hi=hi)
        if lo is not None:
            return notation.int_from.format(name=name, lo=lo)
        if hi is not None:
            return notation.int_to.format(name=name, hi=hi)
        return notation.integers.format(name=name)
    if lo is not None and hi is not None:
        return f"{name} {notation.member} {'(' if dom.lo_open else '['}{lo}, {hi}{')' if dom.hi_open else ']'}"
    if lo is not None:
        return f"{name} {'>' if dom.lo_open else notation.ge} {lo}"
    if hi is not None:
        return f"{name} {'<' if dom.hi_open else notation.le} {hi}"
    return notation.reals.format(name=name)


def _names(parsed: ParsedClaim) -> dict[sp.Symbol, str]:
    symbols: set[sp.Symbol] = set(parsed.symbols.values())
    for rel in parsed.assumptions + parsed.conclusion:
        symbols |= rel.lhs.atoms(sp.Symbol) | rel.rhs.atoms(sp.Symbol)
    return {s: latex_name(s.name) for s in symbols}


_DEFINED = "(for the expressions to be defined)"


def _sentence(
    domains: list[str], assumptions: list[str], conclusion: str, math: Any, final: str, defined: list[str]
) -> str:
    """`defined`: the definedness conditions the parser added (ParsedClaim.definedness); they
    are premises of every check, so the reader sees them as such."""
    shown = [math(a) for a in assumptions]
    extra = f"{_join([math(c) for c in defined])} {_DEFINED}" if defined else ""
    if domains:
        head = "For all " + ", ".join(math(d) for d in domains)
        if shown:
            head += " such that " + _join(shown)
        if extra:
            head += (", and " if shown else " with ") + extra
        return f"{head}: {math(conclusion)}{final}"
    if shown or extra:
        premises = _join(shown) + (", and " if shown and extra else "") + extra
        return f"If {premises}, then {math(conclusion)}{final}"
    return f"{math(conclusion)}{final}"


def claim_latex(claim: Claim) -> str:
    """`For all $a \\ge 0$, $b \\ge 0$: $\\frac{a + b}{2} \\ge \\sqrt{a b}$.` — LaTeX text with
    inline math: exactly what the claim says."""
    parsed = parse_claim(claim, display=True)
    printer = _Latex(_names(parsed))
    show = printer.doprint
    domains = [_domain_text(latex_name(n), d, show, _LATEX_DOMAIN) for n, d in parsed.domains.items()]
    assumptions = [_chain(c, show, _LATEX_OPS) for c in _chains(parsed.assumptions)]
    conclusion = _chain(parsed.conclusion, show, _LATEX_OPS)
    defined = [_chain([c], show, _LATEX_OPS) for c in parsed.definedness]
    return _sentence(domains, assumptions, conclusion, lambda s: f"${s}$", ".", defined)


def claim_plain(claim: Claim) -> str:
    """`For all a ≥ 0, b ≥ 0: (a + b)/2 ≥ sqrt(a*b)` — one line of plain Unicode text."""
    parsed = parse_claim(claim, display=True)
    printer = _Plain()
    show = printer.doprint
    domains = [_domain_text(n, d, show, _PLAIN_DOMAIN) for n, d in parsed.domains.items()]
    assumptions = [_chain(c, show, _PLAIN_OPS) for c in _chains(parsed.assumptions)]
    conclusion = _chain(parsed.conclusion, show, _PLAIN_OPS)
    defined = [_chain([c], show, _PLAIN_OPS) for c in parsed.definedness]
    return _sentence(domains, assumptions, conclusion, lambda s: s, "", defined)
