"""The honest scripted model on the demo set, and what it decides for each statement
(docs/bench.md): shared by the bench tests that check every run came back once and right."""

from __future__ import annotations

from eurekaclaw.bench.configs import DEMO_DIR

HONEST = f"scripted:{DEMO_DIR / 'honest.py'}"
# the honest model decides every demo statement mechanically
EXPECTED = {
    "demo-square": "proved",
    "demo-two-squares": "proved",
    "demo-shifted-quadratic": "refuted",
    "demo-cube-square": "refuted",
}
