"""A bench across a two-node Ray cluster on this machine (`ray start --head` plus a second
`ray start --address`), joined with `--ray ADDRESS` as on a real cluster: every run is
gathered exactly once, and both nodes ran sessions."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration.bench.demo_truth import EXPECTED, HONEST
from toolreq import require_module, require_tool

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_node(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    """`ray start ... --block` in its own process group: the group is exactly this node's
    processes, so the teardown stops them and nothing else on the machine (unlike `ray stop`)."""
    handle = log.open("w")
    proc = subprocess.Popen(
        ["ray", "start", *args, "--block"], env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
    )
    deadline = time.monotonic() + 60
    while "Ray runtime started" not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            _stop(proc)
            pytest.fail(f"ray start did not come up: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)
    return proc


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the node's group, then SIGKILL to whatever of it is left (its daemons may
    outlive `ray start` itself)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=15)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


@pytest.fixture
def two_node_ray(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    require_module("ray", "the ray extra is not installed")
    require_tool("ray", "the `ray` command is not on PATH")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_BACKEND"))}
    # what every node's workers run with: the bench sends no configuration, each node has its own
    env.update(
        {
            "EUREKACLAW_DIR": str(tmp_path / "home"),
            "EUREKACLAW_OFFLINE": "1",
            "NO_COLOR": "1",
            "RAY_USAGE_STATS_ENABLED": "0",
            "RAY_AUTH_MODE": "disabled",  # a throwaway local cluster; see docs/bench.md for real ones
        }
    )
    port = _free_port()
    address = f"127.0.0.1:{port}"
    common = ["--node-ip-address=127.0.0.1", "--num-cpus=1", "--disable-usage-stats"]
    # Ray's socket paths must stay under 107 bytes: a short temp dir of its own, not tmp_path
    ray_dir = Path(tempfile.mkdtemp(prefix="ecb-ray-", dir="/tmp"))
    head = _start_node(
        ["--head", f"--port={port}", f"--temp-dir={ray_dir}", "--include-dashboard=false", *common],
        tmp_path / "head.log",
        env,
    )
    try:
        worker = _start_node([f"--address={address}", *common], tmp_path / "worker.log", env)
        try:
            yield address, env
        finally:
            _stop(worker)
    finally:
        _stop(head)
        shutil.rmtree(ray_dir, ignore_errors=True)


def test_a_bench_on_a_two_node_cluster_gathers_every_run_once(two_node_ray: tuple[str, dict[str, str]], tmp_path: Path) -> None:  # fmt: skip
    address, env = two_node_ray
    out = tmp_path / "b"
    proc = subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "bench", "demo", "--llm", HONEST, "--ray", address, "-o", str(out)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 4 and len({r["run_id"] for r in records}) == 4  # each run gathered once
    assert {r["problem_id"]: r["verdict"] for r in records} == EXPECTED

    (execution,) = json.loads((out / "bench.json").read_text())["executions"]
    assert execution["executor"] == "ray" and execution["workers"] == 2
    node_of = {s["worker"]: s["node"] for s in execution["worker_startups"]}
    assert len(set(node_of.values())) == 2  # one warm actor on each node
    assert {node_of[r["worker"]] for r in records} == set(node_of.values())  # both nodes ran sessions
    # the sessions landed in the bench folder (one file system here; shared storage on a cluster)
    assert all(Path(r["session_dir"]).is_relative_to(out) for r in records)
