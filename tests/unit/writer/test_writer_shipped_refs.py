"""References offline: the domain's shipped bibliography is cited by `known` lemmas and by the
prose, a references section appears whenever something is cited, and nothing unchecked is."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import writer_helpers as wh
from toolreq import require_tool

from domains.mab import MABPlugin
from eurekaclaw.agents.writer import WriteStage
from eurekaclaw.agents.writer.bibtex import CitePlan, loosely_named
from eurekaclaw.domain_refs import load_references
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="UCB1 regret")
CLASSICS = {
    "10.1016/0196-8858(85)90002-8": ("Lai", 1985),
    "10.1023/A:1013689704352": ("Auer", 2002),
    "10.1093/biomet/25.3-4.285": ("Thompson", 1933),
    "10.1561/2200000024": ("Bubeck", 2012),
    "10.1017/9781108571401": ("Lattimore", 2020),
}


def _offline_bus(tmp_path: Path) -> KnowledgeBus:
    sdir = tmp_path / "runs" / "s1"
    sdir.mkdir(parents=True)
    bus = KnowledgeBus("s1", sdir)
    bus.put_theory_state(wh.theory())  # no bibliography: the survey found nothing
    return bus


def _no_toolchain(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_the_mab_plugin_ships_checked_classics() -> None:
    refs = MABPlugin().get_references()
    by_doi = {p.doi: p for p in refs if p.doi}
    for doi, (surname, year) in CLASSICS.items():
        paper = by_doi[doi]
        assert surname in paper.authors[0] and paper.year == year
    arxiv = {p.arxiv_id: p for p in refs if p.arxiv_id}
    assert arxiv["1102.2490"].authors[0].endswith("Garivier")  # KL-UCB
    assert arxiv["1111.1797"].authors[0].endswith("Agrawal")  # Thompson sampling analysis
    for paper in refs:
        assert paper.verification == "verified"
        assert "checked" in paper.verification_detail and paper.sources == ["plugin:mab"]
    assert len({p.cite_key for p in refs}) == len(refs)


def test_entries_without_checked_metadata_are_not_loaded(tmp_path: Path) -> None:
    good = {"title": "T", "authors": ["A B"], "year": 2000, "doi": "10.1000/x1", "how_checked": "by hand"}
    bad = [
        {**good, "how_checked": ""},  # nobody says how it was checked
        {**good, "doi": None},  # no identifier at all
        {**good, "doi": "not a doi"},
        {**good, "year": "2000"},
        {**good, "authors": []},
        {"title": "A made-up paper"},
        "junk",
    ]
    path = tmp_path / "references.json"
    path.write_text(json.dumps({"references": [good, *bad]}))
    loaded = load_references(path, "x")
    assert [p.doi for p in loaded] == ["10.1000/x1"]
    path.write_text("{ not json")
    assert load_references(path, "x") == []


def test_a_free_text_citation_names_one_paper_or_none() -> None:
    refs = MABPlugin().get_references()
    named = loosely_named("Auer, Cesa-Bianchi and Fischer (2002), Theorem 1", refs)
    assert [p.doi for p in named] == ["10.1023/A:1013689704352"]
    # two 2002 papers by Auer: ambiguous, so no guess
    assert loosely_named("Auer et al. 2002", refs) == []
    assert loosely_named("a folklore argument", refs) == []
    plan = CitePlan()
    plan.add_shipped(refs)
    assert plan.resolve("Lai and Robbins (1985)") == "lai1985asymptotically"


async def test_offline_known_lemma_cites_the_shipped_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_toolchain(monkeypatch, tmp_path)
    bus = _offline_bus(tmp_path)
    prose = dict(
        wh.GOOD_PROSE,
        introduction="Index policies for the stochastic bandit problem go back to the lower bound and the "
        "allocation rules of \\citet{lai1985asymptotically}.",
        abstract="We study UCB1 " * 10,
        related_work="Classical work \\citep{ghost2020}.",
    )
    ctx = wh.context(bus, rules=[{"role": "writer", "output": "PaperProse", "reply": prose}])
    ctx.plugin = MABPlugin()
    await WriteStage().run(ctx, SPEC)
    sdir = bus.session_dir
    assert sdir is not None
    tex = (sdir / "paper.tex").read_text()
    bib = (sdir / "references.bib").read_text()
    # L1 is `known` and cites Hoeffding by DOI; the prose cites Lai-Robbins; nothing else
    assert "\\citep{hoeffding1963probability}" in tex and "\\citet{lai1985asymptotically}" in tex
    assert "10.1080/01621459.1963.10500830" in bib and "0196-8858(85)90002-8" in bib
    assert "biomet" not in bib and "ghost2020" not in tex  # uncited classics and unknown keys stay out
    assert "\\bibliography{references}" in tex
    assert "Further verified references surveyed" not in tex
    assert "domain's own bibliography" in tex
    recorded = bus.get_bibliography()
    assert recorded is not None and not recorded.checks_ran
    assert sorted(p.cite_key or "" for p in recorded.papers) == ["hoeffding1963probability", "lai1985asymptotically"]
    md = (sdir / "paper.md").read_text()
    assert "Asymptotically efficient adaptive allocation rules" in md
    # a prompt that offered the classics by key
    assert "key=auer2002finitetime" in ctx.llm.backend.calls[0].prompt_text()  # type: ignore[attr-defined]


async def test_nothing_cited_means_no_references_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_toolchain(monkeypatch, tmp_path)
    bus = _offline_bus(tmp_path)
    state = wh.theory()
    state.lemma_dag["L1"].citation = None
    bus.put_theory_state(state)
    prose = dict(
        wh.GOOD_PROSE,
        introduction="Bandits " * 20,
        abstract="We study UCB1 " * 10,
        related_work="No references.",
        experiments="",
    )
    ctx = wh.context(bus, rules=[{"role": "writer", "output": "PaperProse", "reply": prose}])
    ctx.plugin = MABPlugin()
    await WriteStage().run(ctx, SPEC)
    tex = (bus.session_dir / "paper.tex").read_text()  # type: ignore[operator]
    assert "\\bibliography{" not in tex and "\\cite" not in tex
    assert bus.get_bibliography() is None


async def test_offline_paper_with_classics_compiles_with_a_references_section(tmp_path: Path) -> None:
    require_tool("latexmk")
    require_tool("pdftotext")
    bus = _offline_bus(tmp_path)
    prose = dict(
        wh.GOOD_PROSE,
        introduction="The UCB1 index policy and its finite-time regret analysis are due to "
        "\\citet{auer2002finitetime}; we revisit its constants.",
        related_work="See \\citet{lattimore2020bandit}.",
    )
    ctx = wh.context(bus, rules=[{"role": "writer", "output": "PaperProse", "reply": prose}])
    ctx.plugin = MABPlugin()
    outcome = await WriteStage().run(ctx, SPEC)
    assert outcome.status == "completed", outcome.reason
    pdf = bus.session_dir / "paper.pdf"  # type: ignore[operator]
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "References" in text
    assert "Finite-time analysis of the multiarmed bandit problem" in " ".join(text.split())
    assert "Bandit Algorithms" in text
    assert "Thompson" not in text.split("References")[-1]  # only what is cited is listed
