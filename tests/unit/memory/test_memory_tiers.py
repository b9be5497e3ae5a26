"""Tiers 2 and 3: persistent key/value records and the theorem knowledge graph."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eurekaclaw.memory.embeddings import HashingEmbedder
from eurekaclaw.memory.knowledge_graph import KnowledgeGraph, normalize_statement
from eurekaclaw.memory.persistent import PersistentMemory


def corrupt_copies(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".corrupt-*"))


# --- tier 2 ---------------------------------------------------------------------------------------
def test_remember_recall_and_tags(tmp_path):
    mem = PersistentMemory(tmp_path / "persistent.json")
    assert mem.recall("theory.failed_strategies.mab") is None
    first = mem.remember("theory.failed_strategies.mab", ["union bound too loose"], tags=["theory"], source_session="s1")
    mem.remember("writer.style", {"tone": "terse"}, tags=["writer"])
    assert mem.recall("theory.failed_strategies.mab") == ["union bound too loose"]
    assert [r.key for r in mem.recall_by_tag("theory")] == ["theory.failed_strategies.mab"]
    assert mem.recall_by_tag("nothing") == []

    second = mem.remember("theory.failed_strategies.mab", ["x"], tags=["failed_strategy"], source_session="s2")
    assert second.created_at == first.created_at
    assert second.updated_at >= first.updated_at
    assert set(second.tags) == {"theory", "failed_strategy"}
    assert second.source_session == "s2"
    assert [r.key for r in mem.recall_prefix("theory.")] == ["theory.failed_strategies.mab"]

    # a fresh instance reads the same file
    again = PersistentMemory(tmp_path / "persistent.json")
    assert again.recall("writer.style") == {"tone": "terse"}
    assert again.forget("writer.style") is True
    assert again.forget("writer.style") is False
    assert mem.keys() == ["theory.failed_strategies.mab"]


def test_update_extends_the_current_value(tmp_path):
    mem = PersistentMemory(tmp_path / "p.json")
    mem.update("k", lambda old: (old or []) + [1])
    mem.update("k", lambda old: (old or []) + [2])
    assert mem.recall("k") == [1, 2]
    with pytest.raises(ValueError):
        mem.remember("  ", 1)


def test_corrupt_persistent_file_is_quarantined_not_overwritten(tmp_path, caplog):
    path = tmp_path / "persistent.json"
    path.write_text("{ this is not json", encoding="utf-8")
    mem = PersistentMemory(path)
    assert mem.recall("anything") is None
    moved = corrupt_copies(path)
    assert len(moved) == 1 and moved[0].read_text() == "{ this is not json"
    mem.remember("fresh", 1)
    assert json.loads(path.read_text())["records"]["fresh"]["value"] == 1
    assert "moved aside" in caplog.text


def test_malformed_record_is_ignored_others_survive(tmp_path):
    path = tmp_path / "persistent.json"
    path.write_text(json.dumps({"records": {"bad": {"value": 1}, "good": {"key": "good", "value": 2}}}))
    mem = PersistentMemory(path)
    assert mem.recall("good") == 2
    assert mem.recall("bad") is None


# --- tier 3 ---------------------------------------------------------------------------------------
def graph(tmp_path: Path) -> KnowledgeGraph:
    return KnowledgeGraph(tmp_path / "knowledge_graph.json", HashingEmbedder())


def test_normalisation_ignores_spacing_case_and_dollars():
    a = normalize_statement(r"$\mathbb{E}[R_T] \le C \sqrt{KT \log T}$.")
    b = normalize_statement(r"\mathbb{E}[R_T]\le   c\,\sqrt{KT\log T}")
    assert a == b


def test_add_theorem_dedups_and_upgrades_level(tmp_path):
    kg = graph(tmp_path)
    a = kg.add_theorem("For all x > 0, log x <= x - 1.", "analysis", "unverified", "by concavity", "s1", ["ineq"])
    b = kg.add_theorem("for all x>0,  log x <= x-1", "analysis", "reviewed", "tangent line", "s2", ["log"])
    assert a == b and len(kg.nodes()) == 1
    node = kg.get(a)
    assert node.verification_level == "reviewed"
    assert node.proof_summary == "tangent line" and node.session_id == "s2"
    assert set(node.tags) == {"ineq", "log"}
    # a weaker level never downgrades
    kg.add_theorem("For all x > 0, log x <= x - 1", "analysis", "unverified", "handwave", "s3")
    node = kg.get(a)
    assert node.verification_level == "reviewed" and node.proof_summary == "tangent line"
    with pytest.raises(ValueError):
        kg.add_theorem("  ", "analysis", "formal")
    with pytest.raises(ValueError):
        kg.add_theorem("x", "analysis", "proved-by-me")  # type: ignore[arg-type]


def test_links_and_related_theorems(tmp_path):
    kg = graph(tmp_path)
    ids = [kg.add_theorem(f"statement number {i}", "d", "cited") for i in range(5)]
    kg.link_theorems(ids[0], ids[1], "uses")
    kg.link_theorems(ids[1], ids[2], "uses")
    kg.link_theorems(ids[2], ids[3], "generalizes")
    kg.link_theorems(ids[0], ids[1], "uses")  # idempotent
    assert len(kg.edges()) == 3
    assert [n.node_id for n in kg.find_related_theorems(ids[0], depth=1)] == [ids[1]]
    assert [n.node_id for n in kg.find_related_theorems(ids[0], depth=2)] == [ids[1], ids[2]]
    assert {n.node_id for n in kg.find_related_theorems(ids[3], depth=3)} == {ids[0], ids[1], ids[2]}
    assert kg.find_related_theorems(ids[4]) == []
    with pytest.raises(ValueError):
        kg.link_theorems(ids[0], ids[1], "inspires")
    with pytest.raises(KeyError):
        kg.link_theorems(ids[0], "thm-missing", "uses")
    with pytest.raises(ValueError):
        kg.link_theorems(ids[0], ids[0], "uses")
    g = kg.to_networkx()
    assert g.number_of_nodes() == 5 and g.number_of_edges() == 3
    assert g.edges[ids[2], ids[3]]["relation"] == "generalizes"
    assert g.nodes[ids[0]]["verification_level"] == "cited"


def test_search_offers_only_verified_results(tmp_path):
    kg = graph(tmp_path)
    hoeff = kg.add_theorem("Hoeffding inequality for bounded independent random variables", "prob", "cited")
    kg.add_theorem("Hoeffding inequality for bounded martingale differences (Azuma)", "prob", "unverified")
    formal = kg.add_theorem("Jensen inequality for convex functions", "analysis", "formal")
    found = kg.search_theorems("a tail bound for sums of bounded independent variables (Hoeffding)", k=5)
    ids = [n.node_id for n in found]
    assert ids[0] == hoeff
    assert all(n.verification_level != "unverified" for n in found)
    assert [n.node_id for n in kg.search_theorems("convex functions Jensen", k=1, min_level="smt")] == [formal]
    assert kg.search_theorems("Hoeffding", k=5, min_level="formal") == []
    assert kg.search_theorems("", k=5) == []


def test_corrupt_graph_is_quarantined(tmp_path):
    path = tmp_path / "knowledge_graph.json"
    path.write_text("[1, 2,", encoding="utf-8")
    kg = KnowledgeGraph(path, HashingEmbedder())
    assert kg.nodes() == []
    assert len(corrupt_copies(path)) == 1
    kg.add_theorem("a fresh statement", "d", "cited")
    assert len(KnowledgeGraph(path, HashingEmbedder()).nodes()) == 1
