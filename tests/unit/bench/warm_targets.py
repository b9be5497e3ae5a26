"""Session stand-ins for the warm-pool tests, imported by the worker processes by name."""

from __future__ import annotations

import os
import time
from typing import Any


def leaky(spec: dict[str, Any]) -> dict[str, Any]:
    """Reports what an earlier session left behind, then leaves something itself."""
    seen = {"env": os.environ.get("BENCH_TEST_LEAK"), "cwd": os.getcwd()}
    os.environ["BENCH_TEST_LEAK"] = spec["run_id"]
    os.chdir(spec["home"])
    return {"run_id": spec["run_id"], "pid": os.getpid(), "seen": seen}


def sleepy(spec: dict[str, Any]) -> dict[str, Any]:
    time.sleep(float(spec.get("sleep", 0)))
    return {"run_id": spec["run_id"], "pid": os.getpid()}


def crash(spec: dict[str, Any]) -> dict[str, Any]:
    if spec.get("crash"):
        os._exit(3)
    return {"run_id": spec["run_id"], "pid": os.getpid()}
