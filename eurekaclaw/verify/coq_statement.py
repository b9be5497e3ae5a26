r"""Claim → the Coq proposition a formal proof of the claim must prove (Coq standard library reals).

The project writes the statement, the model writes only the proof (docs/verification.md §5).
The statement is

    forall (x : R) (n : nat) (z : Z),
      <domain bounds> -> <assumptions> -> <definedness conditions> ->
      <conclusion, a chain as a conjunction>

Coq's `/`, `sqrt`, `ln`, `Rpower` are total (`/ 0 = 0`, `sqrt (-1) = 0`, `ln 0 = 0`), so the
claim's definedness conditions (ParsedClaim.conditions: log argument > 0, denominator <> 0, ...)
are hypotheses: in the claim language they are premises. Everything the statement assumes is a
premise of the claim, and at every point where those premises hold each Coq term below equals
the mathematical value — so a Coq proof of the statement proves the claim. What cannot be
translated that way raises CoqUntranslatable; nothing is ever approximated.

| claim (sympy)                 | Coq                                                   | exact when            |
| ----------------------------- | ----------------------------------------------------- | --------------------- |
| real variable x               | `(x : R)`, bounds as hypotheses `0 < x ->`            | always                |
| natural n (low >= 0)          | `(n : nat)`, used as `INR n`; `(1 <= n)%nat ->`       | always                |
| other integer z               | `(z : Z)`, used as `IZR z`; `(-3 <= z)%Z ->`          | always                |
| `+ - * /`, rationals `p/q`    | `+ - * /`, `p / q`                                    | denominators <> 0     |
| `x^k`, k integer literal      | `x ^ k` (pow, nat exponent); k < 0: `1 / x ^ -k`      | x <> 0 when k < 0     |
| `x^n`, n natural expression   | `x ^ n`                                               | always                |
| `x^e`, e integer expression   | `powerRZ x e`                                         | x <> 0                |
| `x^(p/2^j)`, `sqrt(x)`        | `sqrt` j times, then `^ p`                            | x >= 0                |
| other `x^(p/q)`, `x^y`        | `Rpower x y` (= exp (y * ln x))                       | x > 0 (required)      |
| `log(x)`, `log(x, b)`         | `ln x`, `ln x / ln b`                                 | x > 0, b > 0, b <> 1  |
| `exp`, `sin`, `cos`, `tan`    | `exp`, `sin`, `cos`, `tan` (= sin / cos)              | tan: cos x <> 0       |
| `abs`, `min`, `max`           | `Rabs`, nested `Rmin` / `Rmax`                        | always                |
| `floor(x)`, `ceil(x)`         | `IZR (Int_part x)`, `- IZR (Int_part (- x))`          | always                |
| `factorial(n)`                | `INR (fact n)` (`Z.to_nat` for an integer argument)   | n >= 0                |
| `pi`, `e`                     | `PI`, `exp 1`                                         | always                |
| Σ_{k=a}^{b} f(k), a, b nat    | `sum_f_R0 (fun k : nat => f (k + a)) (b - a)`         | b >= a                |
|   … possibly empty (b = a-1)  | `(if (b <? a)%nat then 0 else sum_f_R0 …)`            | b >= a - 1            |
|   … integer bounds            | `fun k => f (Z.of_nat k + a)`, `Z.to_nat (b - a)`     | b >= a - 1            |
| `harmonic(n, m)`              | the sum Σ_{k=1}^{n} 1/k^m, as above                   | n >= 0                |
| Piecewise                     | `if Req_EM_T a b then … else …` (Rle_dec, Rlt_dec, …) | always                |
| `<= < >= > == !=`, chains     | `<= < >= > = <>`, chains joined by `/\`               |                       |

`sum_f_R0 f N` is f 0 + … + f N (N + 1 terms; defined in the Reals standard library, not by the
model), hence the shift by the lower bound. The parser keeps every sum as written, so Coq sees
the sum the claim states, never a computer-algebra closed form of it. Not
translated: binomial (Coq's `C` is not 0 for k > n), odd roots `x^(p/q)` of a base not known to
be positive (`Rpower 0 y = 1`, not 0), sums over more than one index, and any function sympy
introduces that is not in the table. Variable names that Coq reserves or that the statement uses
(`R`, `PI`, `sqrt`, `fun`, ...) get a trailing `_`.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

from eurekaclaw.types.artifacts import Claim
from eurekaclaw.verify.claims import ParsedClaim, Relation, parse_claim
from eurekaclaw.verify.coq_terms import (
    ADD,
    APP,
    ATOM,
    COQ_RESERVED,
    MUL,
    POW,
    UNARY,
    CoqUntranslatable,
    IntegerTerms,
    IntVar,
    describe,
    wrap,
)
from eurekaclaw.verify.forms import evaluated, node_handler

COQ_HEADER = "Require Import Reals Psatz Lra Lia ZArith.\nOpen Scope R_scope.\n"

_OPS = {"<=": "<=", "<": "<", ">=": ">=", ">": ">", "==": "=", "!=": "<>"}


class _Translator(IntegerTerms):
    def __init__(self, parsed: ParsedClaim) -> None:
        super().__init__(parsed)
        self.taken: set[str] = set(COQ_RESERVED)
        self.real_vars: dict[sp.Symbol, str] = {}
        self.active: set[str] = set()  # sum indices bound where the translation currently is
        self.positive: set[sp.Expr] = {c.lhs for c in parsed.conditions if c.op == ">" and c.rhs == 0}

    def fresh(self, name: str) -> str:
        while name in self.taken or name in self.active:
            name += "_"
        self.taken.add(name)
        return name

    def binder(self, name: str) -> str:
        while name in self.taken or name in self.active:
            name += "_"
        self.active.add(name)
        return name

    # -- the statement ------------------------------------------------------------------------
    def statement(self) -> str:
        binders: list[str] = []
        hyps: list[str] = []
        for name, var in zip(self.parsed.symbols, self.parsed.claim.variables, strict=True):
            sym, dom = self.parsed.symbols[name], self.parsed.domains[name]
            coq = self.fresh(name)
            if dom.kind == "real":
                self.real_vars[sym] = coq
                binders.append(f"({coq} : R)")
                if dom.lo is not None:
                    hyps.append(f"{self.real(dom.lo)[0]} {'<' if dom.lo_open else '<='} {coq}")
                if dom.hi is not None:
                    hyps.append(f"{coq} {'<' if dom.hi_open else '<='} {self.real(dom.hi)[0]}")
            elif var.domain == "natural" and dom.lo is not None and dom.lo >= 0:
                self.int_vars[sym] = IntVar("nat", coq)
                binders.append(f"({coq} : nat)")
                if dom.lo > 0:
                    hyps.append(f"({dom.lo} <= {coq})%nat")
                if dom.hi is not None:
                    hyps.append(f"({coq} <= {dom.hi})%nat")
            else:
                self.int_vars[sym] = IntVar("Z", coq)
                binders.append(f"({coq} : Z)")
                if dom.lo is not None:
                    hyps.append(f"({dom.lo} <= {coq})%Z")
                if dom.hi is not None:
                    hyps.append(f"({coq} <= {dom.hi})%Z")
        for rel in [*self.parsed.assumptions, *self.parsed.conditions]:
            text = self.relation(rel)
            if text not in hyps:
                hyps.append(text)
        conclusion = " /\\ ".join(self.relation(r) for r in self.parsed.conclusion)
        body = "".join(f"  {h} ->\n" for h in hyps) + f"  {conclusion}"
        if not binders:
            return body.strip() if not hyps else body.lstrip()
        return f"forall {' '.join(binders)},\n{body}"

    def relation(self, rel: Relation) -> str:
        return f"{self.real(rel.lhs)[0]} {_OPS[rel.op]} {self.real(rel.rhs)[0]}"

    # -- real-valued terms: (text, level) -------------------------------------------------------
    def real(self, e: sp.Expr) -> tuple[str, int]:
        atom = self._real_atom(e)
        if atom is not None:
            return atom
        handler = node_handler(_REAL_NODES, e)
        if handler is None:
            raise CoqUntranslatable(f"{describe(e)} has no Coq translation")
        result: tuple[str, int] = handler(self, e)
        return result

    def _real_atom(self, e: sp.Expr) -> tuple[str, int] | None:
        """A number, a constant or a variable; None for anything else."""
        if e.is_Integer:
            return str(int(e)), ATOM if e >= 0 else UNARY
        if e.is_Rational:
            return f"{e.p} / {e.q}", MUL
        if e is sp.pi:
            return "PI", ATOM
        if e is sp.E:
            return "exp 1", APP
        if not e.is_Symbol:
            return None
        if e in self.real_vars:
            return self.real_vars[e], ATOM
        if e in self.int_vars:
            var = self.int_vars[e]
            return f"{'INR' if var.kind == 'nat' else 'IZR'} {var.text}", APP
        raise CoqUntranslatable(f"the symbol {e} is not a variable of the claim")

    def _log(self, e: sp.log) -> tuple[str, int]:
        if len(e.args) != 1:
            raise CoqUntranslatable(f"{describe(e)} has no Coq translation")
        return self.app("ln", self.real(e.args[0]))

    def _min_max(self, e: sp.Min | sp.Max) -> tuple[str, int]:
        name = "Rmin" if isinstance(e, sp.Min) else "Rmax"
        args = list(e.args)
        out = self.real(args[-1])
        for a in reversed(args[:-1]):
            out = self.app(name, self.real(a), out)
        return out

    def _rounded(self, e: sp.floor | sp.ceiling) -> tuple[str, int]:
        z = self.z(e)
        if z is None:
            raise CoqUntranslatable(f"{describe(e)} has no Coq translation")
        return self.app("IZR", (z, ATOM))

    def _factorial(self, e: sp.factorial) -> tuple[str, int]:
        return self.app("INR", (f"fact {self.nat_or_to_nat(e.args[0])}", APP))

    def app(self, fn: str, *args: tuple[str, int]) -> tuple[str, int]:
        return " ".join([fn, *(wrap(a, ATOM) for a in args)]), APP

    def _add(self, e: sp.Add) -> tuple[str, int]:
        terms = e.as_ordered_terms()
        out = wrap(self.real(terms[0]), ADD)
        for t in terms[1:]:
            # a - b for a term with a visible minus sign, printed without asking sympy for -t
            # (which would re-evaluate the term as written, e.g. merge x * x^-1 into 1)
            if t.is_Number and t < 0:
                out += " - " + wrap(self.real(-t), MUL)
            elif isinstance(t, sp.Mul) and sp.Mul(*[f for f in t.args if f.is_Number]) < 0:
                out += " - " + wrap(self._mul(t, flip=True), MUL)
            else:
                out += " + " + wrap(self.real(t), MUL)
        return out, ADD

    def _mul(self, e: sp.Mul, *, flip: bool = False) -> tuple[str, int]:
        """The product as written (or its negation, with flip), its numbers folded into one
        coefficient and factors with a negative exponent moved under the division bar."""
        # Not as_coeff_Mul: claims.py builds products whose number is not the first argument.
        coeff = sp.Mul(*[f for f in e.args if f.is_Number]) * (-1 if flip else 1)
        factors = [f for f in e.args if not f.is_Number]
        num: list[tuple[str, int]] = []
        den: list[tuple[str, int]] = []
        negate = False
        if coeff != 1:
            p, q = int(sp.Rational(coeff).p), int(sp.Rational(coeff).q)
            if p == -1 and factors:
                negate = True
            elif p != 1 or not factors:
                num.append((str(p), ATOM if p >= 0 else UNARY))
            if q != 1:
                den.append((str(q), ATOM))
        for f in factors:
            if isinstance(f, sp.Pow) and f.exp.could_extract_minus_sign():
                den.append(self._pow(f.base, -f.exp))
            else:
                num.append(self.real(f))
        if len(num) == 1 and not den:
            term = num[0]  # a single factor keeps its own level (no parentheses of ours)
        else:
            text = self._product(num) if num else "1"
            if den:
                text += " / " + (wrap(den[0], UNARY) if len(den) == 1 else f"({self._product(den)})")
            term = (text, MUL)
        return ("- " + wrap(term, UNARY), UNARY) if negate else term

    @staticmethod
    def _product(items: list[tuple[str, int]]) -> str:
        return " * ".join(wrap(t, MUL if i == 0 else UNARY) for i, t in enumerate(items))

    def _pow(self, base: sp.Expr, exp: sp.Expr) -> tuple[str, int]:
        if exp.is_number:
            exp = evaluated(exp)  # a folded constant, whatever form the tree kept
        if exp == 1:
            return self.real(base)
        if exp.could_extract_minus_sign():
            return "1 / " + wrap(self._pow(base, -exp), UNARY), MUL
        if base is sp.E and not exp.is_Integer:
            return self.app("exp", self.real(exp))  # e^y as written
        b = self.real(base)
        if exp.is_Integer:
            return f"{wrap(b, APP)} ^ {int(exp)}", POW
        if exp.is_Rational:
            p, q = int(exp.p), int(exp.q)
            if q & (q - 1) == 0:  # q = 2^j: j square roots are exact for a non-negative base
                root = b
                while q > 1:
                    root, q = self.app("sqrt", root), q // 2
                return root if p == 1 else (f"{wrap(root, APP)} ^ {p}", POW)
            if not self._known_positive(base):
                raise CoqUntranslatable(
                    f"{base}^({exp}): an odd root of a base not known to be positive (Rpower 0 y = 1, not 0)"
                )
            return self.app("Rpower", b, self.real(exp))
        if exp.is_integer:
            n = self.nat(exp)
            if n is not None:
                return f"{wrap(b, APP)} ^ {n}", POW
            z = self.z(exp)
            if z is not None:
                return self.app("powerRZ", b, (z, ATOM))
        if not self._known_positive(base):
            raise CoqUntranslatable(f"the power {base}^({exp}) needs a base known to be positive")
        return self.app("Rpower", b, self.real(exp))

    def _known_positive(self, base: sp.Expr) -> bool:
        # Rpower x y = exp (y * ln x) is x^y only for x > 0: a domain that makes the base positive,
        # or a definedness condition "base > 0" among the hypotheses.
        return bool(evaluated(base).is_positive) or base in self.positive

    # -- sums -----------------------------------------------------------------------------------
    def _harmonic(self, e: sp.harmonic) -> tuple[str, int]:
        n, m = (e.args[0], e.args[1] if len(e.args) > 1 else sp.Integer(1))
        if not m.is_Rational:
            raise CoqUntranslatable(f"{describe(e)} has no Coq translation")
        k = sp.Dummy("k", integer=True, positive=True)
        return self._finite_sum(sp.Pow(k, -m), k, sp.Integer(1), n)

    def _sum(self, e: sp.Sum) -> tuple[str, int]:
        # Sum(f, (j, ...), (k, ...)) is Σ_k Σ_j f: the last limit is the outermost sum.
        *inner, (k, a, b) = e.limits
        body = sp.Sum(e.function, *inner) if inner else e.function
        return self._finite_sum(body, k, a, b)

    def _finite_sum(self, body: sp.Expr, k: sp.Symbol, a: sp.Expr, b: sp.Expr) -> tuple[str, int]:
        span = sp.expand(b - a)  # number of terms - 1; the claim requires span >= -1
        low = self.lower_bound(span)
        may_be_empty = low is None or low < 0
        binder = self.binder(str(k.name))
        a_nat = self.nat(a)
        pos = [t for t in sp.Add.make_args(span) if not t.could_extract_minus_sign()]
        neg = [-t for t in sp.Add.make_args(span) if t.could_extract_minus_sign()]
        p_nat = self.nat(sp.Add(*pos)) if pos else "0"
        q_nat = self.nat(sp.Add(*neg)) if neg else "0"
        if a_nat is not None and p_nat is not None and q_nat is not None:
            index = IntVar("nat", binder if a == 0 else f"({binder} + {a_nat})")
            count = p_nat if q_nat == "0" else f"({p_nat} - {q_nat})"  # exact: p - q >= 0 when used
            empty = f"({p_nat} <? {q_nat})%nat"
        else:
            a_z, span_z = self.z(a), self.z(span)
            if a_z is None or span_z is None:
                raise CoqUntranslatable(f"the bounds {a}, {b} of a sum have no Coq translation")
            index = IntVar("Z", f"(Z.of_nat {binder} + {a_z})")
            count = f"(Z.to_nat {span_z})"
            empty = f"({span_z} <? 0)%Z"
        self.int_vars[k] = index
        try:
            term = self.real(body)
        finally:
            del self.int_vars[k]
            self.active.discard(binder)
        text = f"sum_f_R0 (fun {binder} : nat => {term[0]}) {count}"
        if may_be_empty:
            return f"(if {empty} then 0 else {text})", ATOM
        return text, APP

    # -- piecewise closed forms -----------------------------------------------------------------
    def _piecewise(self, e: sp.Piecewise) -> tuple[str, int]:
        pieces = list(e.args)
        if pieces[-1].cond is not sp.true:
            raise CoqUntranslatable(f"{describe(e)}: a piecewise expression without an otherwise-branch")
        out = self.real(pieces[-1].expr)
        for piece in reversed(pieces[:-1]):
            out = self._if(piece.cond, self.real(piece.expr), out)
        return out

    def _if(self, cond: sp.Basic, then: tuple[str, int], other: tuple[str, int]) -> tuple[str, int]:
        decide = {
            sp.Eq: "Req_EM_T",
            sp.Ne: "Req_EM_T",
            sp.StrictLessThan: "Rlt_dec",
            sp.LessThan: "Rle_dec",
            sp.StrictGreaterThan: "Rgt_dec",
            sp.GreaterThan: "Rge_dec",
        }
        fn = decide.get(type(cond))
        if fn is None:
            raise CoqUntranslatable(f"the condition {cond} has no Coq translation")
        if isinstance(cond, sp.Ne):
            then, other = other, then
        test = self.app(fn, self.real(cond.lhs), self.real(cond.rhs))[0]
        return f"(if {test} then {then[0]} else {other[0]})", ATOM


def _unary(name: str) -> Callable[[_Translator, sp.Expr], tuple[str, int]]:
    """The translation of a one-argument function Coq has under `name`."""
    return lambda tr, e: tr.app(name, tr.real(e.args[0]))


# sympy node class -> its Coq real term (anything not here has no Coq translation)
_REAL_NODES: dict[type, Callable[..., tuple[str, int]]] = {
    sp.Add: _Translator._add,
    sp.Mul: _Translator._mul,
    sp.Pow: lambda tr, e: tr._pow(e.base, e.exp),
    sp.exp: _unary("exp"),
    sp.sin: _unary("sin"),
    sp.cos: _unary("cos"),
    sp.tan: _unary("tan"),
    sp.Abs: _unary("Rabs"),
    sp.log: _Translator._log,
    sp.Min: _Translator._min_max,
    sp.Max: _Translator._min_max,
    sp.floor: _Translator._rounded,
    sp.ceiling: _Translator._rounded,
    sp.factorial: _Translator._factorial,
    sp.harmonic: _Translator._harmonic,
    sp.Sum: _Translator._sum,
    sp.Piecewise: _Translator._piecewise,
}


def coq_statement(claim: Claim | ParsedClaim) -> str:
    """The Coq proposition (over `COQ_HEADER`) that says exactly what the claim says.
    Raises ClaimError when the claim does not parse and CoqUntranslatable when it uses something
    without an exact Coq translation."""
    parsed = claim if isinstance(claim, ParsedClaim) else parse_claim(claim)
    return _Translator(parsed).statement()
