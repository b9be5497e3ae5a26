"""PairWindow: for every (run, arm) pair, what a policy needs after each of its next few pulls.

The reward stream of a pair is fixed in advance (streams.py), so the running sum after c pulls
is a prefix sum of that stream. The window keeps, for each pair, the prefix sums and the policy's
features (e.g. empirical mean, count) for 2B consecutive pull counts. A pull then costs one
pointer increment and one gather per feature, with no per-step reward arithmetic. Every B time
steps the pairs that have used half their window are shifted and refilled in one vectorised
block; a pair can be pulled at most once per step, so the window never runs out in between.

Memory: pairs x 2B x (features + prefix arrays) floats, independent of the horizon.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from domains.mab.streams import Family, pair_keys

FeatureFn = Callable[[np.ndarray, np.ndarray, np.ndarray | None], dict[str, np.ndarray]]
MEMORY_BUDGET_BYTES = 64 * 2**20
MAX_BLOCK = 64
MIN_BLOCK = 4


def choose_block(pairs: int, arrays: int) -> int:
    """The largest power-of-two block (<= MAX_BLOCK) whose window fits the memory budget."""
    block = MAX_BLOCK
    while block > MIN_BLOCK and pairs * 2 * block * arrays * 8 > MEMORY_BUDGET_BYTES:
        block //= 2
    return block


class PairWindow:
    def __init__(
        self,
        family: Family,
        means: np.ndarray,
        runs: int,
        key: int,
        feature_fn: FeatureFn,
        feature_names: tuple[str, ...],
        needs_sq: bool = False,
        block: int | None = None,
        needs_reward: bool = False,
    ) -> None:
        arms = len(means)
        self.family = family
        self.pairs = runs * arms
        self.needs_sq = needs_sq
        self.feature_fn = feature_fn
        n_arrays = len(feature_names) + (2 if needs_sq else 1) + (1 if needs_reward else 0)
        self.block = block or choose_block(self.pairs, n_arrays)
        self.width = 2 * self.block
        self.keys = pair_keys(key, runs, arms)[:, None]
        self.arm_means = np.tile(np.asarray(means, dtype=np.float64), runs)[:, None]
        shape = (self.pairs, self.width)
        self.S = np.zeros(shape)
        self.Q = np.zeros(shape) if needs_sq else None
        # X[:, j] is the reward of pull number base + j (for policies that update per pull)
        self.X = np.zeros(shape) if needs_reward else None
        self.flat_X = self.X.reshape(-1) if self.X is not None else None
        self.names = tuple(feature_names)
        # One contiguous 1-D table per feature: numpy's 1-D gathers are several times faster
        # than row gathers from a 2-D table, and the per-step cost is mostly call overhead.
        self.features = {name: np.zeros(shape) for name in self.names}
        self.flat = {name: arr.reshape(-1) for name, arr in self.features.items()}
        self.base = np.zeros(self.pairs, dtype=np.int64)  # pull count held in column 0
        self.row_start = np.arange(self.pairs, dtype=np.intp) * self.width
        self.ptr = self.row_start.copy()  # flat position of each pair's current count
        self._fill(np.arange(self.pairs), 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            zero = np.zeros((self.pairs, 1))
            values = feature_fn(zero, zero, zero if needs_sq else None)
        for name in self.names:
            self.features[name][:, :1] = values[name]

    def _fill(self, rows: np.ndarray, start: int) -> None:
        """Compute columns start..width-1 of `rows` from column start-1 onwards."""
        cols = np.arange(start, self.width, dtype=np.int64)
        counts = self.base[rows][:, None] + cols
        x = self.family.draw(self.keys[rows], self.arm_means[rows], counts.astype(np.uint64))
        if self.X is not None:
            self.X[rows, start:] = x
        # cumsum from the previous prefix value keeps the additions in pull order, so the sums
        # are bit-identical to a running total updated one reward at a time.
        self.S[rows, start:] = np.cumsum(np.hstack([self.S[rows, start - 1 : start], x]), axis=1)[:, 1:]
        q_new = None
        if self.Q is not None:
            self.Q[rows, start:] = np.cumsum(np.hstack([self.Q[rows, start - 1 : start], x * x]), axis=1)[:, 1:]
            q_new = self.Q[rows, start:]
        with np.errstate(divide="ignore", invalid="ignore"):
            values = self.feature_fn(counts.astype(np.float64), self.S[rows, start:], q_new)
        for name in self.names:
            self.features[name][rows, start:] = values[name]

    def refill(self) -> None:
        """Shift and refill the pairs that have used the first half of their window."""
        used = self.ptr - self.row_start
        rows = np.flatnonzero(used >= self.block)
        if rows.size == 0:
            return
        b = self.block
        for arr in self._arrays():
            arr[rows, :b] = arr[rows, b:]
        self.base[rows] += b
        self.ptr[rows] -= b
        self._fill(rows, b)

    def _arrays(self) -> list[np.ndarray]:
        extra = [a for a in (self.Q, self.X) if a is not None]
        return [self.S, *self.features.values(), *extra]

    def set_means(self, means: np.ndarray) -> None:
        """Piecewise-stationary arms: from now on every pull draws with the new means. The
        current column of every pair moves to column 0 and the rest of the window is recomputed
        from the pair's next pull number, so rewards already received are untouched and reward
        number j of a pair is still F^{-1}(u(key, j)) with the mean in force when it is pulled."""
        used = self.ptr - self.row_start
        rows = np.arange(self.pairs)
        for arr in self._arrays():
            arr[:, 0] = arr[rows, used]
        self.base += used
        self.ptr[:] = self.row_start
        reps = self.pairs // len(means)
        self.arm_means = np.tile(np.asarray(means, dtype=np.float64), reps)[:, None]
        self._fill(rows, 1)

    def rewards_so_far(self) -> np.ndarray:
        """Sum of the rewards each pair has paid, shape (pairs,)."""
        return self.S.reshape(-1)[self.ptr]

    def counts(self) -> np.ndarray:
        """Pulls of every pair so far, shape (pairs,)."""
        return self.ptr - self.row_start + self.base
