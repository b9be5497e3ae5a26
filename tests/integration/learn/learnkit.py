"""A crafted session for the Learn stage tests: a UCB1 theory state, scripted fast-model
replies, and an AgentContext wired like the orchestrator wires it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eurekaclaw.agents.base import AgentContext, Services
from eurekaclaw.config import load_settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import LLMRequest
from eurekaclaw.memory.episodic import EpisodicMemory
from eurekaclaw.store.session import SessionDir, Workspace
from eurekaclaw.tools.base import ToolRegistry
from eurekaclaw.types.artifacts import (
    Counterexample,
    FailedAttempt,
    LemmaNode,
    ProofRecord,
    TheoryState,
)

L4_TEXT = "With reward variance sigma_i^2, UCB-V pulls arm i at most 8 (sigma_i^2/Delta_i^2 + 2/Delta_i) log T times."


REVIEWER = "scripted:reviewer-main"  # another model than the prover's: an independent review


def theory_state(status: str = "abandoned", reviewer: str = "", self_review: bool = False) -> TheoryState:
    """The UCB1 session. By default it ends abandoned with reviews whose reviewer was not
    recorded (nothing established); status="proved", reviewer=REVIEWER makes it a session
    whose results are established."""
    review = {"reviewer": reviewer, "self_review": self_review}
    dag = {
        "L1": LemmaNode(
            id="L1",
            statement=r"P(|\hat\mu_{i,n} - \mu_i| \ge \sqrt{2\log T / n}) \le 2T^{-4}",
            informal="Hoeffding confidence radius for empirical means of rewards in [0,1]",
            provenance="known",
            citation="hoeffding1963",
            status="proved",
        ),
        "L2": LemmaNode(
            id="L2",
            statement=r"\mathbb{E}[N_i(T)] \le 8\log T/\Delta_i^2 + 1 + \pi^2/3",
            informal="Suboptimal arms are pulled O(log T / Delta^2) times on the good event",
            dependencies=["L1"],
            status="proved",
        ),
        "L3": LemmaNode(
            id="L3",
            statement=r"R_T \le \sum_i 8\log T/\Delta_i + (1+\pi^2/3)\sum_i \Delta_i",
            informal="UCB1 regret bound",
            dependencies=["L2"],
            is_root=True,
            status="proved",
        ),
        "L4": LemmaNode(
            id="L4",
            statement=L4_TEXT,
            informal="Variance-aware pull count from Bernstein's concentration inequality",
            status="failed",
        ),
        "L5": LemmaNode(
            id="L5", statement="UCB1 regret is bounded by a constant uniformly over instances", status="refuted"
        ),
        "L6": LemmaNode(id="L6", statement="An unfinished lemma", status="in_progress"),
    }
    return TheoryState(
        informal_statement="UCB1 has logarithmic regret",
        formal_statement=dag["L3"].statement,
        lemma_dag=dag,
        proven_lemmas={
            "L1": ProofRecord(lemma_id="L1", proof="Apply Hoeffding's inequality. " * 30, verification_level="cited"),
            "L2": ProofRecord(
                lemma_id="L2",
                proof="Decompose pulls on the good event; union bound. " * 20,
                verification_level="reviewed",
                **review,
            ),
            "L3": ProofRecord(
                lemma_id="L3",
                proof="Sum the pull bounds weighted by the gaps.",
                verification_level="reviewed",
                **review,
            ),
        },
        failed_attempts=[
            FailedAttempt(
                lemma_id="L4",
                attempt=1,
                error_category="bound_too_loose",
                verifier_text="Hoeffding ignores the variance; the bound is too loose.",
            ),
            FailedAttempt(
                lemma_id="L4",
                attempt=2,
                error_category="bound_too_loose",
                verifier_text="Hoeffding ignores the variance;  the bound is too loose.",
            ),
        ],
        counterexamples=[
            Counterexample(
                lemma_id="L5",
                assignment={"Delta": 0.01, "T": 100000},
                confirmed=True,
                description="regret grows like log T on a two-armed instance",
            ),
        ],
        status=status,  # type: ignore[arg-type]
    )


INSIGHTS = {
    "insights": [
        {
            "category": "proof_strategy",
            "title": "Bernstein for variance-aware pull counts",
            "content": "When rewards have small variance, replace Hoeffding by Bernstein's inequality; "
            "the pull count then scales with sigma^2/Delta^2 + 1/Delta.",
            "confidence": 0.85,
        },
        {
            "category": "pitfalls",
            "title": "Uniform constant regret is false",
            "content": "No algorithm has regret bounded uniformly over instances: small gaps force log T.",
            "confidence": "70%",
        },
        {"category": "domain_knowledge", "title": "A shaky idea", "content": "Maybe something.", "confidence": 0.3},
        {"category": "misc", "title": "Bad category", "content": "x", "confidence": 0.9},
    ]
}

DISTILLED = {
    "skills": [
        {
            "name": "bernstein-variance-pull-counts",
            "description": "Bound pull counts of a suboptimal arm with Bernstein's inequality when the reward variance is small.",
            "tags": ["bernstein", "variance", "pull-counts", "bandits"],
            "when_to_use": "Variance-aware bandit bounds (UCB-V) and any confidence radius where variance << range.",
            "steps": [
                "Bound the reward variance sigma_i^2",
                "Use the Bernstein confidence radius",
                "Solve for the pull count at which the radius drops below Delta_i/2",
                "Union bound over rounds",
            ],
            "pitfalls": ["Dropping the range term (2/Delta_i log T)"],
        },
    ]
}

MERGE = {
    "action": "merge",
    "title": "Bernstein for variance-aware bounds",
    "content": "Merged: Bernstein's inequality replaces Hoeffding when the variance is small.",
}


def responder(replies: dict[str, Any]):
    def respond(request: LLMRequest) -> Any:
        return replies.get(request.output_name() or "", "no idea")

    return respond


def make_ctx(
    home: Path, session_id: str, backend: ScriptedBackend, domain: str = "mab", services: Services | None = None
) -> AgentContext:
    workspace = Workspace(home)
    session = workspace.runs_dir / session_id
    session.mkdir(parents=True, exist_ok=True)
    return AgentContext(
        session_id=session_id,
        settings=load_settings(),
        bus=KnowledgeBus(session_id, session),
        llm=SessionLLM(backend, UsageLedger(None)),
        tools=ToolRegistry(),
        episodic=EpisodicMemory(session_id),
        workspace=workspace,
        session=SessionDir(session),
        domain=domain,
        services=services or Services(),
    )


def record_session(ctx: AgentContext, state: TheoryState | None = None) -> None:
    """What the theory loop leaves on the bus for Learn."""
    ctx.bus.put_theory_state(state or theory_state())
    ctx.bus.put(
        "injected_skills",
        {
            "L1": ["concentration-inequalities"],
            "L2": ["union-bound-and-peeling", "martingale-arguments"],
            "L4": ["concentration-inequalities"],
            "L5": ["no-such-skill"],
            "L6": ["induction"],
        },
    )
    ctx.bus.put(
        "tool_traces",
        [
            {"lemma_id": "L1", "success": True, "tools": ["simulate_bandit", "simulate_bandit", "fit_rate"]},
            {"lemma_id": "L2", "success": True, "tools": ["simulate_bandit", "fit_rate"]},
            {"lemma_id": "L4", "success": False, "tools": ["simulate_bandit", "fit_rate"]},
            {"lemma_id": "L3", "success": True, "tools": ["check_bound"]},
        ],
    )
