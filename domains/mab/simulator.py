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

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from domains.mab.compat import require_family
from domains.mab.policies import POLICIES, etc_default_m, etc_warning, make_policy
from domains.mab.streams import Family, seed_key
from domains.mab.theory import d_ucb_discount, sw_ucb_window
from domains.mab.window import PairWindow

log = logging.getLogger(__name__)
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
    regret: np.ndarray  # (C, R) pseudo-regret sum_t (mu*(t) - mu_{A_t}(t)) of each run
    pulls: np.ndarray  # (R, K) final pull counts
    seconds: float
    cpu_seconds: float = 0.0
    crn: bool = True
    notes: list[str] = field(default_factory=list)
    realised: np.ndarray | None = None  # (C, R) realised regret sum_t mu*(t) - X_t
    best_rate: np.ndarray | None = None  # (C, R) fraction of pulls of an optimal arm so far
    changes: list[tuple[int, list[float]]] = field(default_factory=list)
    kernel: str = "numpy"  # "numba" when a compiled kernel ran the steps (same numbers either way)
    stats: dict[str, np.ndarray] = field(default_factory=dict)
    extra: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.stats = summarise(self.regret)
        self.extra = {
            "lower": self.stats["mean"] - self.stats["stderr"],
            "upper": self.stats["mean"] + self.stats["stderr"],
        }
        for name, values in (("realised", self.realised), ("best_arm_rate", self.best_rate)):
            if values is not None:
                st = summarise(values)
                self.extra[f"{name}_mean"], self.extra[f"{name}_stderr"] = st["mean"], st["stderr"]

    @property
    def final_regret(self) -> np.ndarray:
        return self.regret[-1]

    def at(self, t: int, extra: bool = False) -> dict[str, float]:
        """Summary statistics of the pseudo-regret at checkpoint t (with extra=True also the
        s.e. band, realised regret and best-arm rate)."""
        hits = np.flatnonzero(self.checkpoints == t)
        if hits.size == 0:
            raise KeyError(f"time {t} is not a checkpoint of this simulation")
        i = int(hits[0])
        out = {k: float(v[i]) for k, v in self.stats.items()}
        if extra:
            out.update({k: float(v[i]) for k, v in self.extra.items()})
        return out

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
            "notes": self.notes,
            "kernel": self.kernel,
            "changes": self.changes,
            "final_regret": self.at(self.horizon, extra=True),
            "mean_pulls": [float(x) for x in self.pulls.mean(axis=0)],
            "curve": {
                "t": [int(t) for t in self.checkpoints[keep]],
                **{k: [float(x) for x in v[keep]] for k, v in self.stats.items()},
                **{k: [float(x) for x in v[keep]] for k, v in self.extra.items()},
            },
            "seconds": round(self.seconds, 4),
        }


def policy_defaults(
    policy: str, fam: Family, mu: np.ndarray, horizon: int, params: dict[str, Any], n_changes: int
) -> list[str]:
    """Fill in the parameters a policy takes from the instance; return notes (warnings)."""
    notes: list[str] = []
    K = mu.size
    if policy == "ts_gaussian":
        params.setdefault("sigma", fam.sigma)
    elif policy == "kl_ucb_gaussian":
        params.setdefault("sigma", fam.subgaussian_scale(mu))
    elif policy == "imed" and fam.name == "gaussian":
        params.setdefault("sigma", fam.sigma)
    elif policy == "etc":
        if "m" not in params:
            params["m"] = etc_default_m(horizon, mu.max() - mu, fam.subgaussian_scale(mu))
        warning = etc_warning(max(1, int(params["m"])), K, horizon)
        if warning:
            log.warning(warning)
            notes.append(warning)
    elif policy == "robust_ucb":
        finite_var = fam.name != "pareto" or fam.alpha > 2.0
        params.setdefault("eps", 1.0 if finite_var else round((fam.alpha - 1.0) / 2.0, 6))
        eps = float(params["eps"])
        if "u" not in params:
            u = max(fam.raw_moment(float(m), 1.0 + eps) for m in mu)
            if not math.isfinite(u):
                raise ValueError(f"robust_ucb: E|X|^(1+eps) is infinite for eps = {eps}; give eps < alpha - 1")
            params["u"] = u
    elif policy in ("sw_ucb", "d_ucb"):
        B = float(params.get("B", 1.0))
        if policy == "sw_ucb":
            params.setdefault("tau", sw_ucb_window(horizon, n_changes, B))
        else:
            params.setdefault("gamma", d_ucb_discount(horizon, n_changes, B))
    return notes


def check_changes(
    changes: list[tuple[int, list[float]]] | None, fam: Family, K: int, horizon: int
) -> list[tuple[int, np.ndarray]]:
    """Piecewise-stationary instance: (t, means from step t on), times increasing in [2, T]."""
    out: list[tuple[int, np.ndarray]] = []
    last = 1
    for t, means in changes or []:
        m = np.asarray(means, dtype=np.float64)
        if m.shape != (K,):
            raise ValueError(f"the change at t={t} gives {m.size} means for {K} arms")
        if not last < int(t) <= horizon:
            raise ValueError(f"change times must increase and lie in [2, horizon]; got {t} after {last}")
        fam.check_means(m)
        out.append((int(t), m))
        last = int(t)
    return out


class _Tracker:
    """Pseudo-regret sum_t (mu*(t) - mu_{A_t}(t)), realised regret sum_t mu*(t) - X_t and the
    rate of optimal pulls, across the phases of a piecewise-stationary instance."""

    def __init__(self, win: PairWindow, mu: np.ndarray, runs: int) -> None:
        self.win, self.R, self.K = win, runs, mu.size
        self.regret_base = np.zeros(runs)
        self.best_base = np.zeros(runs)
        self.reference_base = 0.0  # sum of mu*(t) over the finished phases
        self.counts_base = np.zeros((runs, mu.size))
        self.phase_start = 1
        self._phase(mu)

    def _phase(self, mu: np.ndarray) -> None:
        self.gaps = mu.max() - mu
        self.best = float(mu.max())
        self.optimal = self.gaps == 0

    def at(self, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        counts = self.win.counts().reshape(self.R, self.K)
        d = counts - self.counts_base
        regret = self.regret_base + d @ self.gaps
        best = (self.best_base + d[:, self.optimal].sum(1)) / t
        reference = self.reference_base + (t - self.phase_start + 1) * self.best
        realised = reference - self.win.rewards_so_far().reshape(self.R, self.K).sum(1)
        return regret, realised, best

    def change(self, t: int, mu: np.ndarray) -> None:
        """New means from step t on (steps up to t - 1 are done)."""
        counts = self.win.counts().reshape(self.R, self.K).astype(np.float64)
        d = counts - self.counts_base
        self.regret_base += d @ self.gaps
        self.best_base += d[:, self.optimal].sum(1)
        self.reference_base += (t - self.phase_start) * self.best
        self.counts_base, self.phase_start = counts, t
        self._phase(mu)
        self.win.set_means(mu)


def simulate(
    family: Family | str,
    means: list[float] | np.ndarray,
    policy: str,
    horizon: int,
    runs: int,
    seed: int = 0,
    *,
    params: dict[str, Any] | None = None,
    changes: list[tuple[int, list[float]]] | None = None,
    checkpoints: list[int] | np.ndarray | None = None,
    n_checkpoints: int = 50,
    crn: bool = True,
    stream: int = 0,
    block: int | None = None,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> SimResult:
    """R runs of `policy` on arms with `means` (then the means of each (t, means) in `changes`
    from step t on: a piecewise-stationary instance)."""
    fam = Family(family) if isinstance(family, str) else family
    mu = np.asarray(means, dtype=np.float64)
    if mu.ndim != 1 or mu.size < 2:
        raise ValueError("an instance needs at least two arm means")
    fam.check_means(mu)
    if horizon < 1 or runs < 1:
        raise ValueError("horizon and runs must be positive")
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
    require_family(policy, fam.name)
    K = mu.size
    phases = check_changes(changes, fam, K, horizon)
    params = dict(params or {})
    notes = policy_defaults(policy, fam, mu, horizon, params, len(phases))
    # Path 0 is the shared (CRN) stream; without CRN each policy gets its own.
    policy_path = 1 + POLICIES.index(policy) if not crn else 0
    key = seed_key(seed, stream, policy_path)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream, 1000 + policy_path)))
    pol = make_policy(policy, runs, K, horizon, params, rng, family=fam)
    win = PairWindow(fam, mu, runs, key, pol.features, pol.feature_names, pol.needs_sq, block, pol.needs_reward)
    pol.bind(win)
    track = _Tracker(win, mu, runs)

    cps = (
        np.asarray(checkpoints, dtype=np.int64) if checkpoints is not None else log_checkpoints(horizon, n_checkpoints)
    )
    cps = np.unique(np.clip(np.concatenate([cps, [horizon]]), 1, horizon))
    regret, realised, best_rate = (np.empty((cps.size, runs)) for _ in range(3))
    init_end = min(K, horizon) if pol.init_round else 0
    B = win.block
    progress_every = max(B, (horizon // 20) // B * B)
    pending = list(phases)
    next_change = pending[0][0] if pending else horizon + 1

    started, cpu_started = time.perf_counter(), time.process_time()
    t, ci, next_refill, next_report = 1, 0, B, progress_every
    while t <= horizon:
        stop = min(next_refill, int(cps[ci]), next_change - 1)
        if t <= init_end:
            stop = min(stop, init_end)
            for s in range(t, stop + 1):
                pol.pull(pol.row_base + (s - 1))
        else:
            pol.run(t, stop)
        t = stop + 1
        if stop == next_refill:
            win.refill()
            next_refill += B
            if should_stop is not None and should_stop():
                raise SimulationStopped(f"stopped at t={stop} of {horizon}")
        if stop == cps[ci]:
            regret[ci], realised[ci], best_rate[ci] = track.at(stop)
            ci += 1
            if ci == cps.size:
                break
        if stop == next_change - 1:
            track.change(next_change, pending.pop(0)[1])
            next_change = pending[0][0] if pending else horizon + 1
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
        notes=notes,
        realised=realised,
        best_rate=best_rate,
        changes=[(t_, [float(x) for x in m]) for t_, m in phases],
        kernel=pol.kernel,
    )
