"""Claims with log, exp, powers with a symbolic exponent, pi/e and finite sums, of the kind
bandit and concentration proofs use, with known truth values. Shared by
test_smt_transcendental.py and benchmarks/smt_reach.py (SMT reach: how many true claims Z3
proves; no false claim may ever pass).

The false claims look like the true ones: wrong constants, the wrong direction, a dropped
condition."""

from __future__ import annotations

from claim_table import Case, V, case, nat, nonneg, pos

unit_open = lambda n: V(n, "interval", low=0, high=1, open_low=True, open_high=True)  # noqa: E731
gap = lambda n: V(n, "interval", low=0, high=1, open_low=True)  # noqa: E731
above_m1 = lambda n: V(n, "real", low=-1, open_low=True)  # noqa: E731

TRUE: list[Case] = [
    # --- UCB bonus ------------------------------------------------------------------------------
    case("ucb_shrinks_in_n", [nat("t", 2), nat("n", 1)], "sqrt(2*log(t)/(n + 1)) <= sqrt(2*log(t)/n)", True, tag="ucb"),
    case("ucb_grows_in_t", [nat("t", 2), nat("n", 1)], "sqrt(2*log(t)/n) <= sqrt(2*log(t + 1)/n)", True, tag="ucb"),
    case(
        "ucb_index_above_mean",
        [V("mu", "interval", low=0, high=1), nat("t", 1), nat("n", 1)],
        "mu + sqrt(2*log(t)/n) >= mu",
        True,
        tag="ucb",
    ),
    case("ucb_bonus_below_one_pull", [nat("t", 1), nat("n", 1)], "sqrt(2*log(t)/n) <= sqrt(2*log(t))", True, tag="ucb"),
    case(
        "ucb_enough_pulls",
        [nat("T", 2), pos("n"), gap("D")],
        "sqrt(2*log(T)/n) <= D/2",
        True,
        "n >= 8*log(T)/D^2",
        tag="ucb",
    ),
    case("ucb_pull_count_monotone", [nat("T", 1), gap("D")], "8*log(T)/D^2 <= 8*log(T + 1)/D^2", True, tag="ucb"),
    case("ucb_pulls_grow_as_gap_shrinks", [nat("T", 1), gap("D")], "8*log(T)/D^2 >= 8*log(T)", True, tag="ucb"),
    case("regret_log_below_linear", [nat("T", 1), pos("D")], "log(T)/D <= T/D", True, tag="ucb"),
    case("log_T_positive", [nat("T", 2)], "log(T) > 0", True, tag="ucb"),
    case("sqrt_log_below_sqrt", [V("t", low=1)], "sqrt(log(t)) <= sqrt(t)", True, tag="ucb"),
    # --- Hoeffding / Chernoff ---------------------------------------------------------------------
    case(
        "hoeffding_one_over_T",
        [nat("n", 1), pos("t"), nat("T", 2)],
        "exp(-2*n*t^2) <= 1/T",
        True,
        "n >= log(T)/(2*t^2)",
        tag="hoeffding",
    ),
    case(
        "hoeffding_delta",
        [nat("n", 1), pos("eps"), unit_open("delta")],
        "exp(-2*n*eps^2) <= delta",
        True,
        "n >= log(1/delta)/(2*eps^2)",
        tag="hoeffding",
    ),
    case("hoeffding_le_one", [nat("n", 1), pos("t")], "exp(-2*n*t^2) <= 1", True, tag="hoeffding"),
    case("hoeffding_monotone", [nat("n", 1), pos("t")], "exp(-2*(n + 1)*t^2) <= exp(-2*n*t^2)", True, tag="hoeffding"),
    case("hoeffding_union", [nat("K", 1), nat("n", 1), pos("t")], "K*exp(-2*n*t^2) <= K", True, tag="hoeffding"),
    case("chernoff_tail", [nonneg("t")], "exp(-t) <= 1/(1 + t + t^2/2)", True, tag="hoeffding"),
    case("exp_neg_below_inverse", [nonneg("x")], "exp(-x) <= 1/(1 + x)", True, tag="hoeffding"),
    case("exp_product", [V("a"), V("b")], "exp(a)*exp(b) == exp(a + b)", True, tag="hoeffding"),
    case("exp_one_plus_x", [V("x")], "1 + x <= exp(x)", True, tag="hoeffding"),
    case("e_power_one_plus_x", [V("x")], "e^x >= 1 + x", True, tag="hoeffding"),
    case("exp_decay_le_one", [nonneg("x")], "exp(-x) <= 1", True, tag="hoeffding"),
    # --- logarithms ---------------------------------------------------------------------------------
    case("log1p_le_x", [above_m1("x")], "log(1 + x) <= x", True, tag="log"),
    case("log1p_ge_ratio", [above_m1("x")], "x/(1 + x) <= log(1 + x)", True, tag="log"),
    case("log_le_x_minus_1", [pos("x")], "log(x) <= x - 1", True, tag="log"),
    case("log_ge_one_minus_inverse", [pos("x")], "log(x) >= 1 - 1/x", True, tag="log"),
    case("log_below_two_sqrt", [pos("x")], "log(x) <= 2*sqrt(x)", True, tag="log"),
    case("log_monotone", [pos("x"), pos("y")], "log(x) <= log(y)", True, "x <= y", tag="log"),
    case("log_product", [pos("a"), pos("b")], "log(a*b) == log(a) + log(b)", True, tag="log"),
    case("log_quotient", [pos("a"), pos("b")], "log(a/b) == log(a) - log(b)", True, tag="log"),
    case("log_square", [pos("x")], "log(x^2) == 2*log(x)", True, tag="log"),
    case("log_double_T", [nat("T", 1)], "log(2*T) <= log(T) + 7/10", True, tag="log"),
    case("kl_lower", [V("x", "interval", low=0, high=1, open_high=True)], "log(1/(1 - x)) >= x", True, tag="log"),
    case("log_ratio_below_one", [nat("T", 2)], "log(T)/log(2*T) <= 1", True, tag="log"),
    case("exp_of_log", [pos("x")], "exp(log(x)) == x", True, tag="log"),
    case("log_base_two_nonneg", [V("x", low=1)], "log(x, 2) >= 0", True, tag="log"),
    case("pi_area", [V("x")], "pi*x^2 >= 3*x^2", True, tag="log"),
    # --- finite sums ------------------------------------------------------------------------------
    case("harmonic_upper", [nat("n", 1)], "Sum(1/k, (k, 1, n)) <= log(n) + 1", True, tag="sum"),
    case("harmonic_lower", [nat("n", 1)], "Sum(1/k, (k, 1, n)) >= log(n + 1)", True, tag="sum"),
    case("basel_two", [nat("n", 1)], "Sum(1/k^2, (k, 1, n)) <= 2", True, tag="sum"),
    case("basel_tail", [nat("n", 1)], "Sum(1/k^2, (k, 1, n)) <= 2 - 1/n", True, tag="sum"),
    case("basel_pi", [nat("n", 1)], "Sum(1/k^2, (k, 1, n)) <= pi^2/6", True, tag="sum"),
    case("geometric_half", [nat("n")], "Sum((1/2)^k, (k, 0, n)) <= 2", True, tag="sum"),
    case("geometric_two", [nat("n")], "Sum(2^k, (k, 0, n)) < 2^(n + 1)", True, tag="sum"),
    case("geometric_ratio", [nat("n"), unit_open("r")], "Sum(r^k, (k, 0, n)) <= 1/(1 - r)", True, tag="sum"),
    case("sqrt_sum_upper", [nat("n", 1)], "Sum(1/sqrt(k), (k, 1, n)) <= 2*sqrt(n)", True, tag="sum"),
    case("sqrt_sum_lower", [nat("n", 1)], "Sum(1/sqrt(k), (k, 1, n)) >= 2*sqrt(n + 1) - 2", True, tag="sum"),
    case("power_two_shift", [nat("n")], "2^(n + 1) == 2*2^n", True, tag="sum"),
    case("halving_le_one", [nat("n")], "(1/2)^n <= 1", True, tag="sum"),
]

FALSE: list[Case] = [
    # --- UCB bonus ------------------------------------------------------------------------------
    case(
        "ucb_wrong_monotone", [nat("t", 2), nat("n", 1)], "sqrt(2*log(t)/n) <= sqrt(2*log(t)/(n + 1))", False, tag="ucb"
    ),
    case("ucb_le_one", [nat("t", 2), nat("n", 1)], "sqrt(2*log(t)/n) <= 1", False, tag="ucb"),
    case(
        "ucb_enough_pulls_quarter",
        [nat("T", 2), pos("n"), gap("D")],
        "sqrt(2*log(T)/n) <= D/4",
        False,
        "n >= 8*log(T)/D^2",
        tag="ucb",
    ),
    case("log_T_positive_at_one", [nat("T", 1)], "log(T) > 0", False, tag="ucb"),
    case("log_below_tenth_sqrt", [pos("x")], "log(x) <= sqrt(x)/10", False, tag="ucb"),
    # --- Hoeffding / Chernoff ---------------------------------------------------------------------
    case(
        "hoeffding_no_condition", [nat("n", 1), pos("t"), nat("T", 2)], "exp(-2*n*t^2) <= 1/T", False, tag="hoeffding"
    ),
    case(
        "hoeffding_wrong_constant",
        [nat("n", 1), pos("t"), nat("T", 2)],
        "exp(-n*t^2) <= 1/T",
        False,
        "n >= log(T)/(2*t^2)",
        tag="hoeffding",
    ),
    case("hoeffding_any_integer", [V("n", "integer"), V("t")], "exp(-2*n*t^2) <= 1", False, tag="hoeffding"),
    case("hoeffding_union_wrong", [nat("K", 1), nat("n", 1), pos("t")], "K*exp(-2*n*t^2) <= 1", False, tag="hoeffding"),
    case("chernoff_tail_wrong", [nonneg("t")], "exp(-t) <= 1/(1 + t + t^2)", False, tag="hoeffding"),
    case("exp_below_one_plus_x", [V("x")], "exp(x) <= 1 + x", False, tag="hoeffding"),
    case("e_power_quadratic", [V("x")], "e^x >= 1 + x + x^2", False, tag="hoeffding"),
    case("exp_product_wrong", [V("a"), V("b")], "exp(a)*exp(b) == exp(a*b)", False, tag="hoeffding"),
    # --- logarithms ---------------------------------------------------------------------------------
    case("log1p_ge_x", [above_m1("x")], "log(1 + x) >= x", False, tag="log"),
    case("log_le_x_minus_2", [pos("x")], "log(x) <= x - 2", False, tag="log"),
    case("log_monotone_wrong", [pos("x"), pos("y")], "log(x) >= log(y)", False, "x <= y", tag="log"),
    case("log_of_product_over_reals", [V("x"), V("y")], "log(x*y) >= log(x)", False, tag="log"),
    case("log_quotient_wrong", [pos("a"), pos("b")], "log(a/b) == log(a) + log(b)", False, tag="log"),
    case(
        "kl_upper_wrong", [V("x", "interval", low=0, high=1, open_high=True)], "log(1/(1 - x)) <= x", False, tag="log"
    ),
    case("log_ratio_wrong", [nat("T", 2)], "log(2*T)/log(T) <= 1", False, tag="log"),
    case("pi_area_wrong", [V("x")], "pi*x^2 >= 16/5*x^2", False, tag="log"),
    # --- finite sums ------------------------------------------------------------------------------
    case("harmonic_tight", [nat("n", 1)], "Sum(1/k, (k, 1, n)) <= log(n) + 1/2", False, tag="sum"),
    case("harmonic_lower_wrong", [nat("n", 2)], "Sum(1/k, (k, 1, n)) >= log(n) + 1", False, tag="sum"),
    case("basel_below_8_5", [nat("n", 1)], "Sum(1/k^2, (k, 1, n)) <= 8/5", False, tag="sum"),
    case("basel_tail_wrong", [nat("n", 1)], "Sum(1/k^2, (k, 1, n)) <= 2 - 2/n", False, tag="sum"),
    case("geometric_half_wrong", [nat("n")], "Sum((1/2)^k, (k, 0, n)) <= 19/10", False, tag="sum"),
    case("geometric_ratio_wrong", [nat("n"), unit_open("r")], "Sum(r^k, (k, 0, n)) <= 1/(1 - r) - 1", False, tag="sum"),
    case("sqrt_sum_tight", [nat("n", 1)], "Sum(1/sqrt(k), (k, 1, n)) <= sqrt(n)", False, tag="sum"),
    case("power_two_plus_one", [nat("n", 1)], "2^(n + 1) == 2^n + 1", False, tag="sum"),
    case("halving_strict", [nat("n", 1)], "(1/2)^n < 1/(2*n)", False, tag="sum"),
]
