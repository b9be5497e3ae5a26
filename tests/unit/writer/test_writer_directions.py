"""The paper of an `explore` session that pivoted names the direction it reports and why the
earlier ones were dropped, in the .tex (escaped, and it compiles) and the .md alike."""

from __future__ import annotations

import subprocess
from pathlib import Path

import writer_helpers as wh
from toolreq import require_tool

from eurekaclaw.agents.writer.bibtex import plan_citations
from eurekaclaw.agents.writer.compile import find_toolchain
from eurekaclaw.agents.writer.directions import direction_report
from eurekaclaw.agents.writer.doc import build_doc
from eurekaclaw.agents.writer.markdown import render_markdown
from eurekaclaw.agents.writer.render import render_tex
from eurekaclaw.agents.writer.repair import compile_with_repair
from eurekaclaw.types.artifacts import DroppedDirection, ResearchBrief, ResearchDirection

FINAL = ResearchDirection(title="UCB with 50% less exploration", statement="s3", composite=0.61)
BRIEF = ResearchBrief(
    directions=[FINAL],
    selected_direction=FINAL,
    dropped_directions=[
        DroppedDirection(
            version=1,
            title="KL_UCB & friends",
            statement="s1",
            composite=0.8,
            outcome="refuted",
            reason="lemma L2 refuted: counterexample at {T=3}",
            archive="directions/v1",
        ),
        DroppedDirection(
            version=2,
            title="Thompson sampling",
            statement="s2",
            composite=0.7,
            outcome="contradicted",
            reason="the experiment violated 1 of the theorem's bound(s)",
            archive="directions/v2",
        ),
    ],
)


def _doc():
    doc = build_doc(wh.theory(), plan_citations(wh.bibliography()), None, dict(wh.GOOD_PROSE))
    doc.directions = direction_report(BRIEF)
    return doc


def test_no_pivot_no_section() -> None:
    assert direction_report(ResearchBrief(selected_direction=FINAL)) is None
    assert direction_report(None) is None
    doc = build_doc(wh.theory(), plan_citations(wh.bibliography()), None, dict(wh.GOOD_PROSE))
    tex, _ = render_tex(doc)
    assert "Research directions" not in tex and "Research directions" not in render_markdown(doc)


def test_tex_and_markdown_report_the_final_direction_and_the_dropped_ones() -> None:
    doc = _doc()
    tex, _ = render_tex(doc)
    assert "\\paragraph{Research directions.}" in tex
    assert "UCB with 50\\% less exploration (composite score 0.61), the third tried" in tex
    assert "KL\\_UCB \\& friends (composite score 0.80): the theory ended refuted" in tex
    assert "Thompson sampling (composite score 0.70): the theory ended contradicted" in tex
    md = render_markdown(doc)
    assert "**Research directions.** This paper reports the research direction UCB with 50% less exploration" in md
    assert "- Direction 1, KL_UCB & friends (composite score 0.80): the theory ended refuted; lemma L2 refuted" in md
    assert "directions/v2/" in md


async def test_the_directions_paragraph_compiles(tmp_path: Path) -> None:
    require_tool("latexmk")
    require_tool("pdftotext")
    toolchain = find_toolchain()
    assert toolchain is not None
    outcome = await compile_with_repair(_doc(), tmp_path / "latex", toolchain, 180.0)
    assert outcome.compiled, outcome.error
    text = subprocess.run(
        ["pdftotext", "-raw", str(outcome.pdf), "-"], capture_output=True, check=True, timeout=60
    ).stdout.decode("utf-8", "replace")
    flat = " ".join(text.split())
    assert "Research directions." in flat and "KL_UCB & friends" in flat
