"""claim_latex / claim_plain: a claim as the statement a reader sees, exactly as checked."""

from __future__ import annotations

import subprocess

import pytest
from toolreq import require_tool

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify import ClaimError
from eurekaclaw.verify.render import claim_latex, claim_plain, latex_name


def V(name: str, domain: str = "real", **kw: object) -> ClaimVariable:
    return ClaimVariable(name=name, domain=domain, **kw)  # type: ignore[arg-type]


def claim(conclusion: str, *assumptions: str, variables: list[ClaimVariable] | None = None) -> Claim:
    return Claim(
        variables=variables if variables is not None else [V("x")], assumptions=list(assumptions), conclusion=conclusion
    )


AMGM = claim("(a + b)/2 >= sqrt(a*b)", variables=[V("a", "nonnegative"), V("b", "nonnegative")])
BERNOULLI = claim("(1 + x)^n >= 1 + n*x", variables=[V("n", "natural", low=1), V("x", low=-1)])

CASES = [
    (
        AMGM,
        r"For all $a \ge 0$, $b \ge 0$: $\frac{a + b}{2} \ge \sqrt{a b}$.",
        "For all a ≥ 0, b ≥ 0: (a + b)/2 ≥ sqrt(a*b)",
    ),
    (
        BERNOULLI,
        r"For all $n \in \mathbb{Z}_{\ge 1}$, $x \ge -1$: $\left(1 + x\right)^{n} \ge 1 + n x$.",
        "For all n ≥ 1 (integer), x ≥ -1: (1 + x)^n ≥ 1 + n*x",
    ),
    (
        claim("x*y <= 1/4", "x + y == 1", "x >= 0", variables=[V("x"), V("y")]),
        r"For all $x \in \mathbb{R}$, $y \in \mathbb{R}$ such that $x + y = 1$ and $x \ge 0$: $x y \le \frac{1}{4}$.",
        "For all x ∈ ℝ, y ∈ ℝ such that x + y = 1 and x ≥ 0: x*y ≤ 1/4",
    ),
    (
        claim("x/(1 + x) <= log(1 + x) <= x", variables=[V("x", low=-1, open_low=True)]),
        r"For all $x > -1$: $\frac{x}{1 + x} \le \ln{\left(1 + x \right)} \le x$.",
        "For all x > -1: x/(1 + x) ≤ log(1 + x) ≤ x",
    ),
    (
        claim("Sum(k^3, (k, 1, n)) == (n*(n + 1)/2)^2", variables=[V("n", "natural")]),
        r"For all $n \in \mathbb{Z}_{\ge 0}$: $\sum_{k=1}^{n} k^{3} = \left(\frac{n \left(n + 1\right)}{2}\right)^{2}$.",
        "For all n ≥ 0 (integer): Sum(k^3, (k, 1, n)) = (n*(n + 1)/2)^2",
    ),
    (Claim(conclusion="0 <= 1"), r"$0 \le 1$.", "0 ≤ 1"),
    (
        claim("p != 1/2", variables=[V("p", "interval", low=0, high=1, open_high=True)]),
        r"For all $p \in [0, 1)$: $p \ne \frac{1}{2}$.",
        "For all p ∈ [0, 1): p ≠ 1/2",
    ),
    (
        claim("m^2 >= 0", variables=[V("m", "integer", low=-3, high=7)]),
        r"For all $m \in \{-3, \dots, 7\}$: $m^{2} \ge 0$.",
        "For all m ∈ {-3, …, 7}: m^2 ≥ 0",
    ),
    (
        claim("2*exp(-2*n*t^2) <= 2", variables=[V("n", "natural", low=1), V("t", "positive")]),
        r"For all $n \in \mathbb{Z}_{\ge 1}$, $t > 0$: $2 e^{- 2 n t^{2}} \le 2$.",
        "For all n ≥ 1 (integer), t > 0: 2*exp(-2*n*t^2) ≤ 2",
    ),
]


@pytest.mark.parametrize(("c", "latex", "plain"), CASES, ids=[c[2][:30] for c in CASES])
def test_statements(c: Claim, latex: str, plain: str) -> None:
    assert claim_latex(c) == latex
    assert claim_plain(c) == plain


def test_the_expression_is_shown_as_written_not_simplified() -> None:
    c = claim("y - x/x >= sqrt(x*y) - (x + 1) + (x + 1) - (-y)", variables=[V("x", "nonnegative"), V("y")])
    latex = claim_latex(c)
    assert r"y - \frac{x}{x} \ge \sqrt{x y} - \left(x + 1\right) + \left(x + 1\right) - \left(- y\right)" in latex
    assert claim_plain(c).endswith("y - x/x ≥ sqrt(x*y) - (x + 1) + (x + 1) - (-y)")


def test_numbers_keep_their_size_readable() -> None:
    c = claim("(1e9)^2 + 1e400*x + 1e-9 >= 0")
    assert r"\left(10^{9}\right)^{2} + 10^{400} x + 10^{-9} \ge 0" in claim_latex(c)
    assert "(1e9)^2 + 1e400*x + 1e-9 ≥ 0" in claim_plain(c)
    assert r"2.5 \cdot 10^{-7}" in claim_latex(claim("x >= 2.5e-7"))


def test_names_are_typeset_by_recipe() -> None:
    assert [latex_name(n) for n in ("x", "x1", "x_1", "alpha", "alpha_i", "Delta2", "regret_T", "a_b_c", "eta_")] == [
        "x",
        "x_{1}",
        "x_{1}",
        r"\alpha",
        r"\alpha_{i}",
        r"\Delta_{2}",
        r"\mathit{regret}_{T}",
        "a_{b,c}",
        r"\eta",
    ]
    c = claim("regret_T <= sigma*sqrt(T)", variables=[V("regret_T"), V("sigma", "positive"), V("T", "natural", low=1)])
    assert r"\mathit{regret}_{T} \le \sigma \sqrt{T}" in claim_latex(c)


def test_deterministic() -> None:
    for c, _, _ in CASES:
        assert claim_latex(c) == claim_latex(c.model_copy(deep=True))
        assert claim_plain(c) == claim_plain(c.model_copy(deep=True))


def test_unparseable_claim_raises() -> None:
    with pytest.raises(ClaimError):
        claim_latex(claim("y > 0"))
    with pytest.raises(ClaimError):
        claim_plain(claim("\\input{/etc/passwd} > 0"))


def test_latex_compiles(tmp_path) -> None:
    pdflatex = require_tool("pdflatex", "pdflatex is not on PATH (needed to compile rendered claims)")
    claims = [c for c, _, _ in CASES] + [
        claim("y - x/x >= sqrt(x*y) - (x + 1) - (-y)", variables=[V("x", "nonnegative"), V("y")]),
        claim("(1e9)^2 + 1e400*x + 1e-9 >= -x"),
        claim(
            "abs(x_1 + alpha2) <= abs(x_1) + min(x_1, 1) - floor(alpha2) + ceil(x_1) + factorial(3) + binomial(5, 2) + tan(x_1)",
            variables=[V("x_1"), V("alpha2"), V("regret_T", "nonnegative")],
        ),
        claim("log(x, 2) >= 0", variables=[V("x", low=1)]),
        claim("e^x >= 1 + x + pi - pi", "x^(1/3) >= 0", variables=[V("x", "interval", low=0, high=5)]),
    ]
    body = "\n\n".join(claim_latex(c) for c in claims)
    (tmp_path / "claims.tex").write_text(
        "\\documentclass{article}\n\\usepackage{amsmath,amssymb}\n\\begin{document}\n" + body + "\n\\end{document}\n"
    )
    out = subprocess.run(
        [pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "claims.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout[-2000:]


def test_definedness_conditions_are_part_of_the_statement() -> None:
    """A condition the parser added (x != 0 for 1/x) is a premise of every check: the reader
    sees it; a condition the domain already guarantees is not added at all."""
    real = Claim(variables=[ClaimVariable(name="x")], conclusion="x*(1/x) == 1")
    assert claim_plain(real) == "For all x ∈ ℝ with x ≠ 0 (for the expressions to be defined): x/x = 1"
    assert r"$x \ne 0$ (for the expressions to be defined)" in claim_latex(real)
    positive = Claim(variables=[ClaimVariable(name="x", domain="positive")], conclusion="x*(1/x) == 1")
    assert "defined" not in claim_plain(positive)
    bare = Claim(variables=[], assumptions=["2 > 1"], conclusion="log(3) > 1")
    assert "defined" not in claim_plain(bare)


def test_unit_fraction_is_a_fraction() -> None:
    c = Claim(variables=[ClaimVariable(name="n", domain="natural", low=1)], conclusion="3*(1/n) + 1/n^2 <= 4")
    latex = claim_latex(c)
    assert r"\frac{1}{n^{2}}" in latex and r"\frac{3}{n}" in latex and r"1 \frac" not in latex


def test_a_sum_with_a_reciprocal_keeps_both_terms() -> None:
    """Found by the round-trip property test: display mode read `1 + 2^(-1)` as the fraction
    1/2 (a rule meant for `1/4` applied to sums too), so the statement lost a term."""
    c = Claim(variables=[ClaimVariable(name="x")], conclusion="x <= 1 + 2^(-1)")
    assert claim_plain(c) == "For all x ∈ ℝ: x ≤ 1 + 1/2"
