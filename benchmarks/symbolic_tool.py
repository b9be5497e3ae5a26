"""The `symbolic` tool's latency: the worker's start (first call), each operation on a warm
worker (median of a few runs), the `check` operation (sympy + falsifier + z3), and how long a
computation past its deadline takes to be cut off. One figure per line.

    python benchmarks/symbolic_tool.py [repeats]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

from eurekaclaw.tools.symbolic import SymbolicPool, SymbolicTool, SymbolicToolError

CALLS = {
    "simplify": {"operation": "simplify", "expression": "(x^2 - 1)/(x - 1) + sin(x)^2 + cos(x)^2"},
    "factor": {"operation": "factor", "expression": "x^4 - 5*x^2 + 4"},
    "series": {"operation": "series", "expression": "log(1 + x)", "variable": "x", "order": 6},
    "limit": {"operation": "limit", "expression": "(1 + 1/n)^n", "variable": "n", "point": "oo"},
    "sum": {"operation": "sum", "expression": "1/k^2", "variable": "k", "lower": "1", "upper": "oo"},
    "integrate": {"operation": "integrate", "expression": "x*exp(-x)", "variable": "x", "lower": "0", "upper": "oo"},
    "solve": {"operation": "solve", "expression": "x^2 - 3*x + 2 < 0", "variable": "x"},
    "sign": {"operation": "sign", "expression": "x - log(1 + x)", "variables": [{"name": "x", "domain": "positive"}]},
    "check": {
        "operation": "check",
        "expression": "log(1 + x) <= x",
        "variables": [{"name": "x", "domain": "positive"}],
    },
}


async def main(repeats: int) -> None:
    pool = SymbolicPool()
    tool = SymbolicTool(timeout_s=30.0, pool=pool)
    start = time.perf_counter()
    await tool.call(operation="expand", expression="(a + b)^2")
    print(f"worker start + first call: {time.perf_counter() - start:.2f} s")
    for name, args in CALLS.items():
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            await tool.call(**args)
            times.append(time.perf_counter() - start)
        print(f"{name}: median {statistics.median(times) * 1000:.0f} ms over {repeats}")
    short = SymbolicTool(timeout_s=1.0, pool=pool)
    start = time.perf_counter()
    try:
        await short.call(operation="expand", expression="(a + b + c + d + f + g + h + k)^60")
    except SymbolicToolError:
        pass
    print(f"runaway expansion with a 1 s deadline: answered 'timed out' after {time.perf_counter() - start:.2f} s")
    pool.close()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5))
