"""The checker registry (verify/registry.py): a checker is one module plus its entry point; it
shows in doctor, runs in run_mechanical_checks, its pass gives the level of its kind and its
name is the one readers see. Trust: only a registered smt/formal checker gives a level, a
built-in's name cannot be taken, a broken plugin is reported and never counted as a pass."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import example_checker as ex
import pytest
from rich.console import Console

from eurekaclaw.agents.theory.level import mechanical_decision
from eurekaclaw.agents.theory.mechanical import level_checker_names
from eurekaclaw.config import Settings, load_settings
from eurekaclaw.types.artifacts import CheckResult, Claim, ClaimVariable, LemmaNode
from eurekaclaw.verify import available_checkers, mechanical_level, refuted, registry, run_mechanical_checks
from eurekaclaw.verify.builtin import Z3
from eurekaclaw.verify.coq import COQ
from eurekaclaw.verify.lean import LEAN
from eurekaclaw.verify.limits import CheckLimits
from eurekaclaw.verify.portfolio import available_solvers
from eurekaclaw.verify.proof_assistant import ProofAssistant

SQUARE = Claim(variables=[ClaimVariable(name="x")], conclusion="x^2 >= 0")
FALSE = Claim(variables=[ClaimVariable(name="x")], conclusion="x^2 >= x")
FAST = load_settings(falsifier_budget_s=0.3, smt_timeout_s=5.0, formal_timeout_s=30.0)

Install = Callable[..., None]


def point(name: str, target: str) -> EntryPoint:
    return EntryPoint(name=name, value=f"example_checker:{target}", group=registry.ENTRY_POINT_GROUP)


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[Install]:
    """Installs fake third-party entry points beside the real (built-in) ones."""
    real = registry.entry_points

    def install(*points: EntryPoint, builtins: bool = True) -> None:
        def fake(*, group: str) -> list[EntryPoint]:
            return [*(real(group=group) if builtins else []), *points]

        monkeypatch.setattr(registry, "entry_points", fake)
        registry.reload()

    yield install
    registry.reload()  # the next test discovers the real entry points again


def test_the_builtins_register_through_the_entry_point_group() -> None:
    reg = registry.current()
    assert reg.problems == ()
    assert [(e.checker.name, e.builtin) for e in reg.entries] == [
        ("falsifier", True),
        ("z3", True),
        ("cvc5", True),
        ("coq", True),
        ("lean", True),
    ]
    assert registry.checker_names() == {
        "falsifier": "numeric falsifier",
        "z3": "Z3",
        "cvc5": "cvc5",
        "coq": "Coq",
        "lean": "Lean",
    }
    assert registry.names_of_kind("smt") == ("z3", "cvc5")  # z3 leads the portfolio
    assert registry.names_of_kind("formal") == ("coq", "lean")
    assert registry.names_of_kind("numeric") == ("falsifier",)
    assert registry.checker("z3") is Z3 and registry.checker("nope") is None
    # Coq and Lean are two instances of one proof-assistant class
    assert type(COQ) is type(LEAN) is ProofAssistant and registry.checker("coq") is COQ
    assert level_checker_names() == {"z3": "Z3", "coq": "Coq", "cvc5": "cvc5", "lean": "Lean"}


async def test_an_example_checker_is_one_module_plus_its_registration(
    plugins: Install, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugins(point("table", "TABLE_PROVER"), point("tablekernel", "TABLE_KERNEL"))
    # doctor lists it, with where it comes from
    info = {c.name: c for c in available_checkers()}
    assert info["table"].kind == "smt" and info["table"].available and info["table"].version == "1.0"
    assert info["table"].source == "example_checker:TABLE_PROVER" and not info["table"].problem
    from eurekaclaw.orchestrator import doctor

    monkeypatch.setattr(doctor, "_backend_summary", lambda settings: {"backend": "anthropic"})
    report = doctor.doctor_report()
    assert any(c["name"] == "tablekernel" and c["kind"] == "formal" for c in report["checkers"])
    buf = io.StringIO()
    Console(file=buf, width=400, color_system=None).print(doctor.render_doctor(report))
    row = next(line for line in buf.getvalue().splitlines() if "Table" not in line and " table " in line)
    assert "smt" in row and "available" in row and "[example_checker:TABLE_PROVER]" in row
    # the portfolio runs it after the built-in solvers, with the limits read from the settings
    assert available_solvers() == ("z3", "cvc5", "table")
    asked = len(ex.TABLE_PROVER.asked)
    checks = await run_mechanical_checks(SQUARE, settings=FAST, portfolio=False)
    assert len(ex.TABLE_PROVER.asked) == asked + 1
    assert ex.TABLE_PROVER.asked[-1] == ("x^2 >= 0", CheckLimits.from_settings(FAST))
    table = next(c for c in checks if c.checker == "table")
    assert table.verdict == "passed"
    only_table = [c for c in checks if c.checker in ("falsifier", "table")]
    assert mechanical_level(only_table) == "smt"  # its pass gives the level of its kind
    # a formal one checks the proof it is given, named as the formal system
    checks = await run_mechanical_checks(SQUARE, settings=FAST, formal_proof="by table", formal_system="tablekernel")
    assert next(c for c in checks if c.checker == "tablekernel").verdict == "passed"
    assert mechanical_level(checks) == "formal"
    # its display name is the one in the lemma's evidence text
    node = LemmaNode(id="L1", statement="x^2 >= 0", claim=SQUARE, statement_source="prose")
    decision = mechanical_decision(node, [c for c in checks if c.checker != "z3" and c.checker != "cvc5"])
    assert decision is not None and decision.level == "unverified"
    assert "claim checked by Table Kernel" in decision.supporting[0]
    assert level_checker_names()["table"] == "Table Prover"


def test_only_a_registered_smt_or_formal_checker_gives_a_level(plugins: Install) -> None:
    plugins(point("optimist", "OPTIMIST"), point("table", "TABLE_PROVER"))

    def passed(name: str) -> CheckResult:
        return CheckResult(checker=name, verdict="passed")

    assert mechanical_level([passed("optimist")]) is None  # a numeric checker: evidence only
    assert mechanical_level([passed("unregistered")]) is None  # a name nothing registered
    assert mechanical_level([passed("table")]) == "smt"
    plugins()  # uninstalled: its old "passed" is worth nothing any more
    assert mechanical_level([passed("table")]) is None


async def test_a_builtin_name_cannot_be_taken(plugins: Install) -> None:
    plugins(point("z3", "FAKE_Z3"), point("review", "FAKE_REVIEW"))
    assert registry.checker("z3") is Z3  # the built-in wins
    assert registry.checker("llm_review") is None
    problems = {p.source: p.detail for p in registry.problems()}
    assert "taken by the built-in checker" in problems["example_checker:FAKE_Z3"]
    assert "a name EurekaClaw writes itself" in problems["example_checker:FAKE_REVIEW"]
    rows = [c for c in available_checkers() if c.problem]
    assert {r.source for r in rows} == {"example_checker:FAKE_Z3", "example_checker:FAKE_REVIEW"}
    assert all(not r.available for r in rows)
    checks = await run_mechanical_checks(FALSE, settings=FAST)
    assert refuted(checks) is not None and mechanical_level(checks) is None  # the fake never ran


async def test_a_broken_plugin_is_reported_and_never_counted(plugins: Install, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = EntryPoint(name="gone", value="example_checker_missing:X", group=registry.ENTRY_POINT_GROUP)
    plugins(broken, point("boom", "Exploding"), point("odd", "NOT_A_CHECKER"), point("crasher", "CRASHER"))
    problems = {p.name: p.detail for p in registry.problems()}
    assert "ModuleNotFoundError" in problems["gone"]
    assert "cannot find my solver binary" in problems["boom"]
    assert "is not a Checker" in problems["odd"]
    from eurekaclaw.orchestrator import doctor

    monkeypatch.setattr(doctor, "_backend_summary", lambda settings: {"backend": "anthropic"})
    shown = {c["name"]: c for c in doctor.doctor_report()["checkers"]}
    assert shown["gone"]["problem"] and "not loaded" in shown["gone"]["detail"]
    checks = await run_mechanical_checks(SQUARE, settings=FAST, portfolio=False)
    crash = next(c for c in checks if c.checker == "crasher")
    assert crash.verdict == "error" and "the plugin has a bug" in crash.detail
    assert {c.checker for c in checks} >= {"falsifier", "z3", "crasher"}


async def test_a_checker_cannot_answer_under_another_name(plugins: Install) -> None:
    plugins(point("impostor", "IMPOSTOR"))
    checks = await run_mechanical_checks(FALSE, settings=FAST, portfolio=False)
    impostor = next(c for c in checks if c.checker == "impostor")
    assert impostor.verdict == "error" and "answered as 'coq'" in impostor.detail
    assert not any(c.checker == "coq" for c in checks)


async def test_a_third_party_counterexample_counts_only_once_confirmed(plugins: Install) -> None:
    plugins(point("liar", "LIAR"), point("honest", "HONEST"), builtins=False)
    checks = await run_mechanical_checks(FALSE, settings=FAST)
    by = {c.checker: c for c in checks}
    assert by["liar"].verdict == "unknown" and by["liar"].counterexample is None
    assert "not confirmed by the exact re-check" in by["liar"].detail
    assert refuted(checks) is by["honest"] and by["honest"].counterexample == {"x": 0.5}


async def test_without_the_builtins_every_check_says_so(plugins: Install) -> None:
    plugins(builtins=False)
    (problem,) = registry.problems()
    assert "pip install -e ." in problem.detail
    checks = await run_mechanical_checks(SQUARE, settings=FAST)
    assert [(c.checker, c.verdict) for c in checks] == [("mechanical", "error")]
    assert mechanical_level(checks) is None


def test_limits_come_from_the_settings_once() -> None:
    defaults = CheckLimits()
    fields = Settings.model_fields
    assert defaults.falsifier_budget_s == fields["falsifier_budget_s"].default
    assert defaults.smt_timeout_s == fields["smt_timeout_s"].default
    assert defaults.formal_timeout_s == fields["formal_timeout_s"].default
    assert CheckLimits.from_settings(None) == defaults
    settings = load_settings(falsifier_budget_s=0.5, smt_timeout_s=3.0, formal_timeout_s=9.0, lean_project_dir="~/lean")
    limits = CheckLimits.from_settings(settings)
    assert (limits.falsifier_budget_s, limits.smt_timeout_s, limits.formal_timeout_s) == (0.5, 3.0, 9.0)
    assert limits.lean_project_dir == Path("~/lean").expanduser()
    with pytest.raises(AttributeError):
        limits.smt_timeout_s = 1.0  # type: ignore[misc]
