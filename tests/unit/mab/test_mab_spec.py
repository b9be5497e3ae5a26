"""The declarative experiment spec: validation and the backend's simulation report."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from domains.mab.experiment import MABExperimentBackend
from domains.mab.simulator import simulate
from domains.mab.spec import MABExperimentSpec, check_spec, default_spec, work_units
from eurekaclaw.agents.experiment.report import SimulationReport


def spec(**over):
    base = {
        "instances": [{"name": "a", "family": "bernoulli", "means": [0.9, 0.8, 0.7]}],
        "policies": [{"name": "ucb1"}],
        "horizons": [100, 1000],
        "repetitions": 20,
        "bounds": [{"name": "auer", "known": "ucb1_auer2002"}],
    }
    base.update(over)
    return MABExperimentSpec.model_validate(base).normalised()


def test_valid_spec_passes_and_known_bounds_resolve():
    s = spec()
    assert check_spec(s) == []
    b = s.bounds[0]
    assert b.expression.startswith("8*log(T)") and b.direction == "upper" and b.rate == "log" and b.policies == ["ucb1"]


def test_oversized_spec_is_rejected_with_the_numbers():
    big = spec(repetitions=10_000, horizons=[10_000_000], instances=[{"means": [0.5] * 1000}])
    errors = check_spec(big)
    assert any(e.startswith("spec too large") and "reduce repetitions" in e for e in errors)
    assert work_units(big) > 1e9


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"horizons": [5]}, "each must lie in [10,"),
        (
            {
                "policies": [{"name": "ts_beta"}],
                "instances": [{"family": "gaussian", "means": [0.0, 1.0]}],
                "bounds": [],
            },
            "needs bernoulli rewards",
        ),
        ({"instances": [{"means": [0.5, 1.2]}], "bounds": []}, "bernoulli means must lie in [0, 1]"),
        ({"bounds": [{"name": "x", "known": "nonsense"}]}, "unknown known bound"),
        ({"bounds": [{"name": "x"}]}, "give `known`"),
        ({"bounds": [{"name": "x", "expression": "T", "policies": ["moss"]}]}, "not in the spec"),
        ({"instances": [{"name": "a", "means": [0.5, 0.4]}, {"name": "a", "means": [0.5, 0.3]}]}, "must be distinct"),
    ],
)
def test_semantic_problems_are_reported(over, message):
    errors = check_spec(spec(**over))
    assert any(message in e for e in errors), errors


def test_malformed_specs_fail_schema_validation():
    with pytest.raises(ValidationError, match="means"):
        MABExperimentSpec.model_validate(
            {
                "instances": [{"family": "bernoulli"}],
                "policies": [{"name": "ucb1"}],
                "horizons": [100],
                "repetitions": 10,
            }
        )
    with pytest.raises(ValidationError, match="policies"):
        MABExperimentSpec.model_validate(
            {
                "instances": [{"means": [0.1, 0.2]}],
                "policies": [{"name": "ucb99"}],
                "horizons": [100],
                "repetitions": 10,
            }
        )
    with pytest.raises(ValidationError, match="repetitions"):
        MABExperimentSpec.model_validate(
            {"instances": [{"means": [0.1, 0.2]}], "policies": [{"name": "ucb1"}], "horizons": [100], "repetitions": 1}
        )


def test_backend_report_validates_and_covers_every_horizon():
    backend = MABExperimentBackend()
    s = spec(policies=[{"name": "ucb1"}, {"name": "moss"}, {"name": "ucb1", "params": {}}], horizons=[50, 200, 400])
    report = SimulationReport.model_validate(backend.run(s))
    names = [x.name for x in report.series]
    assert names == ["ucb1", "moss", "ucb1#2"]
    for series in report.series:
        assert [p.horizon for p in series.points] == [50, 200, 400]
        assert series.t[-1] == 400
    # MOSS depends on the horizon: each horizon is its own run, not a point read off one curve.
    moss = report.series_named("moss")
    alone = simulate("bernoulli", [0.9, 0.8, 0.7], "moss", 50, 20, seed=0)
    assert moss.points[0].mean == pytest.approx(alone.at(50)["mean"])
    assert report.bounds[0].series == ["ucb1", "ucb1#2"]
    assert report.variables["a"]["sum_inv_gap"] == pytest.approx(1 / 0.1 + 1 / 0.2)


def test_backend_refuses_invalid_specs_and_defaults_are_valid():
    backend = MABExperimentBackend()
    with pytest.raises(ValueError, match="horizons"):
        backend.run(spec(horizons=[1]))
    assert check_spec(default_spec()) == []
    assert work_units(default_spec()) < 5e7


def test_piecewise_instances_and_new_outputs_reach_the_report():
    backend = MABExperimentBackend()
    s = spec(
        instances=[{"name": "shift", "means": [0.8, 0.5, 0.2], "changes": [{"t": 150, "means": [0.2, 0.5, 0.8]}]}],
        policies=[{"name": "sw_ucb"}, {"name": "exp3"}, {"name": "etc", "params": {"m": 200}}],
        horizons=[100, 300],
        bounds=[{"name": "exp3", "known": "exp3_minimax"}],
    )
    assert check_spec(s) == []
    raw = backend.run(s)
    report = SimulationReport.model_validate(raw)
    assert report.variables["shift"]["n_changes"] == 1.0
    assert any("piecewise-stationary" in n for n in report.notes)
    assert any(n.startswith("etc: etc explores") for n in report.notes)  # the ETC warning reaches the notes
    sw = raw["series"][0]
    for key in ("lower", "upper", "realised_mean", "realised_stderr", "best_arm_rate_mean", "best_arm_rate_stderr"):
        assert len(sw[key]) == len(sw["t"])
    assert {"realised_mean", "best_arm_rate_mean", "lower"} <= set(sw["points"][0])
    assert report.bounds[0].series == ["exp3"]
    # a horizon-dependent policy gets each horizon's own run, with the change only when it fits
    assert [p.horizon for p in report.series_named("sw_ucb").points] == [100, 300]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ([{"t": 50, "means": [0.5, 0.4]}], "2 means for 3 arms"),
        ([{"t": 50, "means": [0.5, 0.4, 1.4]}], "bernoulli means must lie in [0, 1]"),
        ([{"t": 60, "means": [0.5, 0.4, 0.3]}, {"t": 50, "means": [0.5, 0.4, 0.3]}], "must increase"),
        ([{"t": 5000, "means": [0.5, 0.4, 0.3]}], "after the largest horizon"),
    ],
)
def test_bad_changes_are_reported(changes, message):
    s = spec(instances=[{"name": "a", "means": [0.9, 0.8, 0.7], "changes": changes}])
    assert any(message in e for e in check_spec(s)), check_spec(s)


def test_new_families_in_specs():
    s = spec(
        instances=[
            {"name": "e", "family": "exponential", "means": [1.0, 2.0]},
            {"name": "p", "family": "poisson", "means": [1.0, 2000.0]},
        ],
        policies=[{"name": "imed"}, {"name": "kl_ucb_exp"}],
        bounds=[],
    )
    errors = check_spec(s)
    assert any("poisson means must lie in (0, 1000]" in e for e in errors)
    assert any(e.startswith("policy kl_ucb_exp needs exponential rewards") and "not poisson" in e for e in errors)
