"""The Experiment stage end to end with the scripted LLM."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from toolreq import tools_required

from domains.mab import MABPlugin
from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.experiment import ExperimentStage
from eurekaclaw.agents.experiment.designer import ExperimentDesigner
from eurekaclaw.config import load_settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.memory.episodic import EpisodicMemory
from eurekaclaw.store.session import SessionDir
from eurekaclaw.tools.base import ToolRegistry
from eurekaclaw.tools.code_exec import detect_isolation
from eurekaclaw.types.artifacts import Claim, ClaimVariable, LemmaNode, TheoryState
from eurekaclaw.types.tasks import InputSpec

SPEC = {
    "rationale": "UCB1 and MOSS on a three-armed Bernoulli instance",
    "instances": [{"name": "easy", "family": "bernoulli", "means": [0.9, 0.8, 0.6]}],
    "policies": [{"name": "ucb1"}, {"name": "moss"}],
    "horizons": [200, 1000, 3000],
    "repetitions": 30,
    "seed": 3,
    "bounds": [
        {"name": "ucb1_auer2002", "known": "ucb1_auer2002"},
        {
            "name": "claimed",
            "expression": "8*log(T)*sum_inv_gap",
            "policies": ["ucb1"],
            "rate": "log",
            "lemma_id": "L2",
        },
        {"name": "lai_robbins", "known": "lai_robbins"},
    ],
}


def make_ctx(tmp_path: Path, backend: ScriptedBackend, *, plugin=None, domain="mab", events=None) -> AgentContext:
    session = tmp_path / "s1"
    session.mkdir()
    return AgentContext(
        session_id="s1",
        settings=load_settings(),
        bus=KnowledgeBus("s1", session),
        llm=SessionLLM(backend, UsageLedger(None)),
        tools=ToolRegistry(),
        episodic=EpisodicMemory("s1"),
        session=SessionDir(session),
        domain=domain,
        plugin=plugin,
        events=events or (lambda kind, **data: None),
    )


def theory(claims: bool = False) -> TheoryState:
    claim = (
        Claim(variables=[ClaimVariable(name="n", domain="natural", low=1)], conclusion="log(n + 1) <= n")
        if claims
        else None
    )
    return TheoryState(
        informal_statement="UCB1 has regret at most 8 ln T sum 1/Delta_i + const",
        lemma_dag={
            "L1": LemmaNode(id="L1", statement="concentration", claim=claim),
            "L2": LemmaNode(id="L2", statement="pull count bound", is_root=True),
        },
    )


def designer(*replies) -> ScriptedBackend:
    return ScriptedBackend(
        rules=[{"role": "experiment_designer", "output": "MABExperimentSpec", "replies": list(replies)}]
    )


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


async def test_designed_spec_runs_and_results_are_consistent(tmp_path):
    events = []
    llm = designer(SPEC)
    ctx = make_ctx(tmp_path, llm, plugin=MABPlugin(), events=lambda kind, **data: events.append((kind, data)))
    ctx.bus.put_theory_state(theory())
    outcome = await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    assert outcome.status == "completed"

    saved = json.loads((ctx.session.path / "experiment_result.json").read_text())
    assert saved["status"] == "completed" and saved["domain"] == "mab"
    assert saved["spec"]["source"] == "designer" and saved["spec"]["repetitions"] == 30
    assert saved["plot_csv"] == "regret_curves.csv"
    assert 0.0 <= saved["alignment_score"] <= 1.0
    assert "L2" in saved["claim_violation_rates"]
    checks = saved["bound_checks"]
    assert {(c["name"], c["horizon"]) for c in checks} >= {("ucb1_auer2002@ucb1", h) for h in (200, 1000, 3000)}
    assert all(c["held"] for c in checks if c["name"].startswith("ucb1_auer2002"))
    assert not any(c["name"].startswith("lai_robbins") for c in checks)  # asymptotic: a rate fit instead
    fits = {(f["bound"], f["series"]) for f in saved["rate_fits"]}
    assert ("lai_robbins", "moss") in fits and ("claimed", "ucb1") in fits

    rows = read_csv(ctx.session.path / "regret_curves.csv")
    assert list(rows[0]) == [
        "series",
        "t",
        "mean",
        "stderr",
        "q10",
        "q50",
        "q90",
        "realised_mean",
        "realised_stderr",
        "best_arm_rate_mean",
        "best_arm_rate_stderr",
    ]
    by_series = {}
    for r in rows:
        by_series.setdefault(r["series"], {})[int(r["t"])] = r
    assert {"ucb1", "moss", "bound:ucb1_auer2002", "bound:claimed", "bound:lai_robbins"} <= set(by_series)
    for c in checks:
        if c["name"] == "ucb1_auer2002@ucb1":
            assert float(by_series["ucb1"][c["horizon"]]["mean"]) == pytest.approx(c["empirical_mean"])
            row = by_series["bound:ucb1_auer2002"][c["horizon"]]
            assert float(row["mean"]) == pytest.approx(c["theoretical"]) and float(row["stderr"]) == 0.0
            assert row["realised_mean"] == row["best_arm_rate_mean"] == ""  # a bound has neither
    # Policies report realised regret and best-arm rate with their standard errors, per time.
    ucb = by_series["ucb1"]
    last = ucb[max(ucb)]
    assert 0.0 < float(last["best_arm_rate_mean"]) <= 1.0 and float(last["best_arm_rate_stderr"]) > 0.0
    assert float(last["realised_stderr"]) > 0.0
    # realised and pseudo-regret have the same expectation: they agree within a few standard errors
    gap = abs(float(last["realised_mean"]) - float(last["mean"]))
    assert gap < 4.0 * (float(last["realised_stderr"]) + float(last["stderr"]))
    assert any(n.startswith("ucb1 at t=") and "best-arm rate" in n and "realised regret" in n for n in saved["notes"])
    assert [k for k, _ in events].count("experiment") >= 4
    assert llm.calls[0].role == "experiment_designer"


async def test_malformed_spec_falls_back_to_the_default(tmp_path):
    llm = designer({"instances": "nope"}, {"still": "wrong"})
    ctx = make_ctx(tmp_path, llm, plugin=MABPlugin())
    ctx.bus.put_theory_state(theory())
    outcome = await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    result = ctx.bus.get_experiment_result()
    assert outcome.status == "completed" and result.status == "completed"
    assert outcome.summary.startswith("default spec, not this theorem's bounds")
    assert result.spec["source"] == "default" and result.spec["instances"][0]["name"] == "level1"
    assert any("default spec used" in n and "schema" in n for n in result.notes)
    assert len(llm.calls) == 2  # the reply and its one schema repair
    assert (ctx.session.path / "regret_curves.csv").exists()
    assert any(c.name == "ucb1_auer2002@ucb1" and c.horizon == 10_000 for c in result.bound_checks)


async def test_oversized_spec_gets_one_repair_with_the_error(tmp_path):
    huge = {**SPEC, "repetitions": 10_000, "horizons": [10_000_000]}
    llm = designer(huge, SPEC)
    ctx = make_ctx(tmp_path, llm, plugin=MABPlugin())
    ctx.bus.put_theory_state(theory())
    await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    result = ctx.bus.get_experiment_result()
    assert result.spec["source"] == "repaired" and result.spec["repetitions"] == 30
    assert "spec too large" in llm.calls[1].prompt_text()


async def test_experiment_mode_false_skips_with_a_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPERIMENT_MODE", "false")
    llm = designer(SPEC)
    ctx = make_ctx(tmp_path, llm, plugin=MABPlugin())
    ctx.bus.put_theory_state(theory(claims=True))
    outcome = await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    assert outcome.status == "skipped" and "EXPERIMENT_MODE=false" in outcome.reason
    saved = json.loads((ctx.session.path / "experiment_result.json").read_text())
    assert saved["status"] == "skipped" and "EXPERIMENT_MODE=false" in saved["reason"]
    assert llm.calls == [] and not (ctx.session.path / "regret_curves.csv").exists()


async def test_auto_mode_without_simulator_or_claims_is_skipped(tmp_path):
    ctx = make_ctx(tmp_path, designer(SPEC), plugin=None, domain="general")
    ctx.bus.put_theory_state(theory(claims=False))
    outcome = await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    assert outcome.status == "skipped" and "no lemma has a machine-checkable claim" in outcome.reason


def test_missing_theory_state_is_reported(tmp_path):
    ctx = make_ctx(tmp_path, designer(SPEC), plugin=MABPlugin())
    assert "no formalized theorem" in ExperimentStage().missing_inputs(ctx, InputSpec(mode="prove", statement="x"))


def test_unformalized_theorem_is_not_simulated(tmp_path):
    from eurekaclaw.types.artifacts import TheoryState

    ctx = make_ctx(tmp_path, designer(SPEC), plugin=MABPlugin())
    ctx.bus.put_theory_state(TheoryState(informal_statement="UCB1 regret", status="pending"))
    assert "no formalized theorem" in ExperimentStage().missing_inputs(ctx, InputSpec(mode="prove", statement="x"))


async def test_resume_keeps_a_completed_result(tmp_path):
    llm = designer(SPEC)
    ctx = make_ctx(tmp_path, llm, plugin=MABPlugin())
    ctx.bus.put_theory_state(theory())
    await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    calls = len(llm.calls)
    outcome = await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"), resume=True)
    assert outcome.status == "completed" and len(llm.calls) == calls


def code_designer(reply: dict) -> ScriptedBackend:
    return ScriptedBackend(rules=[{"role": "experiment_designer", "output": "CodeExperiment", "reply": reply}])


def require_isolation() -> None:
    if detect_isolation() == "none":
        message = "no sandbox isolation (network namespace) available here"
        if tools_required():
            pytest.fail(f"required tool missing: {message}")
        pytest.skip(message)


async def test_general_domain_samples_lemma_claims(tmp_path):
    reply = {"rationale": "nothing numerical beyond the lemma claims", "code": ""}
    ctx = make_ctx(tmp_path, code_designer(reply), plugin=None, domain="general")
    ctx.bus.put_theory_state(theory(claims=True))
    outcome = await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    result = ctx.bus.get_experiment_result()
    assert outcome.status == "completed" and result.claim_violation_rates == {"L1": 0.0}
    assert result.alignment_score == 1.0
    assert any(n.startswith("lemma L1: claim sampled") for n in result.notes)
    if detect_isolation() == "none":
        assert any("not run" in n for n in result.notes)
    else:
        assert any("no code experiment" in n for n in result.notes)


async def test_general_domain_runs_model_code_in_the_sandbox(tmp_path):
    require_isolation()
    code = (
        "import json, math\n"
        "t = [10, 100, 1000, 10000]\n"
        "print(json.dumps({'series': [{'name': 'sum', 't': t, 'mean': [2*math.log(x) for x in t], 'stderr': [0.0]*4}]}))\n"
    )
    reply = {
        "rationale": "r",
        "code": code,
        "variables": {"c": 3.0},
        "bounds": [{"name": "clog", "expression": "c*log(T)", "rate": "log", "lemma_id": "L2"}],
    }
    ctx = make_ctx(tmp_path, code_designer(reply), plugin=None, domain="general")
    ctx.bus.put_theory_state(theory(claims=True))
    outcome = await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    result = ctx.bus.get_experiment_result()
    assert outcome.status == "completed" and result.spec["source"] == "code"
    assert [(c.name, c.horizon, c.held) for c in result.bound_checks] == [("clog@sum", 10000, True)]
    assert result.claim_violation_rates == {"L2": 0.0, "L1": 0.0}
    csv_text = (ctx.session.path / "regret_curves.csv").read_text()
    assert "\nsum,10000," in csv_text and "\nbound:clog,10000," in csv_text


async def test_failing_model_code_gets_one_repair(tmp_path):
    require_isolation()
    bad = {"rationale": "r", "code": "raise SystemExit('boom')"}
    llm = code_designer(bad)
    ctx = make_ctx(tmp_path, llm, plugin=None, domain="general")
    ctx.bus.put_theory_state(theory(claims=True))
    await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    result = ctx.bus.get_experiment_result()
    assert len(llm.calls) == 2 and "boom" in llm.calls[1].prompt_text()
    assert any("failed twice" in n for n in result.notes)
    assert result.status == "completed" and result.claim_violation_rates == {"L1": 0.0}


async def test_designer_reports_the_spec(tmp_path):
    plugin = MABPlugin()
    ctx = make_ctx(tmp_path, designer(SPEC), plugin=plugin)
    design = await ExperimentDesigner(ctx).design_spec(theory(), plugin.experiment_backend())
    assert design.source == "designer"
    assert design.spec.model_dump(mode="json")["instances"][0]["name"] == "easy"


FALSE_SPEC = {
    "rationale": "the claimed bound: UCB1 regret at most sum_i ln T / (100 Delta_i)",
    "instances": [{"name": "easy", "family": "bernoulli", "means": [0.9, 0.8, 0.6]}],
    "policies": [{"name": "ucb1"}],
    "horizons": [200, 1000, 3000],
    "repetitions": 30,
    "seed": 3,
    "bounds": [{"name": "thm", "expression": "log(T)*sum_inv_gap/100", "policies": ["ucb1"], "lemma_id": "L2"}],
}


async def test_a_violated_theorem_bound_is_reported_as_evidence(tmp_path):
    from eurekaclaw.agents.experiment.violations import worst_violation

    events = []
    ctx = make_ctx(tmp_path, designer(FALSE_SPEC), plugin=MABPlugin(), events=lambda kind, **data: events.append(data))
    ctx.bus.put_theory_state(theory())
    outcome = await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    result = ctx.bus.get_experiment_result()
    assert outcome.status == "completed" and outcome.summary.startswith(
        "1 theorem bound violated; 0/3 bound checks held"
    )
    assert all(c.from_theorem and not c.held for c in result.bound_checks)
    [line] = result.violations
    assert line.startswith("bound thm@ucb1 on instance easy at T=3000: measured ")
    assert "99% one-sided lower limit" in line and line.endswith("violated at 3/3 horizons; tests lemma L2")
    worst = worst_violation(result)
    assert worst["bound"] == "thm" and worst["horizon"] == 3000 and worst["lemma_id"] == "L2"
    assert worst["empirical_mean"] > worst["confidence_limit"] > worst["theoretical"]
    assert worst["assignment"]["K"] == 3 and worst["assignment"]["T"] == 3000
    assert worst["assignment"]["means"] == [0.9, 0.8, 0.6] and worst["assignment"]["gaps"] == pytest.approx(
        [0.0, 0.1, 0.3]
    )
    assert worst["assignment"]["sum_inv_gap"] == pytest.approx(1 / 0.1 + 1 / 0.3)
    done = next(e for e in events if e.get("phase") == "done")
    assert done["violations"] == 1 and any(e.get("phase") == "violation" and e["detail"] == line for e in events)
    saved = json.loads((ctx.session.path / "experiment_result.json").read_text())
    assert saved["violations"] == [line] and saved["bound_checks"][0]["from_theorem"] is True
    assert worst_violation(type(result).model_validate(saved)) == worst  # works from the stored result alone


async def test_checks_of_the_default_spec_are_not_evidence_about_the_theorem(tmp_path):
    ctx = make_ctx(tmp_path, designer({"instances": "nope"}, {"still": "wrong"}), plugin=MABPlugin())
    ctx.bus.put_theory_state(theory())
    await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    result = ctx.bus.get_experiment_result()
    assert result.spec["source"] == "default" and result.bound_checks
    assert not any(c.from_theorem for c in result.bound_checks) and result.violations == []
    assert result.alignment_score is None  # no theorem bound and no lemma claim was tested


async def test_designed_spec_that_holds_reports_no_violation(tmp_path):
    ctx = make_ctx(tmp_path, designer(SPEC), plugin=MABPlugin())
    ctx.bus.put_theory_state(theory())
    outcome = await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    result = ctx.bus.get_experiment_result()
    assert result.violations == [] and "violated" not in outcome.summary
    # the theorem's own bound is evidence; the literature bounds named only for comparison are not
    by_bound = {c.name.split("@")[0]: c.from_theorem for c in result.bound_checks}
    assert by_bound["claimed"] is True
    assert by_bound.get("ucb1_auer2002") is False


async def test_a_sampled_identity_is_not_reported_with_violations(tmp_path):
    identity = Claim(
        variables=[ClaimVariable(name="a", domain="positive"), ClaimVariable(name="b", domain="positive")],
        conclusion="log(a*b) == log(a) + log(b)",
    )
    reply = {"rationale": "nothing numerical beyond the lemma claims", "code": ""}
    ctx = make_ctx(tmp_path, code_designer(reply), plugin=None, domain="general")
    ctx.bus.put_theory_state(
        TheoryState(
            informal_statement="log is a homomorphism",
            lemma_dag={"L1": LemmaNode(id="L1", statement="log(ab)", claim=identity)},
        )
    )
    await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    result = ctx.bus.get_experiment_result()
    assert result.claim_violation_rates == {"L1": 0.0} and result.alignment_score == 1.0
    [note] = [n for n in result.notes if n.startswith("lemma L1")]
    assert note == "lemma L1: claim sampled, no violation in 4000 samples satisfying the assumptions"


async def test_the_record_names_each_known_bounds_source_and_keeps_the_diagnostics(tmp_path):
    """The paper names where a known bound comes from (Lai-Robbins is a lower bound from 1985);
    the designer's diagnostics stay in the record's notes (the paper never shows them)."""
    llm = designer({"instances": "nope"}, {"still": "wrong"})
    ctx = make_ctx(tmp_path, llm, plugin=MABPlugin())
    ctx.bus.put_theory_state(theory())
    await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    result = ctx.bus.get_experiment_result()
    assert result.spec["bound_sources"]["lai_robbins"].startswith("Lai & Robbins (1985)")
    assert result.spec["bound_sources"]["ucb1_auer2002"].startswith("Auer, Cesa-Bianchi & Fischer (2002)")
    assert any(n.startswith("default spec used") for n in result.notes)
