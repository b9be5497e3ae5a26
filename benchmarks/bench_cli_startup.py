"""CPU time of `eurekaclaw --help` against a bare `import typer` (issue 29: within 2×).

Each round runs, one after the other, `python -c "import typer"` and the help commands below,
each in a fresh process; the CPU time (user + system) of a child comes from the kernel's
accounting of finished children. Rounds are paired so that load from other work on the machine
falls on both sides of a ratio; a ratio is the median over the rounds of help ÷ import typer.
Bytecode is cached (in a private PYTHONPYCACHEPREFIX, written by one unmeasured round) as in
an installed copy, also where PYTHONDONTWRITEBYTECODE is set; --no-bytecode-cache measures
with the environment as it is. Prints `name value` lines.

    python benchmarks/bench_cli_startup.py [--runs N] [--no-bytecode-cache]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def commands() -> dict[str, list[str]]:
    script = Path(sys.executable).with_name("eurekaclaw")
    console = str(script) if script.exists() else shutil.which("eurekaclaw")
    if console is None:
        raise SystemExit("the `eurekaclaw` console script is not installed (pip install -e .)")
    return {
        "import_typer": [sys.executable, "-c", "import typer"],
        "help": [console, "--help"],
        "module_help": [sys.executable, "-m", "eurekaclaw", "--help"],
        "prove_help": [console, "prove", "--help"],
    }


def cpu_seconds(argv: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15, help="paired rounds (at least 10)")
    parser.add_argument("--no-bytecode-cache", action="store_true", help="keep the environment's bytecode setting")
    args = parser.parse_args()
    runs = max(10, args.runs)
    cmds = commands()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "EUREKACLAW_DIR": home, "COLUMNS": "100"}
        if not args.no_bytecode_cache:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(home) / "pycache")
        for argv in cmds.values():  # bytecode caches written before anything is measured
            cpu_seconds(argv, env)
        seconds: dict[str, list[float]] = {name: [] for name in cmds}
        for _ in range(runs):
            for name, argv in cmds.items():
                seconds[name].append(cpu_seconds(argv, env))
    print(f"runs {runs}")
    print(f"bytecode_cache {int(not args.no_bytecode_cache)}")
    for name, values in seconds.items():
        print(f"{name}_cpu_s {statistics.median(values):.3f}")
    base = seconds["import_typer"]
    for name in cmds:
        if name != "import_typer":
            ratios = [s / b for s, b in zip(seconds[name], base, strict=True)]
            print(f"{name}_over_import_typer {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
