"""simulate(): R independent runs of one policy on one instance, vectorised across runs.

Reproducibility: rewards come from counter-based streams keyed by (seed, stream); the policy's
own randomness (Thompson sampling, epsilon-greedy) from a numpy Generator seeded by (seed,
stream, policy). With crn=True (the default) every policy run with the same seed and stream sees
the same reward for the j-th pull of arm a in run r: "common random numbers", so differences
between policies are not noise in the rewards. With crn=False each policy gets its own streams.

Output: pseudo-regret sum_a Delta_a N_a(t) of every run at log-spaced checkpoints (plus any
requested times), pull counts per arm, and summary statistics. Memory is O(R K + R C) for C
checkpoints, independent of the horizon.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from domains.mab.policies import POLICIES, etc_default_m, make_policy
from domains.mab.streams import Family, seed_key
from domains.mab.window import PairWindow

Progress = Callable[[int, int], None]  # (t, horizon)


class SimulationStopped(Exception):
    """The caller asked the simulation to stop (cancellation or a time limit)."""


def log_checkpoints(horizon: int, count: int = 50, extra: list[int] | None = None) -> np.ndarray:
    """About `count` log-spaced integer times in [1, horizon], always including the horizon."""
    pts = np.unique(np.round(np.logspace(0.0, math.log10(max(horizon, 1)), max(count, 2))).astype(np.int64))
    more = [t for t in (extra or []) if 1 <= t <= horizon]
    return np.unique(np.concatenate([pts, np.asarray(more + [horizon], dtype=np.int64)]))


def summarise(values: np.ndarray) -> dict[str, np.ndarray]:
    """Mean, standard error and 10/50/90% quantiles along the last axis (the runs)."""
    runs = values.shape[-1]
    std = values.std(axis=-1, ddof=1) if runs > 1 else np.zeros(values.shape[:-1])
    q10, q50, q90 = np.quantile(values, [0.1, 0.5, 0.9], axis=-1)
    return {"mean": values.mean(axis=-1), "stderr": std / math.sqrt(runs), "q10": q10, "q50": q50, "q90": q90}


@dataclass
class SimResult:
    policy: str
    family: str
    means: list[float]
    horizon: int
    runs: int
    seed: int
    params: dict[str, Any]
    checkpoints: np.ndarray  # (C,)
    regret: np.ndarray  # (C, R) pseudo-regret of each run at each checkpoint
    pulls: np.ndarray  # (R, K) final pull counts
    seconds: float
    cpu_seconds: float = 0.0
    crn: bool = True
    stats: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.stats = summarise(self.regret)

    @property
    def final_regret(self) -> np.ndarray:
        return self.regret[-1]

    def at(self, t: int) -> dict[str, float]:
        """Summary statistics at checkpoint t."""
        hits = np.flatnonzero(self.checkpoints == t)
        if hits.size == 0:
            raise KeyError(f"time {t} is not a checkpoint of this simulation")
        i = int(hits[0])
        return {k: float(v[i]) for k, v in self.stats.items()}

    def summary(self, max_points: int = 60) -> dict[str, Any]:
        """A JSON-friendly digest (curves thinned to at most max_points)."""
        keep = np.unique(np.linspace(0, len(self.checkpoints) - 1, min(max_points, len(self.checkpoints))).astype(int))
        return {
            "policy": self.policy,
            "family": self.family,
            "means": self.means,
            "horizon": self.horizon,
            "runs": self.runs,
            "seed": self.seed,
            "crn": self.crn,
            "params": self.params,
            "final_regret": self.at(self.horizon),
            "mean_pulls": [float(x) for x in self.pulls.mean(axis=0)],
            "curve": {
                "t": [int(t) for t in self.checkpoints[keep]],
                **{k: [float(x) for x in v[keep]] for k, v in self.stats.items()},
            },
            "seconds": round(self.seconds, 4),
        }


def simulate(
    family: Family | str,
    means: list[float] | np.ndarray,
    policy: str,
    horizon: int,
    runs: int,
    seed: int = 0,
    *,
    params: dict[str, Any] | None = None,
    checkpoints: list[int] | np.ndarray | None = None,
    n_checkpoints: int = 50,
    crn: bool = True,
    stream: int = 0,
    block: int | None = None,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> SimResult:
    fam = Family(family) if isinstance(family, str) else family
    mu = np.asarray(means, dtype=np.float64)
    if mu.ndim != 1 or mu.size < 2:
        raise ValueError("an instance needs at least two arm means")
    fam.check_means(mu)
    if horizon < 1 or runs < 1:
        raise ValueError("horizon and runs must be positive")
    params = dict(params or {})
    if policy == "ts_gaussian":
        params.setdefault("sigma", fam.sigma)
    K = mu.size
    gaps = mu.max() - mu
    if policy == "etc" and "m" not in params:
        positive = gaps[gaps > 0]
        params["m"] = etc_default_m(horizon, float(positive.min()) if positive.size else 0.0)
    # Path 0 is the shared (CRN) stream; without CRN each policy gets its own.
    policy_path = 1 + POLICIES.index(policy) if (not crn and policy in POLICIES) else 0
    key = seed_key(seed, stream, policy_path)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream, 1000 + policy_path)))
    pol = make_policy(policy, runs, K, horizon, params, rng)
    win = PairWindow(fam, mu, runs, key, pol.features, pol.feature_names, pol.needs_sq, block)
    pol.bind(win)

    cps = np.asarray(checkpoints, dtype=np.int64) if checkpoints is not None else log_checkpoints(horizon, n_checkpoints)
    cps = np.unique(np.clip(np.concatenate([cps, [horizon]]), 1, horizon))
    regret = np.empty((cps.size, runs))
    init_end = min(K, horizon) if pol.init_round else 0
    B = win.block
    progress_every = max(B, (horizon // 20) // B * B)

    started, cpu_started = time.perf_counter(), time.process_time()
    t, ci, next_refill, next_report = 1, 0, B, progress_every
    while t <= horizon:
        stop = min(next_refill, int(cps[ci]))
        if t <= init_end:
            stop = min(stop, init_end)
            for s in range(t, stop + 1):
                pol.pull(pol.row_base + (s - 1))
        else:
            step = pol.step
            for s in range(t, stop + 1):
                step(s)
        t = stop + 1
        if stop == next_refill:
            win.refill()
            next_refill += B
            if should_stop is not None and should_stop():
                raise SimulationStopped(f"stopped at t={stop} of {horizon}")
        if stop == cps[ci]:
            regret[ci] = win.counts().reshape(runs, K) @ gaps
            ci += 1
            if ci == cps.size:
                break
        if progress is not None and stop >= next_report:
            progress(stop, horizon)
            next_report += progress_every
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    return SimResult(
        policy=policy,
        family=fam.name,
        means=[float(m) for m in mu],
        horizon=horizon,
        runs=runs,
        seed=seed,
        params=params,
        checkpoints=cps,
        regret=regret,
        pulls=win.counts().reshape(runs, K),
        seconds=seconds,
        cpu_seconds=cpu_seconds,
        crn=crn,
    )
