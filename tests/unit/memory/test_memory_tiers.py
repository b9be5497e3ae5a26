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
    first = mem.remember(
        "theory.failed_strategies.mab", ["union bound too loose"], tags=["theory"], source_session="s1"
    )
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
    b = kg.add_theorem(
        "for all x>0,  log x <= x-1",
        "analysis",
        "reviewed",
        "tangent line",
        "s2",
        ["log"],
        established=True,
        session_status="proved",
    )
    assert a == b and len(kg.nodes()) == 1
    node = kg.get(a)
    assert node.verification_level == "reviewed" and node.established and node.claimed_level == "reviewed"
    assert node.proof_summary == "tangent line" and node.session_id == "s2"
    assert set(node.tags) == {"ineq", "log"} and node.sessions == ["s1", "s2"]
    # a weaker level never downgrades
    kg.add_theorem("For all x > 0, log x <= x - 1", "analysis", "unverified", "handwave", "s3")
    node = kg.get(a)
    assert node.verification_level == "reviewed" and node.proof_summary == "tangent line"
    # nor does a stronger claim that is not established (a self-reviewed "formal" is no evidence)
    kg.add_theorem(
        "For all x > 0, log x <= x - 1",
        "analysis",
        "formal",
        "trust me",
        "s4",
        established=False,
        session_status="contradicted",
        note="the session ended contradicted",
    )
    node = kg.get(a)
    assert node.established and node.claimed_level == "reviewed" and node.session_id == "s2"
    with pytest.raises(ValueError):
        kg.add_theorem("  ", "analysis", "formal")
    with pytest.raises(ValueError):
        kg.add_theorem("x", "analysis", "proved-by-me")  # type: ignore[arg-type]


def test_a_result_that_is_not_established_is_stored_as_unverified(tmp_path):
    kg = graph(tmp_path)
    nid = kg.add_theorem(
        "The UCB1 exploration constant can be 1/100",
        "mab",
        "formal",
        "by Coq",
        "s1",
        established=False,
        session_status="contradicted",
        self_reviewed=True,
        note="the session ended contradicted",
    )
    node = kg.get(nid)
    # what a later session may rely on is "unverified"; what the session claimed is kept apart
    assert node.verification_level == "unverified" and node.claimed_level == "formal"
    assert not node.established and node.session_status == "contradicted"
    assert node.trust_label().startswith("unverified: claimed formal by self-review; the session ended contradicted")
    assert kg.search_theorems("UCB1 exploration constant 1/100", k=5, min_level="unverified") == []
    # a contradicted session's results are not even offered as unverified candidates
    assert kg.search_unverified("UCB1 exploration constant 1/100") == []
    other = kg.add_theorem(
        "The UCB1 index uses sqrt(2 log t / n)",
        "mab",
        "reviewed",
        "",
        "s2",
        established=False,
        session_status="proved",
        self_reviewed=True,
    )
    assert [n.node_id for n in kg.search_unverified("UCB1 index sqrt log t")] == [other]


def test_retraction_marks_the_earlier_result_and_its_users(tmp_path):
    kg = graph(tmp_path)
    base = kg.add_theorem(
        r"$R_T \le 100 \log T$ for every instance", "mab", "formal", "", "s1", established=True, session_status="proved"
    )
    user = kg.add_theorem(
        "Corollary: regret is O(log T) uniformly",
        "mab",
        "reviewed",
        "",
        "s1",
        established=True,
        session_status="proved",
    )
    kg.link_theorems(user, base, "uses")
    # what the false statement was proved from: a reviewed step is a suspect, a formal one is not
    reviewed_step = kg.add_theorem(
        "Pull counts are at most 100 log T / Delta^2",
        "mab",
        "reviewed",
        "",
        "s1",
        established=True,
        session_status="proved",
    )
    formal_step = kg.add_theorem(
        "Regret decomposes over the arms", "mab", "formal", "", "s1", established=True, session_status="proved"
    )
    kg.link_theorems(base, reviewed_step, "uses")
    kg.link_theorems(base, formal_step, "uses")
    # the same statement up to spacing and $…$, refuted by a later session
    result = kg.retract(
        r"R_T\le 100\log T for every instance",
        "mab",
        "refuted in session s2: counterexample",
        "s2",
        evidence="Counterexample to R_T <= 100 log T at Delta=0.001, T=10^6",
    )
    assert result.node_id == base and result.sessions == ["s1"] and result.was_established
    node = kg.get(base)
    assert node.retracted and not node.established and node.verification_level == "unverified"
    assert "refuted in session s2" in node.retraction
    # the result built on it loses its standing, but is not declared false
    dependent = kg.get(user)
    assert not dependent.established and not dependent.retracted and base in dependent.note
    assert sorted(result.demoted) == sorted([user, reviewed_step])
    assert kg.get(formal_step).established and not kg.get(reviewed_step).established
    assert "whose proof has a wrong step" in kg.get(reviewed_step).note
    # the evidence is linked by a `contradicts` edge and is never offered as a result
    (edge,) = [e for e in kg.edges() if e.relation == "contradicts"]
    assert edge.target == base and kg.get(edge.source).kind == "refutation"
    offered = {n.node_id for n in kg.search_theorems("regret log T instance arms", k=5, min_level="unverified")}
    assert offered == {formal_step}
    assert [n.node_id for n in kg.search_retracted("R_T 100 log T every instance")] == [base]
    # a later "proof" of the same words does not bring it back
    kg.add_theorem(
        r"R_T \le 100 \log T for every instance.", "mab", "formal", "", "s3", established=True, session_status="proved"
    )
    assert kg.get(base).retracted and not kg.get(base).established
    assert "s3" in kg.get(base).sessions


def test_retracting_an_unknown_statement_records_it(tmp_path):
    kg = graph(tmp_path)
    result = kg.retract("Every bandit algorithm has bounded regret", "mab", "refuted in session s9", "s9")
    assert result.sessions == [] and not result.was_established
    node = kg.get(result.node_id)
    assert node.retracted and node.trust_label() == "retracted: refuted in session s9"
    # a later session claiming it stores nothing established
    kg.add_theorem("every bandit algorithm has bounded regret", "mab", "reviewed", "", "s10", established=True)
    assert (
        kg.get(result.node_id).retracted and kg.search_theorems("bandit bounded regret", min_level="unverified") == []
    )


def test_old_graph_files_load_as_not_established(tmp_path):
    path = tmp_path / "knowledge_graph.json"
    path.write_text(
        json.dumps(
            {
                "nodes": {
                    "thm-old": {
                        "node_id": "thm-old",
                        "statement": "Jensen inequality for convex functions",
                        "verification_level": "formal",
                    }
                },
                "edges": [],
            }
        )
    )
    kg = KnowledgeGraph(path, HashingEmbedder())
    node = kg.get("thm-old")
    assert node.verification_level == "formal" and not node.established
    assert "stored before results carried their session's status" in node.trust_label()
    assert kg.search_theorems("Jensen convex", min_level="unverified") == []
    assert [n.node_id for n in kg.search_unverified("Jensen convex")] == ["thm-old"]


def test_links_and_related_theorems(tmp_path):
    kg = graph(tmp_path)
    ids = [kg.add_theorem(f"statement number {i}", "d", "cited", established=True) for i in range(5)]
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


def test_search_offers_only_established_results(tmp_path):
    kg = graph(tmp_path)
    hoeff = kg.add_theorem(
        "Hoeffding inequality for bounded independent random variables", "prob", "cited", established=True
    )
    kg.add_theorem("Hoeffding inequality for bounded martingale differences (Azuma)", "prob", "unverified")
    kg.add_theorem("Hoeffding inequality for bounded sub-Gaussian sums", "prob", "reviewed", self_reviewed=True)
    formal = kg.add_theorem("Jensen inequality for convex functions", "analysis", "formal", established=True)
    found = kg.search_theorems("a tail bound for sums of bounded independent variables (Hoeffding)", k=5)
    ids = [n.node_id for n in found]
    assert ids == [hoeff]
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
