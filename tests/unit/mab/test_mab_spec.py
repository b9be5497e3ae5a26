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
        ({"policies": [{"name": "ts_beta"}], "instances": [{"family": "gaussian", "means": [0.0, 1.0]}], "bounds": []},
         "needs bernoulli rewards"),
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
        MABExperimentSpec.model_validate({"instances": [{"family": "bernoulli"}], "policies": [{"name": "ucb1"}],
                                          "horizons": [100], "repetitions": 10})
    with pytest.raises(ValidationError, match="policies"):
        MABExperimentSpec.model_validate({"instances": [{"means": [0.1, 0.2]}], "policies": [{"name": "ucb99"}],
                                          "horizons": [100], "repetitions": 10})
    with pytest.raises(ValidationError, match="repetitions"):
        MABExperimentSpec.model_validate({"instances": [{"means": [0.1, 0.2]}], "policies": [{"name": "ucb1"}],
                                          "horizons": [100], "repetitions": 1})


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
