"""Concurrent sessions writing the shared memory files at once lose nothing. Real processes
(not threads), so the inter-process file lock and the atomic replace are what is tested."""

from __future__ import annotations

import json
import multiprocessing as mp
from pathlib import Path

PROCS = 3
UPDATES = 25


def _persistent_worker(path: str, proc: int) -> None:
    from eurekaclaw.memory.persistent import PersistentMemory

    mem = PersistentMemory(Path(path))
    for i in range(UPDATES):
        # every process extends the same record: a lost update would drop an item
        mem.update("shared.list", lambda old, i=i: (old or []) + [f"p{proc}-{i}"])
    mem.remember(f"p{proc}.done", UPDATES, tags=[f"proc{proc}"], source_session=f"s{proc}")


def _graph_worker(path: str, proc: int) -> None:
    from eurekaclaw.memory.embeddings import HashingEmbedder
    from eurekaclaw.memory.knowledge_graph import KnowledgeGraph

    kg = KnowledgeGraph(Path(path), HashingEmbedder())
    levels = ["unverified", "cited", "reviewed", "smt"]
    level = levels[proc % len(levels)]
    common = kg.add_theorem(
        "A statement every session proves", "d", level, session_id=f"s{proc}", established=level != "unverified"
    )
    for i in range(UPDATES):
        nid = kg.add_theorem(f"Lemma {i} of process {proc}", "d", "reviewed", session_id=f"s{proc}")
        if i % 5 == 0:
            kg.link_theorems(nid, common, "uses")


def _insight_worker(root: str, proc: int) -> None:
    from datetime import UTC, datetime

    from eurekaclaw.memory.embeddings import HashingEmbedder
    from eurekaclaw.memory.insights import DomainInsights
    from eurekaclaw.types.memory import DomainInsight

    store = DomainInsights(Path(root), HashingEmbedder())
    for i in range(6):
        store.save(
            DomainInsight(
                domain="mab",
                category="pitfalls",
                title="same title everywhere",
                content=f"insight number {i} written by process {proc}",
                confidence=0.9,
                created_at=datetime(2025, 1, 1, tzinfo=UTC),
            )
        )


def _run(target, *args_per_proc) -> None:
    # fork: the children start at once (spawn would re-import everything per process)
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=target, args=args) for args in args_per_proc]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]


def test_persistent_memory_concurrent_writers(tmp_path):
    path = tmp_path / "memory" / "persistent.json"
    _run(_persistent_worker, *[(str(path), p) for p in range(PROCS)])
    records = json.loads(path.read_text())["records"]
    for p in range(PROCS):
        assert records[f"p{p}.done"]["value"] == UPDATES
    shared = records["shared.list"]["value"]
    assert len(shared) == PROCS * UPDATES
    assert set(shared) == {f"p{p}-{i}" for p in range(PROCS) for i in range(UPDATES)}


def test_knowledge_graph_concurrent_writers(tmp_path):
    from eurekaclaw.memory.embeddings import HashingEmbedder
    from eurekaclaw.memory.knowledge_graph import KnowledgeGraph

    path = tmp_path / "memory" / "knowledge_graph.json"
    _run(_graph_worker, *[(str(path), p) for p in range(PROCS)])
    kg = KnowledgeGraph(path, HashingEmbedder())
    nodes = kg.nodes()
    assert len(nodes) == PROCS * UPDATES + 1
    assert len(kg.edges()) == PROCS * (UPDATES // 5)
    common = kg.find("A statement every session proves")
    assert common.verification_level == "reviewed"  # the strongest of the writers' levels wins
    assert common.established and common.claimed_level == "reviewed"
    assert sorted(common.sessions) == sorted(f"s{p}" for p in range(PROCS))  # no writer lost


def test_insights_concurrent_writers_get_distinct_files(tmp_path):
    root = tmp_path / "memories"
    _run(_insight_worker, (str(root), 0), (str(root), 1))
    files = sorted(p.name for p in (root / "mab").glob("*.md"))
    index = json.loads((root / "mab" / "_index.json").read_text())["entries"]
    assert len(files) == 12 and len(index) == 12
    assert sorted(e["file"] for e in index) == files
