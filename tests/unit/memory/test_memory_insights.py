"""Tier 4: per-domain Markdown insights, their index, retrieval and the <memories> block;
plus the MemoryManager facade over all four tiers."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import yaml

from eurekaclaw.memory.embeddings import HashingEmbedder
from eurekaclaw.memory.episodic import EpisodicMemory
from eurekaclaw.memory.insights import DomainInsights, render_memories_block, split_front_matter
from eurekaclaw.memory.manager import MemoryManager
from eurekaclaw.types.memory import DomainInsight


def insight(title, content, *, domain="mab", category="proof_strategy", confidence=0.8, days_ago=0):
    return DomainInsight(
        domain=domain,
        category=category,
        title=title,
        content=content,
        confidence=confidence,
        source_session="s1",
        created_at=datetime(2025, 3, 10, tzinfo=UTC) - timedelta(days=days_ago),
    )


def store(tmp_path) -> DomainInsights:
    return DomainInsights(tmp_path / "memories", HashingEmbedder())


def test_save_writes_front_matter_file_and_index(tmp_path):
    ins = store(tmp_path)
    path = ins.save(insight("Peel over pull counts", "Use geometric peeling over the number of pulls."))
    assert path == tmp_path / "memories" / "mab" / "20250310_peel-over-pull-counts.md"
    meta, body = split_front_matter(path.read_text())
    assert meta["category"] == "proof_strategy" and meta["confidence"] == 0.8
    assert meta["source_session"] == "s1" and len(meta["sha256"]) == 64
    assert body.strip() == "Use geometric peeling over the number of pulls."
    index = json.loads((path.parent / "_index.json").read_text())
    (entry,) = index["entries"]
    assert entry["file"] == path.name and entry["embedder"] == "hashing-v1"
    assert "peeling" in entry["keywords"]
    loaded = ins.read("mab", path.name)
    assert loaded.title == "Peel over pull counts" and loaded.file == path.name


def test_low_confidence_and_exact_repeats_are_not_saved(tmp_path):
    ins = store(tmp_path)
    assert ins.save(insight("weak", "maybe something", confidence=0.49)) is None
    first = ins.save(insight("A", "Bernstein beats Hoeffding when the variance is small."))
    assert first is not None
    # same content up to case and whitespace, different title: an exact repeat
    assert ins.save(insight("B", "bernstein beats  Hoeffding when the variance is small.")) is None
    assert len(ins.entries("mab")) == 1
    # same title on the same day gets its own file
    second = ins.save(insight("A", "Something else entirely about KL divergences."))
    assert second.name == "20250310_a-2.md"


def test_near_duplicates_and_replacement(tmp_path):
    ins = store(tmp_path)
    old = ins.save(
        insight("UCB confidence radius", "The UCB confidence radius needs a union bound over pull counts and rounds.")
    )
    ins.save(insight("Plotting", "Plots need log scale axes for regret curves."))
    new = insight("UCB radius union bound", "UCB confidence radius: union bound over pull counts and rounds is needed.")
    near = ins.near_duplicates(new)
    assert [n.file for n in near] == [old.name]
    merged = ins.save(
        new.model_copy(update={"content": "Merged: union bound over pull counts and rounds."}), replaces=old.name
    )
    assert merged is not None and not old.exists()
    assert old.name not in {e["file"] for e in ins.entries("mab")}
    assert len(ins.entries("mab")) == 2


def test_load_for_injection_ranks_by_query_then_recency(tmp_path):
    ins = store(tmp_path)
    ins.save(
        insight(
            "KL lower bounds", "Change of measure with the KL divergence decomposition gives lower bounds.", days_ago=3
        )
    )
    ins.save(insight("Peeling", "Peeling over geometric blocks of pull counts removes a log factor.", days_ago=2))
    ins.save(insight("Jensen", "Jensen's inequality moves the expectation inside the concave square root.", days_ago=1))
    ins.save(insight("Low", "A low-confidence note about KL divergence.", confidence=0.3))
    top = ins.load_for_injection("mab", k=1, query="lower bound via KL divergence and change of measure")
    assert [i.title for i in top] == ["KL lower bounds"]
    recent = ins.load_for_injection("mab", k=2)
    assert [i.title for i in recent] == ["Jensen", "Peeling"]
    assert ins.load_for_injection("other-domain", k=4, query="anything") == []
    assert ins.load_for_injection("mab", k=0) == []


def test_query_ranking_survives_an_embedder_change(tmp_path):
    ins = store(tmp_path)
    ins.save(insight("KL lower bounds", "Change of measure and KL divergence give lower bounds.", days_ago=1))
    ins.save(insight("Jensen", "Jensen's inequality for concave functions."))
    index = tmp_path / "memories" / "mab" / "_index.json"
    data = json.loads(index.read_text())
    for e in data["entries"]:
        e["embedder"] = "some-other-model"
        e["embedding"] = {"dim": 3, "idx": [0], "val": [1.0]}
    index.write_text(json.dumps(data))
    top = ins.load_for_injection("mab", k=1, query="KL divergence lower bound")
    assert [i.title for i in top] == ["KL lower bounds"]


def test_domain_names_cannot_escape_the_memories_dir(tmp_path):
    ins = store(tmp_path)
    path = ins.save(insight("x", "content here", domain="../../etc"))
    assert path.parent == tmp_path / "memories" / "etc"
    assert ins.domains() == ["etc"]


def test_corrupt_index_is_quarantined_and_rebuilt_from_the_files(tmp_path):
    ins = store(tmp_path)
    first = ins.save(insight("x", "first content about peeling"))
    index = tmp_path / "memories" / "mab" / "_index.json"
    index.write_text("{oops")
    assert [e["file"] for e in ins.entries("mab")] == [first.name]
    assert list(index.parent.glob("_index.json.corrupt-*"))
    assert ins.load_for_injection("mab", k=4, query="peeling")[0].title == "x"
    assert ins.save(insight("x2", "first content about peeling")) is None  # still a repeat
    second = ins.save(insight("y", "second content"))
    assert sorted(e["file"] for e in json.loads(index.read_text())["entries"]) == sorted([first.name, second.name])


def test_render_memories_block_escapes_attributes(tmp_path):
    block = MemoryManager.render_memories_block(
        [insight('Use "peeling"', "Body text.", category="pitfalls", confidence=0.75)]
    )
    assert block.startswith("<memories>\n") and block.endswith("\n</memories>")
    assert 'title="Use &quot;peeling&quot;"' in block and 'category="pitfalls"' in block
    assert "Body text." in block
    assert MemoryManager.render_memories_block([]) == ""


def test_manager_facade_over_all_tiers(tmp_path):
    episodic = EpisodicMemory("s9")
    mm = MemoryManager(tmp_path, "s9", HashingEmbedder(), episodic=episodic)
    mm.log_event("prover", "tried induction", {"lemma": "L1"})
    assert mm.recent_events(5, "prover")[0].content == "tried induction"
    assert len(episodic) == 1
    rec = mm.remember("theory.failed_strategies.mab", ["x"], tags=["theory"])
    assert rec.source_session == "s9"
    assert mm.recall("theory.failed_strategies.mab") == ["x"]
    assert mm.recall_by_tag("theory")[0].key == "theory.failed_strategies.mab"
    a = mm.add_theorem("Hoeffding inequality for bounded variables", "mab", "cited", established=True)
    b = mm.add_theorem("UCB1 regret bound via Hoeffding", "mab", "reviewed", established=True)
    mm.link_theorems(b, a, "uses")
    assert mm.find_related_theorems(b)[0].node_id == a
    assert mm.graph.get(a).session_id == "s9"
    assert mm.search_theorems("Hoeffding inequality bounded", k=1)[0].node_id == a
    assert mm.to_networkx().has_edge(b, a)
    path = mm.save_insight(DomainInsight(domain="mab", category="pitfalls", title="t", content="c c c", confidence=0.9))
    assert path.parent == tmp_path / "memories" / "mab"
    assert yaml.safe_load(path.read_text().split("---")[1])["source_session"] == "s9"
    assert (tmp_path / "memory" / "persistent.json").exists()
    assert (tmp_path / "memory" / "knowledge_graph.json").exists()
    assert [i.title for i in mm.load_for_injection("mab", k=4, query="anything")] == ["t"]
    assert [i.title for i in mm.load_for_injection("mab", k=4)] == ["t"]  # no query: most recent first
    # retracting a statement reaches the insights of the sessions that had stored it
    mm.save_insight(
        DomainInsight(
            domain="mab",
            category="domain_knowledge",
            title="UCB1 via Hoeffding",
            content="UCB1 regret follows from Hoeffding.",
            confidence=0.9,
            source_session="s1",
            established=True,
            session_status="proved",
        )
    )
    mm.add_theorem("UCB1 regret bound via Hoeffding", "mab", "reviewed", session_id="s1", established=True)
    done = mm.retract_theorem("UCB1 regret bound via Hoeffding", "mab", "refuted in session s9")
    assert done.node_id == b and set(done.sessions) == {"s9", "s1"}
    assert [i.title for i in mm.load_for_injection("mab", k=4)] == ["t"]
    assert mm.search_retracted("UCB1 regret Hoeffding")[0].node_id == b


def test_deleting_a_file_forgets_the_insight(tmp_path):
    ins = store(tmp_path)
    note = insight("Forget me", "An insight the user disagrees with.")
    path = ins.save(note)
    path.unlink()
    assert ins.load_for_injection("mab", k=4) == []
    assert not ins.is_repeat(note)
    again = ins.save(note)
    assert again is not None and again.exists()
    assert [e["file"] for e in ins.entries("mab")] == [again.name]


def test_provenance_is_written_and_read_back(tmp_path):
    ins = store(tmp_path)
    path = ins.save(
        insight("Constant 1/100", "The UCB1 constant can be 1/100.", category="domain_knowledge").model_copy(
            update={"session_status": "contradicted", "self_reviewed": True}
        )
    )
    meta, _ = split_front_matter(path.read_text())
    assert meta["established"] is False and meta["session_status"] == "contradicted"
    assert meta["self_reviewed"] is True and meta["verification_level"] == "unverified"
    loaded = ins.read("mab", path.name)
    assert not loaded.established and loaded.session_status == "contradicted"
    # an old file without these fields loads, as not established
    old = path.parent / "20240101_old.md"
    old.write_text("---\ncategory: pitfalls\ntitle: old\nconfidence: 0.9\n---\n\nAn old note.\n")
    assert not ins.read("mab", old.name).established


def test_injection_never_offers_a_false_sessions_knowledge(tmp_path):
    ins = store(tmp_path)
    bad = {"session_status": "contradicted", "source_session": "s-bad"}
    ins.save(
        insight(
            "Constant 1/100", "The UCB1 exploration constant 1/100 suffices.", category="domain_knowledge"
        ).model_copy(update=bad)
    )
    ins.save(
        insight(
            "Trusting one reader", "A single reader missed the violated UCB1 exploration bound.", category="pitfalls"
        ).model_copy(update=bad)
    )
    ins.save(
        insight(
            "Peeling for UCB1 exploration",
            "Peel over pull counts for the UCB1 exploration term.",
            category="proof_strategy",
        ).model_copy(update={"session_status": "proved", "self_reviewed": True})
    )
    ins.save(
        insight(
            "Hoeffding for UCB1 exploration",
            "Hoeffding gives the UCB1 exploration radius.",
            category="domain_knowledge",
        ).model_copy(update={"session_status": "proved", "established": True, "verification_level": "formal"})
    )
    shown = {i.title: i for i in ins.load_for_injection("mab", k=10, query="UCB1 exploration constant")}
    # the contradicted session's "knowledge" never comes back; its pitfall does, labelled
    assert set(shown) == {"Trusting one reader", "Peeling for UCB1 exploration", "Hoeffding for UCB1 exploration"}
    block = render_memories_block(list(shown.values()))
    assert 'status="established at formal"' in block
    assert 'status="unverified: self-reviewed; the session ended proved"' in block
    assert 'status="unverified: the session ended contradicted"' in block
    assert "1/100" not in block


def test_retract_sessions_marks_knowledge_but_keeps_pitfalls(tmp_path):
    ins = store(tmp_path)
    know = ins.save(
        insight("Regret constant", "Regret is at most 100 log T.", category="domain_knowledge").model_copy(
            update={"source_session": "s1", "established": True, "session_status": "proved"}
        )
    )
    pit = ins.save(
        insight("Small gaps", "Small gaps force log T regret.", category="pitfalls").model_copy(
            update={"source_session": "s1", "established": True, "session_status": "proved"}
        )
    )
    ins.save(
        insight("Other session", "Regret bounds need the gap.", category="domain_knowledge").model_copy(
            update={"source_session": "s2", "established": True, "session_status": "proved"}
        )
    )
    changed = ins.retract_sessions({"s1"}, "refuted in session s3", frozenset({"domain_knowledge", "proof_strategy"}))
    assert changed == [know]
    meta, _ = split_front_matter(know.read_text())
    assert meta["retracted"] is True and meta["retraction"] == "refuted in session s3" and meta["established"] is False
    assert ins.read("mab", know.name).trust_label() == "retracted: refuted in session s3"
    titles = {i.title for i in ins.load_for_injection("mab", k=10, query="regret")}
    assert titles == {"Small gaps", "Other session"}
    # a retracted note is not a merge partner either: merging would carry its claim back
    assert ins.near_duplicates(insight("Regret constant again", "Regret is at most 100 log T always.")) == []
    assert ins.retract_sessions({"s1"}, "refuted in session s3", None) == [pit]
