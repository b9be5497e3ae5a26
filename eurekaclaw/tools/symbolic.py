"""The `symbolic` tool: offline computer algebra (sympy) for the proving roles, and a "check this
identity or inequality" that reports what each mechanical checker said.

Every computation runs in a worker process (symbolic_worker.py, run by line_worker.py) with a
hard deadline: the worker's process group is killed when it does not answer in time, and the
model is told the call timed out — nothing computed is ever invented. The check's falsifier and SMT opinions come
from verify/ (the same run_mechanical_checks the theory loop uses). A tool answer is evidence
for the model only: a lemma's verification level is decided by the checks the pipeline itself
runs on the lemma's claim, never by what this tool said.
"""

from __future__ import annotations

import asyncio
import atexit
import json
from typing import Any

from eurekaclaw.line_worker import WorkerPool, WorkerStartError
from eurekaclaw.tools.base import BaseTool
from eurekaclaw.tools.symbolic_ops import MAX_INPUT_CHARS, OPERATIONS
from eurekaclaw.tools.symbolic_worker import READY

DEFAULT_TIMEOUT_S = 10.0
MAX_REQUEST_CHARS = 8_000
REQUEST_KEYS = (
    "operation",
    "expression",
    "variables",
    "variable",
    "point",
    "lower",
    "upper",
    "order",
    "direction",
    "assumptions",
)
NOTE = (
    "Evidence for your work, not a verification: a lemma's level comes only from the checks the "
    "pipeline runs on the lemma's own claim after you answer."
)


class SymbolicToolError(Exception):
    """A call the tool could not answer (bad input, sympy failure, timeout); reported to the model."""


class SymbolicPool(WorkerPool):
    """Idle symbolic workers, reused (starting Python with sympy costs about a second)."""

    def __init__(self, max_idle: int = 1) -> None:
        super().__init__("eurekaclaw.tools.symbolic_worker", READY, "the symbolic worker", max_idle=max_idle)


_POOL = SymbolicPool()
atexit.register(_POOL.close)

_VARIABLE_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "domain": {"type": "string", "enum": ["real", "positive", "nonnegative", "integer", "natural", "interval"]},
        "low": {"type": "number"},
        "high": {"type": "number"},
        "open_low": {"type": "boolean"},
        "open_high": {"type": "boolean"},
    },
    "required": ["name"],
}


class SymbolicTool(BaseTool):
    name = "symbolic"
    description = (
        "Computer algebra (sympy), offline. Expressions use the claim language: + - * / ^, sqrt, log, "
        "exp, abs, min, max, floor, ceil, sin, cos, tan, factorial, binomial, Sum(f, (k, a, b)), pi, e. "
        "Operations: simplify, expand, factor; series/limit (variable, point; 'oo' for infinity; order, "
        "direction); sum (variable as index, lower, upper); integrate (variable; lower and upper for a "
        "definite integral); solve (an equation, inequality or expression = 0, for variable); diff "
        "(variable, order); sign (where an expression is positive/negative); check (a relation such as "
        "'log(1+x) <= x' with optional assumptions: sympy, the numeric falsifier and the SMT solvers each "
        "give their verdict). Undeclared names are real variables; declare domains in 'variables' "
        "(positive, nonnegative, integer, natural, interval with low/high). Results are evidence, not a "
        "verification level."
    )

    def __init__(
        self, *, timeout_s: float = DEFAULT_TIMEOUT_S, settings: Any = None, pool: SymbolicPool | None = None
    ) -> None:
        self.timeout_s = timeout_s
        self.settings = settings
        self.pool = pool or _POOL

    def input_schema(self) -> dict[str, Any]:
        text = {"type": "string", "maxLength": MAX_INPUT_CHARS}
        return {
            "type": "object",
            "properties": {
                "operation": {"type": "string", "enum": list(OPERATIONS)},
                "expression": {**text, "description": "an expression, or a relation for solve/check"},
                "variables": {"type": "array", "items": _VARIABLE_SCHEMA, "maxItems": 30},
                "variable": {"type": "string"},
                "point": text,
                "lower": text,
                "upper": text,
                "order": {"type": "integer", "minimum": 1, "maximum": 20},
                "direction": {"type": "string", "enum": ["+", "-", "+-"]},
                "assumptions": {"type": "array", "items": text, "maxItems": 20},
            },
            "required": ["operation", "expression"],
        }

    async def call(self, **kwargs: Any) -> Any:
        unknown = sorted(set(kwargs) - set(REQUEST_KEYS))
        if unknown:
            raise SymbolicToolError(f"unknown argument(s) {', '.join(unknown)}; allowed: {', '.join(REQUEST_KEYS)}")
        request = {k: v for k, v in kwargs.items() if v is not None}
        size = len(json.dumps(request, default=str))
        if size > MAX_REQUEST_CHARS:
            raise SymbolicToolError(f"the request is {size:,} characters; the limit is {MAX_REQUEST_CHARS:,}")
        try:
            reply = await asyncio.to_thread(self.pool.request, request, self.timeout_s)
        except WorkerStartError as exc:
            raise SymbolicToolError(str(exc)) from exc
        status = reply.pop("status", None)
        if status == "timeout":
            raise SymbolicToolError(
                f"timed out: sympy did not finish within {self.timeout_s:g} s, so nothing was "
                "computed; try a smaller or simpler expression"
            )
        if status != "ok":
            raise SymbolicToolError(str(reply.get("reason") or "the symbolic worker gave no answer"))
        if request.get("operation") == "check":
            return await self._check(request, reply)
        return {"operation": request.get("operation"), **reply}

    async def _check(self, request: dict[str, Any], sympy_reply: dict[str, Any]) -> dict[str, Any]:
        from eurekaclaw.types.artifacts import Claim
        from eurekaclaw.verify.mechanical import run_mechanical_checks

        claim = Claim.model_validate(sympy_reply["claim"])
        checkers: list[dict[str, Any]] = [
            {
                "checker": "sympy",
                "verdict": sympy_reply.get("verdict", "unknown"),
                "detail": sympy_reply.get("detail", ""),
            }
        ]
        budget = float(getattr(self.settings, "falsifier_budget_s", 2.0)) + float(
            getattr(self.settings, "smt_timeout_s", 10.0)
        )
        try:
            checks = await asyncio.wait_for(run_mechanical_checks(claim, settings=self.settings), budget + 15.0)
        except TimeoutError:
            checkers.append(
                {
                    "checker": "falsifier/smt",
                    "verdict": "timed out",
                    "detail": f"no answer within {budget + 15.0:g} s; nothing was decided",
                }
            )
        else:
            for c in checks:
                entry: dict[str, Any] = {"checker": c.checker, "verdict": c.verdict, "detail": c.detail[:600]}
                if c.counterexample is not None:
                    entry["counterexample"] = c.counterexample
                checkers.append(entry)
        return {
            "operation": "check",
            "claim": {
                "variables": [f"{v.name} ({v.domain})" for v in claim.variables],
                "assumptions": claim.assumptions,
                "conclusion": claim.conclusion,
            },
            "checkers": checkers,
            "summary": "; ".join(f"{c['checker']}: {c['verdict']}" for c in checkers),
            "counts_as_verification": False,
            "note": NOTE,
        }


def register_symbolic_tool(registry: Any, settings: Any = None) -> None:
    """Register the tool with the session's timeouts (SYMBOLIC_TIMEOUT_S, FALSIFIER_BUDGET_S,
    SMT_TIMEOUT_S)."""
    timeout = float(getattr(settings, "symbolic_timeout_s", DEFAULT_TIMEOUT_S))
    registry.register(SymbolicTool(timeout_s=timeout, settings=settings))
