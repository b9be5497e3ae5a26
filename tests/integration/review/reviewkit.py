"""A finished session to review: the writer fixtures' theory (L1 cited, L2 reviewed, L3 smt,
main proved), written into a real session folder by the real WriterAgent with scripted prose,
and scripted review models — a verbose careful one and a careless one."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.writer.stage import WriterAgent
from eurekaclaw.config import load_settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import LLMRequest
from eurekaclaw.memory.episodic import EpisodicMemory
from eurekaclaw.store.session import SessionDir, Workspace
from eurekaclaw.tools.base import ToolRegistry
from eurekaclaw.types.artifacts import Bibliography, ExperimentResult, TheoryState
from eurekaclaw.types.tasks import SessionMeta

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "writer"
STATEMENT = "For all K >= 2 and T >= K, UCB1 has expected regret at most 8 sqrt(K T log T) + 2K"

WRITER_PROSE = {
    "title": "A gap-free regret bound for UCB1 with explicit constants",
    "abstract": "We give a gap-free regret bound for the UCB1 policy with explicit constants, building on the "
    "finite-time analysis of \\citet{auer2002finitetime}; every step is labelled with how it was checked.",
    "introduction": "Stochastic bandits are the basic model of the exploration-exploitation trade-off "
    "\\citep{auer2002finitetime}. Lemma~\\ref{lem:L2} bounds the pulls of a suboptimal arm and is the key "
    "step; Lemma~\\ref{lem:L3} turns the per-arm bounds into a gap-free one.",
    "preliminaries": "Let $K$ be the number of arms and $T$ the horizon; $\\Delta_i$ is the gap of arm $i$.",
    "related_work": "Concentration follows \\citet{hoeffding1963probability}.",
    "limitations": "Lemma~\\ref{lem:L2} was checked by a model review and numeric falsification only.",
    "experiments": "",
}


def theory(*, self_review: bool = False, proved: bool = True) -> TheoryState:
    state = TheoryState.model_validate_json((FIXTURES / "theory_proved.json").read_text())
    state.proven_lemmas["L2"].self_review = self_review
    state.proven_lemmas["L2"].reviewer = "scripted:scripted-main" if self_review else "scripted:reviewer-main"
    if not proved:
        state.status = "in_progress"
        state.status_reason = "lemma L2 failed review"
        del state.proven_lemmas["L2"]
        del state.proven_lemmas["main"]
        state.lemma_dag["L2"].status = "failed"
        state.lemma_dag["main"].status = "pending"
    return state


def writer_backend() -> ScriptedBackend:
    return ScriptedBackend(rules=[{"role": "writer", "output": "PaperProse", "reply": WRITER_PROSE}])


def finished_session(home: Path, *, with_experiment: bool = False, **theory_kwargs: Any) -> SessionDir:
    """A completed session with its paper, as the write stage leaves it."""
    workspace = Workspace(home)
    session = workspace.new_session()
    session.save_meta(
        SessionMeta(
            session_id=session.session_id,
            mode="prove",
            statement=STATEMENT,
            backend="scripted",
            model="scripted-main",
            status="completed",
            theory_status="proved" if theory_kwargs.get("proved", True) else "in_progress",
        )
    )
    bus = KnowledgeBus(session.session_id, session.path)
    state = theory(**theory_kwargs)
    state.informal_statement = STATEMENT
    bus.put_theory_state(state)
    bus.put_bibliography(Bibliography.model_validate_json((FIXTURES / "bibliography.json").read_text()))
    if with_experiment:
        shutil.copy(FIXTURES / "regret.csv", session.path / "regret.csv")
        bus.put_experiment_result(
            ExperimentResult.model_validate_json((FIXTURES / "experiment_result.json").read_text())
        )
    ctx = AgentContext(
        session_id=session.session_id,
        settings=load_settings(),
        bus=bus,
        llm=SessionLLM(writer_backend(), UsageLedger(session.file(SessionDir.USAGE)), session.file(SessionDir.LLM_LOG)),
        tools=ToolRegistry(),
        episodic=EpisodicMemory(session.session_id),
        session=session,
    )
    asyncio.run(WriterAgent(ctx).write())
    return session


def copy_session(source: SessionDir, home: Path) -> SessionDir:
    target = home / "runs" / source.session_id
    shutil.copytree(source.path, target)
    return SessionDir(target)


def _lemma_ids(request: LLMRequest) -> list[str]:
    return [line.split('"')[1] for line in request.prompt_text().splitlines() if line.startswith("<lemma id=")]


def verbose_reply(request: LLMRequest) -> dict[str, Any]:
    """A careful but wordy model: long answers about the mathematics, cites what it uses, and
    leaves what was checked and how to the records (any sentence on that would not be shown)."""
    question = request.prompt_text().rsplit("Question:", 1)[-1].strip()
    answer = (
        f"Thank you for the question ({question}). Let me explain carefully. The main theorem rests on three "
        "lemmas. Lemma L1 is a known concentration inequality from the literature. Lemma L2 bounds the "
        "expected number of pulls of a suboptimal arm, which is where the main difficulty lies. Lemma L3 is "
        "the Cauchy-Schwarz step that sums the per-arm terms. The limitations section discusses the constants."
    )
    return {
        "answer": answer,
        "cites": ["lemma:L1", "lemma:L2", "lemma:L3", "section:limitations", "theorem"],
        "answerable": True,
    }


def careless_reply(request: LLMRequest) -> dict[str, Any]:
    """A careless model: calls the reviewed lemma formally verified and cites a section that
    does not exist."""
    answer = (
        "The key step is Lemma L2, which bounds the pulls of a suboptimal arm. Lemma L2 was formally "
        "verified in Coq, so the whole argument is machine-checked. Lemma L3 was proved by Z3."
    )
    return {"answer": answer, "cites": ["lemma:L2", "section:appendix_b"], "answerable": True}


def revision_reply(**fields: Any) -> dict[str, Any]:
    reply: dict[str, Any] = {name: None for name in WRITER_PROSE}
    reply.update({"summary": "", "needs": [], "needs_reason": ""})
    reply.update(fields)
    return reply


def scripted(qa: Any = None, revision: Any = None) -> ScriptedBackend:
    rules = []
    if revision is not None:
        rules.append(
            {
                "role": "reviser",
                "output": "RevisionReply",
                "replies": revision if isinstance(revision, list) else [revision],
            }
        )
    return ScriptedBackend(
        rules=rules, responder=(lambda r: qa(r) if r.role == "review" else None) if qa else None, model="reviewer"
    )


def read_history(session: SessionDir) -> list[dict[str, Any]]:
    path = session.path / "review" / "history.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def cli(*args: str, home: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    """`eurekaclaw review ARGS` in a subprocess, with EUREKACLAW_DIR=home and no host credentials."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_BACKEND"))}
    env.update({"EUREKACLAW_DIR": str(home), "EUREKACLAW_OFFLINE": "1", "COLUMNS": "200", "NO_COLOR": "1"})
    return subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "review", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin if stdin is not None else "",
        timeout=600,
    )
