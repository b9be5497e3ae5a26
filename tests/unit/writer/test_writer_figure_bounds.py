"""A bound belongs to the policy it was derived for: in the paper's regret figure it is dashed
only in panels that show one of its policies, in that policy's colour, and the caption names
each bound with its policies. The data come from a real (small) MAB experiment through the
Experiment stage's own checks and CSV, so the names are the ones a session writes."""

from __future__ import annotations

import re
from pathlib import Path

import writer_helpers as wh

from domains.mab.experiment import MABExperimentBackend
from domains.mab.spec import BoundSpec, InstanceSpec, MABExperimentSpec, PolicySpec
from eurekaclaw.agents.experiment.checks import run_checks
from eurekaclaw.agents.experiment.expr import compile_expression
from eurekaclaw.agents.experiment.report import SimulationReport, csv_rows, render_csv
from eurekaclaw.agents.experiment.violations import checked_metadata
from eurekaclaw.agents.writer.bibtex import plan_citations
from eurekaclaw.agents.writer.doc import build_doc
from eurekaclaw.agents.writer.experiments import REGRET, experiment_view
from eurekaclaw.agents.writer.render import render_tex
from eurekaclaw.types.artifacts import ExperimentResult

UCB, KL = "ucb1_auer2002", "klucb_asymptotic"


def _result(tmp_path: Path) -> ExperimentResult:
    """UCB1, Thompson and KL-UCB on one instance with the UCB1 bound and the KL-UCB bound. Each
    policy also draws its realised regret, so the panels (at most five curves) are UCB1 with
    Thompson, then KL-UCB alone."""
    spec = MABExperimentSpec(
        instances=[InstanceSpec(name="level1", means=[0.9, 0.8, 0.7])],
        policies=[PolicySpec(name="ucb1"), PolicySpec(name="ts_beta"), PolicySpec(name="kl_ucb")],
        horizons=[100, 1000],
        repetitions=4,
        bounds=[BoundSpec(name=UCB, known=UCB), BoundSpec(name=KL, known=KL, policies=["kl_ucb"])],
    )
    raw = MABExperimentBackend().run(spec)
    report = SimulationReport.model_validate(raw)
    names = {"T"} | {k for s in report.series for k in report.variables_for(s)}
    found = run_checks(report, {b.name: compile_expression(b.expression, names, relation=False) for b in report.bounds})
    (tmp_path / "regret_curves.csv").write_text(render_csv(csv_rows(report, found["curves"])))
    return ExperimentResult(
        status="completed",
        domain="mab",
        plot_csv="regret_curves.csv",
        spec={**raw["spec"], "checked": checked_metadata(report)},
        bound_checks=found["bound_checks"],
        rate_fits=found["rate_fits"],
    )


def _regret_panels(result: ExperimentResult, tmp_path: Path) -> dict[str, list[str]]:
    """Each regret panel as {its first policy: the bounds drawn in it}."""
    view = experiment_view(result, tmp_path)
    assert view is not None
    out = {}
    for panel in (p for p in view.panels() if p.metric == REGRET):
        policies = [s.name for s in panel.series if not s.is_bound]
        out[policies[0]] = [s.short_label for s in panel.series if s.is_bound]
    return out


def test_each_bound_is_drawn_only_in_the_panel_of_its_policy(tmp_path: Path) -> None:
    panels = _regret_panels(_result(tmp_path), tmp_path)
    assert panels == {"ucb1": [f"{UCB} (bound)"], "kl_ucb": [f"{KL} (bound)"]}


def test_the_paper_draws_the_bound_in_its_policys_colour_and_names_it(tmp_path: Path) -> None:
    view = experiment_view(_result(tmp_path), tmp_path)
    assert view is not None
    tex, _ = render_tex(build_doc(wh.theory(), plan_citations(wh.bibliography()), view, dict(wh.GOOD_PROSE)))
    regret_fig = tex.split("\\label{fig:experiment}")[0]
    axes = [a.split("\\end{axis}", 1)[0] for a in regret_fig.split("\\begin{axis}")[1:]]
    kl_axis = next(a for a in axes if "\\addlegendentry{kl\\_ucb}" in a)
    assert "ucb1\\_auer2002" not in kl_axis  # the UCB1 bound is not the KL-UCB's
    kl_colour = re.search(r"\\addplot\[color=([^,]+), thick, mark=none\]", kl_axis)
    assert kl_colour and f"\\addplot[color={kl_colour.group(1)}, thick, mark=none, dashed]" in kl_axis
    caption = regret_fig.rsplit("\\caption{", 1)[1]
    caption = " ".join(caption.split())
    assert (
        "ucb1\\_auer2002 (upper bound, for ucb1) and klucb\\_asymptotic (asymptotic upper bound, for kl\\_ucb)"
        in caption
    )


def test_older_results_link_bounds_through_their_checks_fits_and_spec(tmp_path: Path) -> None:
    """Before spec["checked"] recorded each bound's series, the checks ("<bound>@<series>"),
    the rate fits and the MAB spec's policies say the same."""
    result = _result(tmp_path)
    for meta in result.spec["checked"]["bounds"].values():
        del meta["series"]
    assert _regret_panels(result, tmp_path) == {"ucb1": [f"{UCB} (bound)"], "kl_ucb": [f"{KL} (bound)"]}
    result.rate_fits = [f for f in result.rate_fits if f["bound"] != KL]  # the spec alone names kl_ucb
    assert _regret_panels(result, tmp_path)["kl_ucb"] == [f"{KL} (bound)"]


def test_a_bound_tied_to_no_series_is_for_every_policy(tmp_path: Path) -> None:
    result = _result(tmp_path)
    del result.spec["checked"]["bounds"][KL]
    result.rate_fits = [f for f in result.rate_fits if f["bound"] != KL]
    result.spec["bounds"] = [b for b in result.spec["bounds"] if b["name"] != KL]
    assert _regret_panels(result, tmp_path) == {
        "ucb1": [f"{UCB} (bound)", f"{KL} (bound)"],
        "kl_ucb": [f"{KL} (bound)"],
    }
    view = experiment_view(result, tmp_path)
    assert view is not None
    tex, _ = render_tex(build_doc(wh.theory(), plan_citations(wh.bibliography()), view, dict(wh.GOOD_PROSE)))
    # its record is gone, so whether it bounds from above or below is not claimed
    assert "klucb\\_asymptotic (bound, for every policy)" in " ".join(tex.split())
