"""The `symbolic` tool: each operation's answer, the safe parser in front of sympy, the hard
per-call deadline, and a check that reports each checker without ever counting as verification."""

from __future__ import annotations

import json

import pytest
from toolreq import require_module

from eurekaclaw.tools.base import ToolRegistry
from eurekaclaw.tools.roles import role_tool_names
from eurekaclaw.tools.symbolic import SymbolicTool, register_symbolic_tool
from eurekaclaw.tools.symbolic_ops import SymbolicError, compute
from eurekaclaw.verify.grammar import ClaimError

POSITIVE_X = [{"name": "x", "domain": "positive"}]


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        ({"operation": "simplify", "expression": "(x^2 - 1)/(x - 1)"}, "x + 1"),
        ({"operation": "simplify", "expression": "sqrt(x^2)", "variables": POSITIVE_X}, "x"),
        ({"operation": "expand", "expression": "(a + b)^2"}, "a**2 + 2*a*b + b**2"),
        ({"operation": "factor", "expression": "x^2 - 5*x + 6"}, "(x - 3)*(x - 2)"),
        ({"operation": "series", "expression": "log(1 + x)", "variable": "x", "order": 3}, "x - x**2/2 + O(x**3)"),
        ({"operation": "limit", "expression": "(1 + 1/n)^n", "variable": "n", "point": "oo"}, "E"),
        ({"operation": "limit", "expression": "sin(x)/x", "variable": "x", "point": "0"}, "1"),
        ({"operation": "sum", "expression": "1/2^k", "variable": "k", "lower": "1", "upper": "n"}, "1 - 2**(-n)"),
        ({"operation": "sum", "expression": "1/k^2", "variable": "k", "lower": "1", "upper": "oo"}, "pi**2/6"),
        ({"operation": "integrate", "expression": "exp(-x)", "variable": "x", "lower": "0", "upper": "oo"}, "1"),
        ({"operation": "integrate", "expression": "2*x", "variable": "x"}, "x**2"),
        ({"operation": "solve", "expression": "x^2 = 4", "variable": "x"}, "{-2, 2}"),
        ({"operation": "solve", "expression": "x^2 - 4", "variable": "x", "variables": POSITIVE_X}, "{2}"),
        ({"operation": "solve", "expression": "x^2 < 4", "variable": "x"}, "Interval.open(-2, 2)"),
        ({"operation": "diff", "expression": "x^3", "variable": "x", "order": 2}, "6*x"),
    ],
)
def test_operations_compute_the_right_answer(request_, expected):
    result = compute(request_)["result"]
    if expected == "1 - 2**(-n)":
        assert result in ("1 - 2**(-n)", "1 - 1/2**n")
    else:
        assert result == expected


def test_sign_analysis_finds_zeros_and_where_positive():
    out = compute({"operation": "sign", "expression": "x^2 - 3*x + 2"})
    assert out["zeros"] == "{1, 2}"
    assert out["negative_on"] == "Interval.open(1, 2)"
    assert out["sign_everywhere"] == "unknown"
    assert (
        compute({"operation": "sign", "expression": "x + 1/x", "variables": POSITIVE_X})["sign_everywhere"]
        == "positive"
    )


def test_sympy_check_says_holds_fails_or_unknown():
    assert compute({"operation": "check", "expression": "(a + b)^2 = a^2 + 2*a*b + b^2"})["verdict"] == "holds"
    assert compute({"operation": "check", "expression": "x + 1 = x"})["verdict"] == "fails"
    assert compute({"operation": "check", "expression": "x^2 + 1 > 0"})["verdict"] == "holds"
    assert compute({"operation": "check", "expression": "x^2 >= x"})["verdict"] == "unknown"


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('true')",
        "x.__class__",
        "x.real",
        "eval(x)",
        "open(x)",
        "lambda: 1",
        "[x for x in y]",
        "x; y",
    ],
)
def test_no_python_reaches_sympy(text):
    with pytest.raises(ClaimError):
        compute({"operation": "simplify", "expression": text})


def test_input_limits_and_bad_requests_are_refused():
    with pytest.raises(SymbolicError, match="limit"):
        compute({"operation": "simplify", "expression": "x+" * 1500 + "x"})
    with pytest.raises(SymbolicError, match="unknown operation"):
        compute({"operation": "exec", "expression": "x"})
    with pytest.raises(SymbolicError, match="order"):
        compute({"operation": "series", "expression": "exp(x)", "variable": "x", "order": 500})
    with pytest.raises(SymbolicError, match="variable"):
        compute({"operation": "diff", "expression": "x^2", "variable": "y"})


async def test_tool_answers_through_its_worker_and_reports_errors():
    registry = ToolRegistry()
    registry.register(SymbolicTool(timeout_s=30.0))
    text, is_error = await registry.call("symbolic", {"operation": "factor", "expression": "x^2 - 1"})
    assert not is_error and json.loads(text) == {"operation": "factor", "result": "(x - 1)*(x + 1)"}
    text, is_error = await registry.call("symbolic", {"operation": "simplify", "expression": "x.__class__"})
    assert is_error and "'__' is not allowed" in json.loads(text)["error"]
    text, is_error = await registry.call("symbolic", {"operation": "simplify", "expression": "x", "code": "1"})
    assert is_error and "unknown argument" in json.loads(text)["error"]


async def test_a_computation_past_its_deadline_is_killed_and_reported_as_timed_out():
    registry = ToolRegistry()
    registry.register(SymbolicTool(timeout_s=0.5))
    text, is_error = await registry.call(
        "symbolic", {"operation": "expand", "expression": "(a + b + c + d + f + g + h + k)^60"}
    )
    assert is_error
    message = json.loads(text)["error"]
    assert "timed out" in message and "nothing was computed" in message and "result" not in json.loads(text)
    # the next call gets a fresh worker and a real answer
    registry.register(SymbolicTool(timeout_s=30.0))
    text, is_error = await registry.call("symbolic", {"operation": "expand", "expression": "(a + b)^2"})
    assert not is_error and json.loads(text)["result"] == "a**2 + 2*a*b + b**2"


async def test_check_reports_each_checker_and_never_counts_as_verification():
    tool = SymbolicTool(timeout_s=30.0)
    out = await tool.call(operation="check", expression="log(1 + x) >= x", variables=POSITIVE_X)
    by_checker = {c["checker"]: c for c in out["checkers"]}
    assert by_checker["falsifier"]["verdict"] == "failed" and by_checker["falsifier"]["counterexample"]
    assert by_checker["sympy"]["verdict"] in ("unknown", "fails")
    assert "z3" in by_checker  # reported even when not installed (no_checker), never dropped
    assert out["counts_as_verification"] is False and "not a verification" in out["note"]
    true = await tool.call(operation="check", expression="log(1 + x) <= x", variables=POSITIVE_X)
    assert {c["checker"]: c["verdict"] for c in true["checkers"]}["falsifier"] == "passed"
    assert true["counts_as_verification"] is False


async def test_check_reaches_z3_when_installed():
    require_module("z3", "z3-solver is not installed (extra: smt)")
    out = await SymbolicTool(timeout_s=30.0).call(operation="check", expression="x^2 - 2*x + 1 >= 0")
    assert {c["checker"]: c["verdict"] for c in out["checkers"]}["z3"] == "passed"
    assert out["counts_as_verification"] is False


def test_roles_are_offered_the_tool_only_when_registered():
    registry = ToolRegistry()
    assert role_tool_names(registry, "prover") == []
    register_symbolic_tool(registry)
    for role in ("prover", "refiner", "verifier"):
        assert role_tool_names(registry, role) == ["symbolic"]
    assert role_tool_names(registry, "survey") == []
