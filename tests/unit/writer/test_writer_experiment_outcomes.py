"""Realised regret in the paper's figures: read from the CSV's optional columns, drawn beside its
policy's pseudo-regret curve with its own ± s.e. band, never for a bound."""

from __future__ import annotations

from pathlib import Path

import writer_helpers as wh

from eurekaclaw.agents.writer.bibtex import plan_citations
from eurekaclaw.agents.writer.doc import build_doc
from eurekaclaw.agents.writer.experiments import (
    MAX_SERIES_PER_PANEL,
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
    by = {(s.name, s.realised): s for s in series}
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
    # bands: three policies and their three realised curves ("old" has stderr 0.1 too)
    assert tex.count("fill opacity=0.18") == 7
