from __future__ import annotations

import json
from pathlib import Path

import pytest

from eurekaclaw.knowledge_bus import KnowledgeBus
from eurekaclaw.knowledge_bus.bus import paper_identity
from eurekaclaw.types.artifacts import LemmaNode, Paper, ResearchBrief, TheoryState


def test_typed_put_is_persisted_at_once_and_loads_back(tmp_path: Path) -> None:
    bus = KnowledgeBus("s1", tmp_path)
    state = TheoryState(informal_statement="x", lemma_dag={"L1": LemmaNode(id="L1", statement="a", is_root=True)})
    bus.put_theory_state(state)
    on_disk = json.loads((tmp_path / "theory_state.json").read_text())
    assert on_disk["lemma_dag"]["L1"]["statement"] == "a"
    assert on_disk["schema_version"] == 1
    bus.put("notes", {"k": [1, 2]})
    loaded = KnowledgeBus.load("s1", tmp_path)
    assert loaded.get_theory_state() == state
    assert loaded.get("notes") == {"k": [1, 2]}


def test_typed_key_rejects_wrong_type(tmp_path: Path) -> None:
    bus = KnowledgeBus("s1", tmp_path)
    with pytest.raises(TypeError):
        bus.put("theory_state", ResearchBrief())


def test_subscribers_see_each_put() -> None:
    bus = KnowledgeBus("s1")
    seen: list[str] = []
    bus.subscribe("research_brief", lambda b: seen.append(b.gap_analysis))
    bus.put_research_brief(ResearchBrief(gap_analysis="g1"))
    bus.put_research_brief(ResearchBrief(gap_analysis="g2"))
    assert seen == ["g1", "g2"]


def test_old_files_with_unknown_fields_still_load(tmp_path: Path) -> None:
    (tmp_path / "theory_state.json").write_text(
        json.dumps({"schema_version": 1, "status": "proved", "future_field": 3})
    )
    assert KnowledgeBus.load("s1", tmp_path).get_theory_state().status == "proved"


def test_paper_identity_matches_by_doi_arxiv_and_title() -> None:
    a = Paper(paper_id="arxiv:1706.03762v5", title="Attention Is All You Need", arxiv_id="1706.03762v5")
    a2 = Paper(paper_id="s2:xyz", title="Attention is all you need", arxiv_id="1706.03762")
    b = Paper(paper_id="doi:10.1/abc", title="T", doi="10.1/ABC")
    b2 = Paper(paper_id="openalex:W1", title="Other title", doi="10.1/abc")
    c = Paper(
        paper_id="x1", title="Finite-time Analysis of the Multiarmed Bandit Problem", authors=["Peter Auer"], year=2002
    )
    c2 = Paper(
        paper_id="x2", title="Finite-time analysis of the multiarmed bandit problem!", authors=["P. Auer"], year=2002
    )
    assert paper_identity(a) == paper_identity(a2)
    assert paper_identity(b) == paper_identity(b2)
    assert paper_identity(c) == paper_identity(c2)
    assert len({paper_identity(p) for p in (a, b, c)}) == 3
