"""Runs the Theory stage on a session directory with a slow scripted model, for the SIGKILL /
resume test. Usage: theory_kill_driver.py <session_dir> <calls_file> <run_tag> <resume 0|1>

Every prover call appends "<run_tag> <lemma_id>" to calls_file before answering, so the test
can count how often each lemma was proved across runs."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.config import load_settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.memory.episodic import EpisodicMemory
from eurekaclaw.store.session import SessionDir
from eurekaclaw.tools.base import ToolRegistry
from eurekaclaw.types.tasks import InputSpec

DELAY_S = 0.1


def main() -> int:
    session_dir, calls_file, tag, resume = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"

    async def respond(request):
        if request.role == "prover":
            with calls_file.open("a", encoding="utf-8") as fh:
                fh.write(f"{tag} {request.lemma_id}\n")
        await asyncio.sleep(DELAY_S)
        if request.role == "prover":
            # cite every lemma the prompt offers, as a careful prover does
            deps = re.findall(r"^- Lemma (\S+) \[", request.prompt_text(), flags=re.MULTILINE)
            cites = ", ".join(f"Lemma~\\ref{{lem:{d}}}" for d in deps)
            return {
                "proof": f"proof of {request.lemma_id} ({tag}) by {cites or 'definition'}",
                "self_assessment": {"confidence": 0.9},
            }
        if request.role == "verifier":
            return {"verdict": "pass", "confidence": 0.9, "errors": []}
        if request.role == "consistency_checker":
            return {
                "proves_statement": True,
                "assumptions_respected": True,
                "cited_lemmas_used_correctly": True,
                "verdict": "consistent",
                "issues": [],
            }
        return None

    session = SessionDir(session_dir)
    ctx = AgentContext(
        session_id=session.session_id,
        settings=load_settings(theory_concurrency=2),
        bus=KnowledgeBus.load(session.session_id, session_dir),
        llm=SessionLLM(ScriptedBackend(responder=respond), UsageLedger(session.file("usage.json"))),
        tools=ToolRegistry(),
        episodic=EpisodicMemory(session.session_id),
        session=session,
    )
    outcome = asyncio.run(TheoryStage().run(ctx, InputSpec(mode="prove", statement="s"), resume=resume))
    print(outcome.status)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
