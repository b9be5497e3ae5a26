"""Worker process of the `symbolic` tool: `python -m eurekaclaw.tools.symbolic_worker --serve`.

Reads one JSON request per line ({"operation": ..., "expression": ..., ...}, see
symbolic_ops.py) and answers one JSON line: {"status": "ok", ...result} or {"status": "error",
"reason": ...}, over line_worker.py's protocol. The parent (symbolic.py) kills the whole process group at its deadline; that
is the only reliable way to stop a sympy computation that does not end.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from eurekaclaw.line_worker import private_stdout, serve

READY = "eurekaclaw-symbolic-worker-ready"
# A runaway expansion must hit this ceiling, not the machine's memory.
MEMORY_LIMIT_BYTES = 2 * 1024**3


def _limit_memory() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    except (ImportError, ValueError, OSError):  # not every platform allows it; the deadline still holds
        pass


def handle(request: Any) -> dict[str, Any]:
    from eurekaclaw.tools.symbolic_ops import compute
    from eurekaclaw.verify.grammar import ClaimError

    if not isinstance(request, dict):
        return {"status": "error", "reason": "malformed request"}
    try:
        return {"status": "ok", **compute(request)}
    except ClaimError as exc:
        return {"status": "error", "reason": str(exc)}
    except MemoryError:
        return {"status": "error", "reason": "the computation ran out of memory"}
    except Exception as exc:  # sympy's own failures (NotImplementedError, PolynomialError...) are answers
        return {"status": "error", "reason": f"sympy could not do it: {type(exc).__name__}: {exc}"[:500]}


def main(argv: list[str]) -> int:
    out = private_stdout()
    _limit_memory()
    import eurekaclaw.tools.symbolic_ops  # noqa: F401  (warm the imports before announcing readiness)

    serve(out, READY, lambda request: json.dumps(handle(request), default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
