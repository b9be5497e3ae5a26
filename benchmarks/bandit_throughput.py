"""Arm pulls per second of the vectorised bandit simulator against a plain per-step Python loop
and against SMPyBandits, and peak memory at a long horizon.

Workload (issue 5): Bernoulli K=10, mu_i = 0.9 - 0.08 i, T=10,000, R=100 runs. `ts` is ts_beta
as a user gets it: the lazy sampler (domains/mab/thompson.py) with its steps compiled by numba
when numba is installed (thompson_kernel.py; `ts_kernel` says which ran), `ts_numpy` the same
sampler in numpy (params compiled=0; printed only when numba is there), `ts_direct` the policy
drawing every Beta at every step (params lazy=0), all exact Thompson sampling. Prints one
`name value` figure per line. Wall-clock figures are best of --repeat; `_cpu` figures divide by
process CPU time instead, which is steadier on a shared machine. Run:

    python benchmarks/bandit_throughput.py [--repeat 3] [--long-horizon 100000] [--all-policies]

SMPyBandits (issue 21) is compared in the same run when it is importable: its Thompson and UCB
policies (startGame / choice / getReward, Bernoulli rewards from Python's random module, so the
comparison charges SMPyBandits nothing for the environment) on --smpy-runs runs of the same
workload. It is not a dependency: install it apart, e.g.
`python -m venv --system-site-packages /tmp/smpy && /tmp/smpy/bin/pip install SMPyBandits`,
and run this script with that interpreter. SMPyBandits 0.9.7 imports scipy.special.btdtri,
which scipy 1.17 removed; the script aliases it to betaincinv (the same function) first.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core: no BLAS threads
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

from domains.mab.policies import POLICIES  # noqa: E402
from domains.mab.simulator import log_checkpoints, simulate  # noqa: E402
from domains.mab.thompson_kernel import compiled_available  # noqa: E402

MEANS = [0.9 - 0.08 * i for i in range(10)]


def plain_loop(policy: str, horizon: int, runs: int, seed: int = 0) -> float:
    """The straightforward implementation: Python lists, one arm index at a time."""
    rng = random.Random(seed)
    K, best = len(MEANS), max(MEANS)
    total = 0.0
    for _ in range(runs):
        n, s = [0] * K, [0.0] * K
        for t in range(1, horizon + 1):
            if policy == "ucb1":
                if t <= K:
                    a = t - 1
                else:
                    c = 2.0 * math.log(t)
                    idx = [s[i] / n[i] + math.sqrt(c / n[i]) for i in range(K)]
                    a = max(range(K), key=idx.__getitem__)
            else:
                samples = [rng.betavariate(1.0 + s[i], 1.0 + n[i] - s[i]) for i in range(K)]
                a = max(range(K), key=samples.__getitem__)
            n[a] += 1
            s[a] += 1.0 if rng.random() < MEANS[a] else 0.0
        total += sum((best - MEANS[a]) * n[a] for a in range(K))
    return total / runs


def smpybandits_loop(policy: str, horizon: int, runs: int, seed: int = 0) -> float:
    """SMPyBandits' own policy objects, one pull at a time (the way its Evaluator drives them)."""
    import scipy.special

    if not hasattr(scipy.special, "btdtri"):  # removed in scipy 1.17; SMPyBandits 0.9.7 imports it
        scipy.special.btdtri = scipy.special.betaincinv
    os.environ.setdefault("MPLBACKEND", "Agg")
    from SMPyBandits.Policies import UCB, Thompson

    cls = {"ucb1": UCB, "ts_beta": Thompson}[policy]
    rng = random.Random(seed)
    K, best = len(MEANS), max(MEANS)
    total = 0.0
    for _ in range(runs):
        pol = cls(K)
        pol.startGame()
        counts = [0] * K
        for _ in range(horizon):
            a = int(pol.choice())
            pol.getReward(a, 1.0 if rng.random() < MEANS[a] else 0.0)
            counts[a] += 1
        total += sum((best - MEANS[a]) * counts[a] for a in range(K))
    return total / runs


def smpybandits_available() -> bool:
    try:
        import importlib.util

        return importlib.util.find_spec("SMPyBandits") is not None
    except (ImportError, ValueError):
        return False


def best_of(repeat: int, fn) -> tuple[float, float]:  # noqa: ANN001
    """(best wall seconds, best CPU seconds) over `repeat` calls."""
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus)


def peak_memory_mb(policy: str, horizon: int, runs: int) -> float:
    tracemalloc.start()
    simulate("bernoulli", MEANS, policy, horizon, runs, seed=0, checkpoints=log_checkpoints(horizon, 60))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--horizon", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--plain-runs", type=int, default=4, help="runs for the (slow) plain loop")
    parser.add_argument("--long-horizon", type=int, default=100_000)
    parser.add_argument("--smpy-runs", type=int, default=2, help="runs for SMPyBandits (when installed)")
    parser.add_argument("--all-policies", action="store_true", help="pulls/s of every policy (T=2000)")
    args = parser.parse_args()
    T, R = args.horizon, args.runs
    smpy = smpybandits_available()
    print(f"load_average_1min {os.getloadavg()[0]:.2f}")
    print(f"smpybandits_installed {int(smpy)}")
    smpy_rate: dict[str, tuple[float, float]] = {}
    # ts: the lazy sampler ts_beta uses by default; ts_direct: every Beta drawn at every step
    print(f"ts_kernel {'numba' if compiled_available() else 'numpy'}")
    simulate("bernoulli", MEANS, "ts_beta", 200, 2)  # numba compiles (or loads its cache) here, untimed
    variants = (
        ("ucb1", "ucb1", {}),
        ("ts_beta", "ts", {}),
        ("ts_beta", "ts_numpy", {"compiled": 0}),
        ("ts_beta", "ts_direct", {"lazy": 0}),
    )
    for policy, label, params in variants:
        if label == "ts_numpy" and not compiled_available():
            continue  # `ts` is already the numpy path
        wall, cpu = best_of(
            args.repeat, lambda p=policy, q=params: simulate("bernoulli", MEANS, p, T, R, seed=1, params=q)
        )
        vec, vec_cpu = R * T / wall, R * T / cpu
        print(f"{label}_vectorised_pulls_per_s {vec:.4g}")
        print(f"{label}_vectorised_pulls_per_cpu_s {vec_cpu:.4g}")
        if label in ("ucb1", "ts"):
            p_wall, p_cpu = best_of(max(1, args.repeat - 1), lambda p=policy: plain_loop(p, T, args.plain_runs))
            plain, plain_cpu = args.plain_runs * T / p_wall, args.plain_runs * T / p_cpu
            print(f"{label}_plain_loop_pulls_per_s {plain:.4g}")
            print(f"{label}_plain_loop_pulls_per_cpu_s {plain_cpu:.4g}")
            print(f"{label}_speedup {vec / plain:.3g}")
            print(f"{label}_speedup_cpu {vec_cpu / plain_cpu:.3g}")
        if smpy:
            if policy not in smpy_rate:
                s_wall, s_cpu = best_of(
                    max(1, args.repeat - 1), lambda p=policy: smpybandits_loop(p, T, args.smpy_runs)
                )
                smpy_rate[policy] = (args.smpy_runs * T / s_wall, args.smpy_runs * T / s_cpu)
                print(f"{label}_smpybandits_pulls_per_s {smpy_rate[policy][0]:.4g}")
                print(f"{label}_smpybandits_pulls_per_cpu_s {smpy_rate[policy][1]:.4g}")
            sm, sm_cpu = smpy_rate[policy]
            print(f"{label}_vs_smpybandits {vec / sm:.3g}")
            print(f"{label}_vs_smpybandits_cpu {vec_cpu / sm_cpu:.3g}")
    if args.all_policies:
        families = {
            "kl_ucb_gaussian": "gaussian",
            "kl_ucb_exp": "exponential",
            "kl_ucb_poisson": "poisson",
            "robust_ucb": "pareto",
        }
        for policy in POLICIES:
            fam = families.get(policy, "bernoulli")
            means = MEANS if fam in ("bernoulli", "gaussian") else [m + 0.5 for m in MEANS]
            wall, cpu = best_of(1, lambda p=policy, f=fam, m=means: simulate(f, m, p, 2000, R, seed=1))
            print(f"{policy}_{fam}_pulls_per_cpu_s_T2000 {R * 2000 / cpu:.4g}")
    for policy, label in (("ucb1", "ucb1"), ("ts_beta", "ts")):
        print(f"{label}_peak_memory_mb_T{args.long_horizon} {peak_memory_mb(policy, args.long_horizon, R):.3g}")


if __name__ == "__main__":
    main()
