"""`eurekaclaw bench` scaling: sessions per minute and parallel efficiency against the number of
warm workers, with and without cvc5, on a problem set with the schema test model (offline).

    python benchmarks/bench_scaling.py [--set general] [--workers 1 2] [--cvc5 both|with|without]

Each case is one real `eurekaclaw bench SET --llm schema -w W` in a fresh folder. The runs at
W > 1 are ordered with the W = 1 bench of the same case as their history (`--costs-from`), as a
user's second bench would be. "Without cvc5" hides the cvc5 module from every process of the
bench (a `sitecustomize` on PYTHONPATH that marks it absent), because no setting turns the
second solver off: the code uses it whenever it is importable.

Figures (one per line):
- wall_s: the bench's execution (workers started to last record; bench.json "executions");
- sessions_per_min: runs / wall;
- efficiency: T(1) / (W · T(W)), the speed-up over W (also for the whole command, Python
  start-up, configuration check and reports included);
- bound_s: the best any schedule could do, max(longest session, sum of sessions / W);
- packing: sum of session times / (W · wall), the share of worker time spent in sessions (what
  start-up, order and tail cost), and session slowdown: sum of session times at W over at 1
  (sessions running slower side by side). efficiency = packing / slowdown;
- serial_fraction: Karp–Flatt e = (W/S − 1)/(W − 1) from the measured speed-up S, and the
  Amdahl projection S(N) = 1 / (e + (1 − e)/N) for N cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HIDE_CVC5 = "import sys\nsys.modules['cvc5'] = None  # bench_scaling.py: run as if cvc5 were not installed\n"


def _env(home: Path, hide_cvc5: bool, shim: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_BACKEND"))}
    env.update({"EUREKACLAW_DIR": str(home), "EUREKACLAW_OFFLINE": "1", "NO_COLOR": "1"})
    if hide_cvc5:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(shim), env.get("PYTHONPATH", "")]))
    return env


def run_case(args: argparse.Namespace, root: Path, cvc5: bool, workers: int, history: Path | None) -> dict[str, Any]:
    shim = root / "no-cvc5"
    shim.mkdir(exist_ok=True)
    (shim / "sitecustomize.py").write_text(HIDE_CVC5)
    out = root / f"{'with' if cvc5 else 'without'}-cvc5-w{workers}"
    cmd = [sys.executable, "-m", "eurekaclaw", "bench", args.set, "--llm", "schema", "-w", str(workers)]
    cmd += ["-n", str(args.runs), "-o", str(out), "--json"]
    if history is not None:
        cmd += ["--costs-from", str(history)]
    started = time.monotonic()
    proc = subprocess.run(cmd, env=_env(root / "home", not cvc5, shim), capture_output=True, text=True, timeout=7200)
    total = time.monotonic() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"bench failed ({proc.returncode}): {proc.stderr[-2000:]}")
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    execution = json.loads((out / "bench.json").read_text())["executions"][-1]
    walls = [r["wall_s"] for r in records]
    cvc5_s = sum((r["timing"].get("checkers", {}).get("cvc5") or {}).get("wall_s", 0.0) for r in records)
    return {
        "folder": out,
        "runs": len(records),
        "wall_s": execution["wall_s"],
        "command_s": round(total, 1),
        "session_sum_s": round(sum(walls), 1),
        "longest_s": max(walls),
        "startup_s": execution["worker_startup_s_total"],
        "bound_s": round(max(max(walls), sum(walls) / workers), 1),
        "cvc5_s": round(cvc5_s, 1),
        "tex_s": round(sum(r["timing"].get("tex_wall_s") or 0.0 for r in records), 1),
        "cpu_s": round(sum(r.get("cpu_s") or 0.0 for r in records), 1),
    }


def amdahl(serial: float, cores: int) -> float:
    return 1.0 / (serial + (1.0 - serial) / cores)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="general")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--cvc5", choices=("both", "with", "without"), default="both")
    parser.add_argument("--runs", type=int, default=1, help="repetitions (-n) per problem")
    parser.add_argument("--keep", help="keep the bench folders here instead of a temp dir")
    args = parser.parse_args()
    workers = sorted(set(args.workers) | {1})  # W = 1 is the baseline of every efficiency
    cases = {"both": (True, False), "with": (True,), "without": (False,)}[args.cvc5]
    print(f"machine: {os.cpu_count()} cores; load average at start {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="bench-scaling-") as tmp:
        root = Path(args.keep).expanduser() if args.keep else Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        for cvc5 in cases:
            label = "with cvc5" if cvc5 else "without cvc5"
            base: dict[str, Any] | None = None
            for w in workers:
                row = run_case(args, root, cvc5, w, base["folder"] if base else None)
                base = base or row
                speedup = base["wall_s"] / row["wall_s"]
                efficiency = speedup / w
                command_eff = base["command_s"] / row["command_s"] / w
                # efficiency = packing × (1 / slowdown): what the bench controls (start-up, order,
                # tail) apart from sessions running slower side by side (cores, memory, other load)
                packing = row["session_sum_s"] / (w * row["wall_s"])
                slowdown = row["session_sum_s"] / base["session_sum_s"]
                print(
                    f"{label} W={w}: {row['runs']} sessions in {row['wall_s']:.1f} s "
                    f"({row['runs'] / row['wall_s'] * 60:.1f} sessions/min); efficiency {efficiency:.0%} "
                    f"(whole command {command_eff:.0%}); "
                    f"bound {row['bound_s']:.1f} s; sessions sum {row['session_sum_s']:.1f} s, "
                    f"longest {row['longest_s']:.1f} s; worker start-up {row['startup_s']:.1f} s; "
                    f"cvc5 {row['cvc5_s']:.1f} s; TeX {row['tex_s']:.1f} s; session CPU {row['cpu_s']:.1f} s; "
                    f"command {row['command_s']:.1f} s"
                )
                print(f"{label} W={w}: packing {packing:.0%}; session slowdown {slowdown:.2f}x")
                if w > 1 and speedup > 0:
                    serial = max(0.0, min(1.0, (w / speedup - 1) / (w - 1)))
                    projection = ", ".join(f"N={n}: {amdahl(serial, n):.2f}x" for n in (4, 8, 16, 32))
                    print(f"{label} W={w}: serial fraction {serial:.3f}; Amdahl speed-up {projection}")
        print(f"load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
