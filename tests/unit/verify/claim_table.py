"""The verification test table: claims with known truth values, shared by the tests and by
benchmarks/verify_claims.py. `smt` marks true claims Z3 is expected to prove outright."""

from __future__ import annotations

from dataclasses import dataclass, field

from eurekaclaw.types.artifacts import Claim, ClaimVariable


@dataclass(frozen=True)
class Case:
    id: str
    claim: Claim
    true: bool
    smt: bool = False  # a true claim Z3 should prove (unsat)
    tags: tuple[str, ...] = field(default_factory=tuple)


def claim(conclusion: str, *assumptions: str, **domains: str) -> Claim:
    """A claim over the named variables' domains (one real x when none is named)."""
    variables = [ClaimVariable(name=n, domain=d) for n, d in (domains or {"x": "real"}).items()]  # type: ignore[arg-type]
    return Claim(variables=variables, assumptions=list(assumptions), conclusion=conclusion)


def V(name: str, domain: str = "real", **kw: object) -> ClaimVariable:
    return ClaimVariable(name=name, domain=domain, **kw)  # type: ignore[arg-type]


def case(
    id: str,
    variables: list[ClaimVariable],
    conclusion: str,
    true: bool,
    *assumptions: str,
    smt: bool = False,
    tag: str = "",
) -> Case:
    return Case(
        id,
        Claim(variables=variables, assumptions=list(assumptions), conclusion=conclusion),
        true,
        smt,
        (tag,) if tag else (),
    )


pos = lambda n: V(n, "positive")  # noqa: E731
nonneg = lambda n: V(n, "nonnegative")  # noqa: E731
nat = lambda n, low=0: V(n, "natural", low=low)  # noqa: E731

CASES: list[Case] = [
    # --- AM-GM and friends ----------------------------------------------------------------------
    case("amgm2", [pos("a"), pos("b")], "(a + b)/2 >= sqrt(a*b)", True, smt=True, tag="amgm"),
    case("amgm2_nonneg", [nonneg("a"), nonneg("b")], "(a + b)/2 >= sqrt(a*b)", True, smt=True, tag="amgm"),
    case("amgm3", [pos("a"), pos("b"), pos("c")], "(a + b + c)/3 >= (a*b*c)^(1/3)", True, smt=True, tag="amgm"),
    case("hm_gm", [pos("a"), pos("b")], "2/(1/a + 1/b) <= sqrt(a*b)", True, smt=True, tag="amgm"),
    case("x_plus_inv", [pos("x")], "x + 1/x >= 2", True, smt=True, tag="amgm"),
    case("qm_am", [V("a"), V("b")], "sqrt((a^2 + b^2)/2) >= (a + b)/2", True, smt=True, tag="amgm"),
    case("two_ab", [V("a"), V("b")], "a^2 + b^2 >= 2*a*b", True, smt=True, tag="amgm"),
    case("amgm2_strict", [pos("a"), pos("b")], "(a + b)/2 > sqrt(a*b)", False, tag="amgm"),
    case("amgm2_reversed", [pos("a"), pos("b")], "(a + b)/2 <= sqrt(a*b)", False, tag="amgm"),
    case("amgm2_reals", [V("a"), V("b")], "(a + b)/2 >= sqrt(a*b)", False, "a*b >= 0", tag="amgm"),
    case("x_plus_inv_reals", [V("x")], "x + 1/x >= 2", False, tag="amgm"),
    case("amgm_factor", [pos("a"), pos("b")], "a + b >= 3*sqrt(a*b)", False, tag="amgm"),
    # --- Bernoulli -------------------------------------------------------------------------------
    case("bernoulli", [nat("n"), V("x", low=-1)], "(1 + x)^n >= 1 + n*x", True, tag="bernoulli"),
    case("bernoulli_3", [V("x", low=-1)], "(1 + x)^3 >= 1 + 3*x", True, smt=True, tag="bernoulli"),
    case("bernoulli_exp", [V("x")], "exp(x) >= 1 + x", True, tag="bernoulli"),
    case("bernoulli_all_x", [nat("n"), V("x")], "(1 + x)^n >= 1 + n*x", False, tag="bernoulli"),
    case("bernoulli_strict", [nat("n", 1), V("x", low=-1)], "(1 + x)^n > 1 + n*x", False, tag="bernoulli"),
    case("bernoulli_reverse", [nat("n", 2), pos("x")], "(1 + x)^n <= 1 + n*x", False, tag="bernoulli"),
    case("bernoulli_exp_upper", [V("x")], "exp(x) <= 1 + x + x^2", False, tag="bernoulli"),
    # --- Hoeffding-style exponential bounds --------------------------------------------------------
    case("hoeffding_le1", [nat("n", 1), pos("t")], "exp(-2*n*t^2) <= 1", True, tag="hoeffding"),
    case("hoeffding_two_sided", [nat("n", 1), pos("t")], "2*exp(-2*n*t^2) <= 2", True, tag="hoeffding"),
    case("hoeffding_monotone", [nat("n", 1), pos("t")], "exp(-2*(n+1)*t^2) <= exp(-2*n*t^2)", True, tag="hoeffding"),
    case(
        "hoeffding_lemma",
        [V("s", "interval", low=-3, high=3)],
        "(exp(s) + exp(-s))/2 <= exp(s^2/2)",
        True,
        tag="hoeffding",
    ),
    case("hoeffding_half", [nat("n", 1), pos("t")], "exp(-2*n*t^2) <= 1/2", False, tag="hoeffding"),
    case("hoeffding_wrong_sign", [nat("n", 1), pos("t")], "exp(2*n*t^2) <= 1", False, tag="hoeffding"),
    case(
        "hoeffding_lemma_wrong",
        [V("s", "interval", low=-3, high=3)],
        "(exp(s) + exp(-s))/2 <= exp(s^2/3)",
        False,
        tag="hoeffding",
    ),
    # --- logarithms ------------------------------------------------------------------------------
    case("log1p_le_x", [V("x", low=-1, open_low=True)], "log(1 + x) <= x", True, tag="log"),
    case("log1p_ge", [V("x", low=-1, open_low=True)], "x/(1 + x) <= log(1 + x)", True, tag="log"),
    case("log_le_xm1", [pos("x")], "log(x) <= x - 1", True, tag="log"),
    case("log_sqrt", [pos("x")], "log(x) <= 2*sqrt(x)", True, tag="log"),
    case("log_base2", [V("x", low=1)], "log(x, 2) >= 0", True, tag="log"),
    case("log1p_ge_x", [V("x", low=-1, open_low=True)], "log(1 + x) >= x", False, tag="log"),
    case("log1p_strict", [V("x", low=-1, open_low=True)], "x/(1 + x) < log(1 + x)", False, tag="log"),
    case("log_le_xm2", [pos("x")], "log(x) <= x - 2", False, tag="log"),
    case("log_x_over", [pos("x")], "log(x) <= sqrt(x)/10", False, tag="log"),
    # --- sums with closed forms ------------------------------------------------------------------
    # Sums reach the solvers as written (no computer-algebra closed form), so an identity such
    # as Σ k = n(n + 1)/2 is not an SMT proof: it needs induction (Coq) — DESIGN "Trust base".
    case("sum_k", [nat("n", 1)], "Sum(k, (k, 1, n)) == n*(n + 1)/2", True, tag="sum"),
    case("sum_k2", [nat("n", 1)], "Sum(k^2, (k, 1, n)) == n*(n + 1)*(2*n + 1)/6", True, tag="sum"),
    case("sum_k3", [nat("n")], "Sum(k^3, (k, 1, n)) == (n*(n + 1)/2)^2", True, tag="sum"),
    case("sum_geom", [nat("n")], "Sum(2^k, (k, 0, n)) == 2^(n + 1) - 1", True, tag="sum"),
    case("harmonic_log", [nat("n", 1)], "Sum(1/k, (k, 1, n)) <= log(n) + 1", True, tag="sum"),
    case("sum_odd", [nat("n")], "Sum(2*k - 1, (k, 1, n)) == n^2", True, tag="sum"),
    case("sum_k_wrong", [nat("n", 1)], "Sum(k, (k, 1, n)) == n^2/2", False, tag="sum"),
    case("sum_k2_off", [nat("n", 1)], "Sum(k^2, (k, 1, n)) == n*(n + 1)*(2*n + 1)/6 + 1", False, tag="sum"),
    case("sum_geom_wrong", [nat("n")], "Sum(2^k, (k, 0, n)) == 2^(n + 1)", False, tag="sum"),
    case("harmonic_tight", [nat("n", 1)], "Sum(1/k, (k, 1, n)) <= log(n) + 1/2", False, tag="sum"),
    case("harmonic_lower", [nat("n", 2)], "Sum(1/k, (k, 1, n)) >= log(n) + 1", False, tag="sum"),
    # --- bandit-style confidence bounds -----------------------------------------------------------
    case("ucb_shrinks", [nat("t", 2), nat("n", 1)], "sqrt(2*log(t)/(n + 1)) <= sqrt(2*log(t)/n)", True, tag="bandit"),
    case("ucb_grows", [nat("t", 2), nat("n", 1)], "sqrt(2*log(t)/n) <= sqrt(2*log(t + 1)/n)", True, tag="bandit"),
    case("ucb_sum", [nat("n", 1)], "Sum(1/sqrt(k), (k, 1, n)) <= 2*sqrt(n)", True, tag="bandit"),
    case("regret_sqrt", [nat("t", 1), nat("K", 1)], "sqrt(K*t) <= K + t", True, tag="bandit"),
    case("ucb_le_one", [nat("t", 2), nat("n", 1)], "sqrt(2*log(t)/n) <= 1", False, tag="bandit"),
    case(
        "ucb_wrong_monotone",
        [nat("t", 2), nat("n", 1)],
        "sqrt(2*log(t)/n) <= sqrt(2*log(t)/(n + 1))",
        False,
        tag="bandit",
    ),
    case("ucb_sum_tight", [nat("n", 1)], "Sum(1/sqrt(k), (k, 1, n)) <= sqrt(n)", False, tag="bandit"),
    case("regret_linear", [nat("t", 1), nat("K", 1)], "sqrt(K*t) <= t", False, tag="bandit"),
    # --- integer claims --------------------------------------------------------------------------
    case("square_ge", [V("n", "integer")], "n^2 >= n", True, smt=True, tag="integer"),
    case("two_pow_n", [nat("n", 4)], "2^n >= n^2", True, tag="integer"),
    case("factorial_pow", [nat("n", 4)], "factorial(n) >= 2^n", True, tag="integer"),
    case("consecutive_even", [V("n", "integer")], "floor(n*(n + 1)/2) == n*(n + 1)/2", True, tag="integer"),
    case("binomial_sym", [nat("n", 1)], "binomial(2*n, n) <= 4^n", True, tag="integer"),
    case("square_gt", [V("n", "integer")], "n^2 > n", False, tag="integer"),
    case("two_pow_n_small", [nat("n", 1)], "2^n >= n^2", False, tag="integer"),
    case("factorial_small", [nat("n", 1)], "factorial(n) >= 2^n", False, tag="integer"),
    case("fermat_like", [nat("n", 1)], "n^2 + n + 41 != 41^2", False, tag="integer"),
    case("cube_lt", [V("n", "integer")], "n^3 >= n", False, tag="integer"),
    # --- everyday algebra --------------------------------------------------------------------------
    case(
        "cauchy2",
        [V("a"), V("b"), V("x"), V("y")],
        "(a*x + b*y)^2 <= (a^2 + b^2)*(x^2 + y^2)",
        True,
        smt=True,
        tag="algebra",
    ),
    case("triangle", [V("x"), V("y")], "abs(x + y) <= abs(x) + abs(y)", True, smt=True, tag="algebra"),
    case("product_quarter", [V("x"), V("y")], "x*y <= 1/4", True, "x + y == 1", smt=True, tag="algebra"),
    case("minmax", [V("x"), V("y")], "min(x, y) <= max(x, y)", True, smt=True, tag="algebra"),
    case("triangle_reverse", [V("x"), V("y")], "abs(x + y) >= abs(x) + abs(y)", False, tag="algebra"),
    case("product_fifth", [V("x"), V("y")], "x*y <= 1/5", False, "x + y == 1", tag="algebra"),
    case("square_monotone", [V("x"), V("y")], "x^2 <= y^2", False, "x <= y", tag="algebra"),
    case("tiny_gap", [V("x")], "x^2 >= 2*x - 1 + 10^(-30)", False, tag="algebra"),
    # --- soundness: sympy's rewriting must not narrow the domain; floats must not overflow -----
    case("root_split_positive", [pos("x"), V("y")], "sqrt(x*y) + y >= 0", True, smt=True, tag="soundness"),
    case(
        "root_split_where_defined", [V("x"), V("y")], "(x*y)^(1/2) == sqrt(x)*sqrt(y)", True, smt=True, tag="soundness"
    ),
    case("exp_log_cancel", [V("x")], "exp(log(x)) == x", True, smt=True, tag="soundness"),
    case("exp_below_huge", [V("x", high=900)], "exp(x) <= 1e400", True, tag="soundness"),
    case("root_split_nonneg", [nonneg("x"), V("y")], "sqrt(x*y) + y >= 0", False, tag="soundness"),
    case("root_square_factor", [V("x"), V("y")], "sqrt(x^2*y) + y >= 0", False, tag="soundness"),
    case("exp_huge", [V("x")], "exp(x) <= 1e400", False, tag="soundness"),
    case("beyond_float_range", [V("x")], "x <= 1e300*1e300", False, tag="soundness"),
]

TRUE_CASES = [c for c in CASES if c.true]
FALSE_CASES = [c for c in CASES if not c.true]
