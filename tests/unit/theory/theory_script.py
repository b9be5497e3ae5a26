"""Test helpers for the theory engine: a scripted responder keyed by (role, lemma) and a
context builder around a real session directory."""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.config import load_settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import LLMRequest
from eurekaclaw.memory.episodic import EpisodicMemory
from eurekaclaw.store.session import SessionDir
from eurekaclaw.tools.base import ToolRegistry
from eurekaclaw.types.artifacts import Claim, ClaimVariable, LemmaNode, TheoryState

PASS = {"verdict": "pass", "confidence": 0.9, "errors": [], "summary": "correct"}
CONSISTENT = {
    "proves_statement": True,
    "assumptions_respected": True,
    "cited_lemmas_used_correctly": True,
    "verdict": "consistent",
    "issues": [],
}


def fail(category: str, text: str = "a step does not follow") -> dict[str, Any]:
    return {
        "verdict": "fail",
        "confidence": 0.8,
        "errors": [{"category": category, "description": text, "severity": "major"}],
        "summary": f"{category} found",
    }


def proof(text: str, confidence: float = 0.8, weakest: str = "") -> dict[str, Any]:
    return {"proof": text, "self_assessment": {"confidence": confidence, "gaps": [], "weakest_step": weakest}}


def cited_dependencies(request: LLMRequest) -> str:
    """\\ref{} of every lemma the prompt offers, as a careful prover cites what it uses."""
    deps = re.findall(r"^- Lemma (\S+) \[", request.prompt_text(), flags=re.MULTILINE)
    return ", ".join(f"Lemma~\\ref{{lem:{d}}}" for d in deps)


def default_proof(request: LLMRequest) -> dict[str, Any]:
    cites = cited_dependencies(request)
    return proof(f"Proof of {request.lemma_id}: by {cites or 'standard results'}, the claim follows.")


class Script:
    """Replies per (role, lemma_id): a queue whose last reply repeats; else the role default.
    A reply may be a callable of the request. Every call is logged as (role, lemma, output)."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.delay_s = delay_s
        self.queues: dict[tuple[str, str | None], list[Any]] = {}
        self.defaults: dict[str, Any] = {
            "prover": default_proof,
            "refiner": default_proof,
            "verifier": PASS,
            "counterexample_searcher": {"candidates": []},
            "consistency_checker": CONSISTENT,
        }
        self.log: list[tuple[str, str | None, str | None]] = []
        self.requests: list[LLMRequest] = []
        self.count: dict[tuple[str, str | None], int] = defaultdict(int)

    def on(self, role: str, lemma_id: str | None, *replies: Any) -> Script:
        self.queues[(role, lemma_id)] = list(replies)
        return self

    def calls(self, role: str, lemma_id: str | None = None) -> list[LLMRequest]:
        return [r for r in self.requests if r.role == role and (lemma_id is None or r.lemma_id == lemma_id)]

    async def __call__(self, request: LLMRequest) -> Any:
        key = (request.role, request.lemma_id)
        self.log.append((request.role, request.lemma_id, request.output_name()))
        self.requests.append(request)
        self.count[key] += 1
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        queue = self.queues.get(key)
        if queue:
            reply = queue.pop(0) if len(queue) > 1 else queue[0]
        else:
            reply = self.defaults.get(request.role)
        if callable(reply):
            reply = reply(request)
        return reply


def make_ctx(tmp_path: Path, script: Any, **settings: Any) -> tuple[AgentContext, ScriptedBackend, list]:
    session = SessionDir(tmp_path / "session")
    session.path.mkdir(parents=True, exist_ok=True)
    backend = ScriptedBackend(responder=script)
    ledger = UsageLedger(session.file("usage.json"))
    events: list[tuple[str, dict[str, Any]]] = []
    ctx = AgentContext(
        session_id="s1",
        settings=load_settings(**settings),
        bus=KnowledgeBus("s1", session.path),
        llm=SessionLLM(backend, ledger, retry_base_s=0.0),
        tools=ToolRegistry(),
        episodic=EpisodicMemory("s1"),
        session=session,
        events=lambda kind, **data: events.append((kind, data)),
    )
    return ctx, backend, events


def claim(conclusion: str, *names: str, domain: str = "real", assumptions: list[str] | None = None) -> Claim:
    return Claim(
        variables=[ClaimVariable(name=n, domain=domain) for n in (names or ("x",))],  # type: ignore[arg-type]
        assumptions=assumptions or [],
        conclusion=conclusion,
    )


def lemma(lid: str, *deps: str, root: bool = False, **extra: Any) -> LemmaNode:
    return LemmaNode(
        id=lid,
        statement=f"Statement of {lid}.",
        informal=f"{lid} in words",
        dependencies=list(deps),
        is_root=root,
        **extra,
    )


def put_state(ctx: AgentContext, *lemmas: LemmaNode, formal: str = "Main theorem.") -> TheoryState:
    dag = {n.id: n for n in lemmas}
    state = TheoryState(
        informal_statement="the conjecture",
        formal_statement=formal,
        assumptions=["standing assumption"],
        lemma_dag=dag,
        formalized_dag={k: v.model_copy(deep=True) for k, v in dag.items()},
        open_goals=list(dag),
    )
    ctx.bus.put_theory_state(state)
    return state
