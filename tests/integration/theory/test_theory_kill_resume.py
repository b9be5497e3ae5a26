"""Scenario (j): SIGKILL a real process in the middle of the theory loop, then resume: the same
proven set as an uninterrupted run, and no lemma that was proven before the kill is proved again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.store.files import read_json
from eurekaclaw.types.artifacts import LemmaNode, TheoryState

DRIVER = Path(__file__).with_name("theory_kill_driver.py")
POLL_LIMIT_S = 120


def _dag() -> dict[str, LemmaNode]:
    leaves = [f"L{i}" for i in range(6)]
    nodes = [LemmaNode(id=lid, statement=f"leaf {lid}") for lid in leaves]
    nodes.append(LemmaNode(id="M1", statement="middle 1", dependencies=leaves[:3]))
    nodes.append(LemmaNode(id="M2", statement="middle 2", dependencies=leaves[3:]))
    nodes.append(LemmaNode(id="T", statement="main", dependencies=["M1", "M2"], is_root=True))
    return {n.id: n for n in nodes}


def _run(session_dir: Path, calls: Path, tag: str, resume: bool) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(DRIVER), str(session_dir), str(calls), tag, "1" if resume else "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
    )


def test_j_sigkill_then_resume(tmp_path):
    session_dir = tmp_path / "runs" / "abcdef123456"
    session_dir.mkdir(parents=True)
    dag = _dag()
    bus = KnowledgeBus("abcdef123456", session_dir)
    bus.put_theory_state(
        TheoryState(
            formal_statement="main",
            lemma_dag=dag,
            open_goals=list(dag),
            formalized_dag={k: v.model_copy() for k, v in dag.items()},
        )
    )
    calls = tmp_path / "prover_calls.txt"

    first = _run(session_dir, calls, "run1", resume=False)
    deadline = time.monotonic() + POLL_LIMIT_S
    proven: dict = {}
    while time.monotonic() < deadline and first.poll() is None:
        state = read_json(session_dir / "theory_state.json", {}) or {}
        proven = state.get("proven_lemmas", {})
        if len(proven) >= 3:
            break
        time.sleep(0.02)
    assert first.poll() is None, f"run 1 ended before the kill: {first.communicate()}"
    first.send_signal(signal.SIGKILL)
    first.wait()
    assert first.returncode == -signal.SIGKILL

    killed = TheoryState.model_validate(read_json(session_dir / "theory_state.json"))
    proven_before = dict(killed.proven_lemmas)
    assert 3 <= len(proven_before) < len(dag) and "T" not in proven_before

    second = _run(session_dir, calls, "run2", resume=True)
    out, err = second.communicate(timeout=POLL_LIMIT_S)
    assert second.returncode == 0, err.decode()
    final = TheoryState.model_validate(read_json(session_dir / "theory_state.json"))
    assert final.status == "self_reviewed"
    assert set(final.proven_lemmas) == set(dag)  # what an uninterrupted run proves
    for lid, rec in proven_before.items():  # untouched by the resumed run
        assert final.proven_lemmas[lid].proof == rec.proof
        assert final.proven_lemmas[lid].created_at == rec.created_at
    lines = [line.split() for line in calls.read_text().splitlines()]
    run2 = Counter(lid for tag, lid in lines if tag == "run2")
    assert not set(run2) & set(proven_before), "a lemma proven before the kill was proved again"
    total = Counter(lid for _, lid in lines)
    assert all(n == 1 for lid, n in total.items() if lid in proven_before)
    assert all(n <= 2 for n in total.values())  # at most the attempt cut short by the kill
    assert all(n.status == "proved" for n in final.lemma_dag.values())
