"""The writer sees every result once: all policies, the figure's panels, each bound check once,
every rate fit (failed ones with why), violations and claim violation rates."""

from __future__ import annotations

import writer_helpers as wh

from eurekaclaw.agents.writer.bibtex import plan_citations
from eurekaclaw.agents.writer.experiments import experiment_view
from eurekaclaw.agents.writer.prose import prose_prompt
from eurekaclaw.agents.writer.results_brief import experiment_brief
from eurekaclaw.types.artifacts import ProofPlan


def _result():
    result = wh.experiment()
    result.bound_checks.append(result.bound_checks[0].model_copy())  # the same check twice
    result.rate_fits = [
        {
            "bound": "ucb1_log_T",
            "series": "UCB1",
            "claimed_rate": "log",
            "observed_rate": "sqrt",
            "consistent": False,
            "slope_ratio": 3.5,
        },
        {
            "bound": "ucb1_gap_free",
            "series": "epsilon_greedy",
            "claimed_rate": "sqrt",
            "observed_rate": "sqrt",
            "consistent": True,
            "slope_ratio": 0.4,
        },
    ]
    result.violations = ["ucb1_log_T at T=10000: 2036 > 40"]
    result.claim_violation_rates = {"L2": 0.0}
    return result


def test_every_result_appears_once() -> None:
    result = _result()
    text = experiment_brief(experiment_view(result, wh.FIXTURES), result)
    assert "UCB1: cumulative regret 2036" in text and "epsilon_greedy: cumulative regret" in text
    assert "panel 1" in text and "log-scaled horizon" in text
    assert text.count("ucb1_gap_free (the domain's default bound) at T=10000") == 1
    assert "rate of ucb1_log_T on UCB1: claimed log, observed sqrt: NOT consistent" in text
    assert "the data grow like sqrt, not log" in text and "3.5 times" in text
    assert "rate of ucb1_gap_free on epsilon_greedy: claimed sqrt, observed sqrt: consistent" in text
    assert "violations of the theorem's bounds:" in text and "2036 > 40" in text
    assert "- L2: 0" in text


def test_the_prompt_carries_the_brief_and_a_plan_without_repeats() -> None:
    result = _result()
    state = wh.theory()
    state.proof_plan = [ProofPlan(id=f"p{i}", description=state.informal_statement) for i in range(8)]
    state.proof_plan += [
        ProofPlan(id="a", description="Bound each pull count."),
        ProofPlan(id="b", description="Bound  each pull count."),
    ]
    prompt = prose_prompt(state, plan_citations(wh.bibliography()), experiment_view(result, wh.FIXTURES), None, result)
    assert "NOT consistent" in prompt and "epsilon_greedy" in prompt
    plan_part = prompt.split("<proof_plan>")[1].split("</proof_plan>")[0]
    assert plan_part.count("Bound each pull count.") == 1
    assert state.informal_statement not in plan_part
