"""Shared fixtures for the writer tests: a fixed TheoryState, bibliography and experiment."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.config import load_settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.memory.episodic import EpisodicMemory
from eurekaclaw.store.session import SessionDir
from eurekaclaw.tools.base import ToolRegistry
from eurekaclaw.types.artifacts import Bibliography, ExperimentResult, TheoryState

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "writer"

GOOD_PROSE = {
    "title": "A gap-free regret bound for UCB1 with explicit constants",
    "abstract": "We give a gap-free regret bound for the UCB1 policy with explicit constants, "
    "building on the finite-time analysis of \\citet{auer2002finitetime}.",
    "introduction": "Stochastic bandits are the basic model of the exploration-exploitation "
    "trade-off \\citep{auer2002finitetime}. Lemma~\\ref{lem:L2} is the key step.",
    "preliminaries": "Let $K$ be the number of arms and $T$ the horizon.",
    "related_work": "Concentration follows \\citet{hoeffding1963probability}.",
    "limitations": "The constants are not optimised.",
    "experiments": "UCB1 stays below the gap-free bound.",
}


def theory() -> TheoryState:
    return TheoryState.model_validate_json((FIXTURES / "theory_proved.json").read_text())


def bibliography() -> Bibliography:
    return Bibliography.model_validate_json((FIXTURES / "bibliography.json").read_text())


def experiment() -> ExperimentResult:
    return ExperimentResult.model_validate_json((FIXTURES / "experiment_result.json").read_text())


def unproved_theory() -> TheoryState:
    state = theory()
    state.status = "in_progress"
    state.status_reason = "lemma L2 failed review"
    del state.proven_lemmas["L2"]
    del state.proven_lemmas["main"]
    state.lemma_dag["L2"].status = "failed"
    state.lemma_dag["main"].status = "pending"
    return state


def session(tmp_path: Path, *, with_experiment: bool = True, state: TheoryState | None = None) -> KnowledgeBus:
    sdir = tmp_path / "runs" / "s1"
    sdir.mkdir(parents=True, exist_ok=True)
    bus = KnowledgeBus("s1", sdir)
    bus.put_theory_state(state or theory())
    bus.put_bibliography(bibliography())
    if with_experiment:
        shutil.copy(FIXTURES / "regret.csv", sdir / "regret.csv")
        bus.put_experiment_result(experiment())
    return bus


def context(bus: KnowledgeBus, *, rules: list[dict[str, Any]] | None = None, responder: Any = None) -> AgentContext:
    backend = ScriptedBackend(rules=rules, responder=responder)
    assert bus.session_dir is not None
    return AgentContext(
        session_id=bus.session_id,
        settings=load_settings(),
        bus=bus,
        llm=SessionLLM(backend, UsageLedger(None)),
        tools=ToolRegistry(),
        episodic=EpisodicMemory(bus.session_id),
        session=SessionDir(bus.session_dir),
    )
