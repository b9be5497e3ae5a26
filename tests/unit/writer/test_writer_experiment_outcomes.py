"""Realised regret and best-arm rate in the paper's figures: read from the CSV's optional columns;
realised regret drawn beside its policy's pseudo-regret curve with its own ± s.e. band, never for
a bound; the best-arm rate in a figure of its own, one panel per instance with its own y label."""

from __future__ import annotations

import re
from pathlib import Path

import writer_helpers as wh

from eurekaclaw.agents.writer.bibtex import plan_citations
from eurekaclaw.agents.writer.doc import build_doc
from eurekaclaw.agents.writer.experiments import (
    BEST_ARM,
    BEST_ARM_LABEL,
    MAX_SERIES_PER_PANEL,
    REGRET,
    ExperimentView,
    experiment_view,
    read_plot_csv,
)
from eurekaclaw.agents.writer.render import render_tex

HEADER = "series,t,mean,stderr,q10,q50,q90,realised_mean,realised_stderr,best_arm_rate_mean,best_arm_rate_stderr"


def _csv(tmp_path: Path, policies: int = 1) -> Path:
    rows = [HEADER]
    for k in range(policies):
        rows += [f"pol{k},{t},{t * 0.1},0.5,0,0,0,{t * 0.1 + 1},2.0,0.8,0.01" for t in (10, 100, 1000)]
    rows += [f"bound:b,{t},{t},0,{t},{t},{t},,,," for t in (10, 100, 1000)]
    rows += ["old,10,1.0,0.1,1,1,1,,,,", "old,100,2.0,0.1,2,2,2,nan,1,,"]  # no usable realised value
    path = tmp_path / "r.csv"
    path.write_text("\n".join(rows))
    return path


def test_realised_curves_come_from_the_optional_columns(tmp_path: Path) -> None:
    series, notes = read_plot_csv(_csv(tmp_path))
    assert notes == []
    by = {(s.name, s.realised): s for s in series if s.metric == REGRET}
    realised = by[("pol0", True)]
    assert realised.points == [(10.0, 2.0), (100.0, 11.0), (1000.0, 101.0)] and realised.stderr == [2.0] * 3
    assert by[("pol0", False)].points[-1] == (1000.0, 100.0)
    assert ("bound:b", True) not in by and ("old", True) not in by
    assert realised.short_label == "pol0 (realised)"


def test_realised_curve_is_drawn_with_its_band_next_to_its_policy(tmp_path: Path) -> None:
    _csv(tmp_path, policies=3)
    result = wh.experiment()
    result.plot_csv = "r.csv"
    view = experiment_view(result, tmp_path)
    assert view is not None
    panels = view.panels()
    for panel in panels:
        curves = [s for s in panel.series if not s.is_bound]
        assert len(curves) <= MAX_SERIES_PER_PANEL
        # a policy and its realised curve share a panel
        assert {s.name for s in curves if s.realised} <= {s.name for s in curves if not s.realised}
    assert sum(s.realised for p in panels for s in p.series) == 3
    tex, _ = render_tex(build_doc(wh.theory(), plan_citations(wh.bibliography()), view, dict(wh.GOOD_PROSE)))
    assert "\\addlegendentry{pol1 (realised)}" in tex
    # bands in the regret figure: three policies and their three realised curves ("old" has
    # stderr 0.1 too); the best-arm figure after it has three more
    regret_fig, rate_fig = tex.split("\\label{fig:experiment}")
    assert regret_fig.count("fill opacity=0.18") == 7
    assert rate_fig.count("fill opacity=0.18") == 3


def _axes(tex: str) -> list[dict[str, object]]:
    """Every pgfplots axis of the paper: its y label, title and legend entries."""
    out = []
    for body in tex.split("\\begin{axis}")[1:]:
        body = body.split("\\end{axis}", 1)[0]
        ylabel = re.search(r"ylabel=\{([^}]*)\}", body)
        title = re.search(r"title=\{([^}]*)\}", body)
        out.append(
            {
                "ylabel": ylabel.group(1) if ylabel else None,
                "title": title.group(1) if title else None,
                "legend": re.findall(r"\\addlegendentry\{([^}]*)\}", body),
                "options": body.split("]", 1)[0],
            }
        )
    return out


def _two_instance_csv(tmp_path: Path) -> None:
    rows = [HEADER]
    for inst in ("easy", "hard"):
        for k in range(2):
            rows += [f"pol{k}@{inst},{t},{t * 0.01},0.5,0,0,0,,,{0.5 + k * 0.1},0.02" for t in (1, 10, 100, 1000)]
        rows += [f"bound:b@{inst},{t},{t},0,{t},{t},{t},,,," for t in (1, 10, 100, 1000)]
    (tmp_path / "r.csv").write_text("\n".join(rows))


def _rendered(tmp_path: Path) -> tuple[ExperimentView, str]:
    """Two instances, two policies each with a best-arm rate, one bound: the view and the paper."""
    _two_instance_csv(tmp_path)
    result = wh.experiment()
    result.plot_csv = "r.csv"
    view = experiment_view(result, tmp_path)
    assert view is not None
    tex, _ = render_tex(build_doc(wh.theory(), plan_citations(wh.bibliography()), view, dict(wh.GOOD_PROSE)))
    return view, tex


def test_best_arm_rate_curves_are_read_for_policies_only(tmp_path: Path) -> None:
    series, _ = read_plot_csv(_csv(tmp_path))
    rates = {s.name: s for s in series if s.metric == BEST_ARM}
    assert set(rates) == {"pol0"}  # not the bound, not "old" (no value)
    assert rates["pol0"].points == [(10.0, 0.8), (100.0, 0.8), (1000.0, 0.8)] and rates["pol0"].stderr == [0.01] * 3


def test_best_arm_rate_gets_its_own_figure_one_panel_per_instance(tmp_path: Path) -> None:
    view, tex = _rendered(tmp_path)
    panels = view.panels()
    rate_panels = [p for p in panels if p.metric == BEST_ARM]
    assert [p.instance for p in rate_panels] == ["easy", "hard"]
    assert all(p.y_label == BEST_ARM_LABEL and len(p.series) == 2 for p in rate_panels)
    assert not any(s.is_bound for p in rate_panels for s in p.series)  # regret bounds do not belong here
    axes = _axes(tex)
    rate_axes = [a for a in axes if a["ylabel"] == BEST_ARM_LABEL]
    assert [a["title"] for a in rate_axes] == ["instance: easy", "instance: hard"]
    assert all(a["legend"] == ["pol0", "pol1"] for a in rate_axes)  # two series, no bound
    assert all("ymin=0, ymax=1" in str(a["options"]) and "xmode=log" in str(a["options"]) for a in rate_axes)
    assert [a["ylabel"] for a in axes if a not in rate_axes] == ["cumulative regret"] * 2
    assert "\\label{fig:best-arm-rate}" in tex
    caption = tex.split("\\label{fig:best-arm-rate}")[0].rsplit("\\caption{", 1)[1]
    assert caption.startswith("Best-arm rate (fraction of the pulls up to time $t$ that chose an optimal arm)")
    assert "Instances: easy, hard" in caption


def test_a_policy_keeps_its_colour_across_panels_and_figures(tmp_path: Path) -> None:
    _, tex = _rendered(tmp_path)
    colours: dict[str, set[str]] = {}
    for body in tex.split("\\begin{axis}")[1:]:
        styles = re.findall(r"\\addplot\[color=([^,]+), thick, mark=none\]", body)
        names = re.findall(r"\\addlegendentry\{([^}]*)\}", body)
        for name, colour in zip([n for n in names if "(bound)" not in n], styles, strict=True):
            colours.setdefault(name, set()).add(colour)
    assert colours.keys() == {"pol0", "pol1"}
    assert all(len(c) == 1 for c in colours.values()) and colours["pol0"] != colours["pol1"]


def test_a_spec_s_policies_never_share_a_colour() -> None:
    from eurekaclaw.agents.writer.experiments import Series
    from eurekaclaw.agents.writer.figures import _curve_entry

    colours: dict[str, str] = {}
    for k in range(8):  # MAX_POLICIES of a bandit spec
        _curve_entry(Series(name=f"policy_{k}", points=[(1.0, 0.0)]), colours)
    assert len(colours) == 8 and len(set(colours.values())) == 8


def test_a_bound_far_above_the_curves_is_cut_off_at_the_top(tmp_path: Path) -> None:
    _, tex = _rendered(tmp_path)  # curves reach 10.5 (band included), the bound 1000
    regret_axes = [a for a in _axes(tex) if a["ylabel"] == "cumulative regret"]
    assert all("ymax=13.65" in str(a["options"]) for a in regret_axes)
    assert "cut off where they leave the top of a panel" in tex


def test_results_brief_names_each_panels_own_y_label(tmp_path: Path) -> None:
    from eurekaclaw.agents.writer.results_brief import experiment_brief

    view, _ = _rendered(tmp_path)
    brief = experiment_brief(view, wh.experiment())
    assert f"(instance hard, log-scaled horizon, y: {BEST_ARM_LABEL}): pol0, pol1" in brief
    assert "(instance easy, log-scaled horizon, y: cumulative regret): pol0, pol1, b (bound)" in brief


async def test_both_figures_compile_and_show_their_labels(tmp_path: Path) -> None:
    """The best-arm figure through the real TeX toolchain (skips without it; fails under
    EUREKACLAW_REQUIRE_TOOLS=1): it compiles without repair and its text is in the PDF."""
    import subprocess

    from toolreq import require_tool

    from eurekaclaw.agents.writer.compile import find_toolchain
    from eurekaclaw.agents.writer.repair import compile_with_repair

    require_tool("latexmk")
    require_tool("pdftotext")
    toolchain = find_toolchain()
    assert toolchain is not None
    view, _ = _rendered(tmp_path)
    doc = build_doc(wh.theory(), plan_citations(wh.bibliography()), view, dict(wh.GOOD_PROSE))
    outcome = await compile_with_repair(doc, tmp_path / "latex", toolchain, 120.0)
    assert outcome.compiled, outcome.error
    assert outcome.actions == []
    text = subprocess.run(
        ["pdftotext", "-raw", str(outcome.pdf), "-"], capture_output=True, check=True, timeout=60
    ).stdout.decode("utf-8", "replace")
    text = " ".join(text.split())
    assert BEST_ARM_LABEL in text and "Best-arm rate (fraction of the pulls" in text
    assert "instance: hard" in text


def test_a_single_instance_is_named_from_the_spec_with_its_repetitions(tmp_path: Path) -> None:
    """One instance: the series carry no '@instance', so the panels take the spec's instance
    name; the MAB spec's `repetitions` is the number of runs in the captions."""
    _csv(tmp_path)
    result = wh.experiment()
    result.plot_csv = "r.csv"
    result.spec = {"instances": [{"name": "level1", "means": [0.9, 0.8]}], "repetitions": 30}
    view = experiment_view(result, tmp_path)
    assert view is not None and view.runs == 30
    assert {p.instance for p in view.panels()} == {"level1"}
    tex, _ = render_tex(build_doc(wh.theory(), plan_citations(wh.bibliography()), view, dict(wh.GOOD_PROSE)))
    axes = _axes(tex)
    assert {a["title"] for a in axes} == {"instance: level1"} and any(a["ylabel"] == BEST_ARM_LABEL for a in axes)
    assert tex.count("over 30 runs for each policy") == 2 and tex.count("Instances: level1") == 2
