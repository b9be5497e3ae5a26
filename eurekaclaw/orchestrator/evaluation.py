"""`eurekaclaw eval-session`: score a finished or partial session (Scientist-Bench)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from eurekaclaw.config import Settings
from eurekaclaw.errors import MissingConfigError
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.select import build_backend, choose_backend
from eurekaclaw.llm.session_client import SessionLLM, session_llm
from eurekaclaw.store.session import SessionDir, Workspace

log = logging.getLogger(__name__)


def _judge_llm(
    settings: Settings, workspace: Workspace, session: SessionDir, override: str | None
) -> SessionLLM | None:
    """The LLM for the novelty judgement, or None (the report then says it was left out)."""
    try:
        name, arg = choose_backend(settings, override)
        replay_log = workspace.resolve(arg or "").file(SessionDir.LLM_LOG) if name == "replay" else None
        backend = build_backend(settings, name, arg, replay_log)
    except MissingConfigError as exc:
        log.info("evaluating without an LLM judgement: %s", exc.message)
        return None
    ledger = UsageLedger(session.file(SessionDir.USAGE))
    return session_llm(backend, ledger, session.file(SessionDir.LLM_LOG), settings)


def evaluate(settings: Settings, session_id: str, llm_override: str | None, *, refresh: bool = True) -> tuple[Any, Any]:
    workspace = Workspace(settings.eurekaclaw_dir)
    session = workspace.resolve(session_id)
    from eurekaclaw.agents.evaluate import evaluate_session, render_eval_table

    llm = _judge_llm(settings, workspace, session, llm_override)
    report = asyncio.run(evaluate_session(session.path, settings, llm, refresh=refresh))
    return report, render_eval_table(report)
