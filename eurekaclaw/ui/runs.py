"""Runs started from the browser: the orchestrator's own entry points (`run`, `resume`) in a
worker thread, with the backend the user configured, exactly as `eurekaclaw prove` builds them.

A human gate asks through the session directory instead of the terminal: the run writes
gate.request and waits for gate.answer (written by the page), so the question and its answer
live with the session, not in the server. Answering "stop" has the terminal's "n" meaning:
the run pauses at that checkpoint and `resume` continues it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any

from eurekaclaw.orchestrator.progress import RunUI
from eurekaclaw.store.files import atomic_write_json, read_json
from eurekaclaw.store.session import SessionDir, Workspace
from eurekaclaw.types.artifacts import utcnow
from eurekaclaw.ui.data import GATE_ANSWER, GATE_REQUEST

log = logging.getLogger(__name__)

GATE_POLL_S = 0.3
START_WAIT_S = 30.0


class WebRunUI(RunUI):
    """Quiet progress (the page reads events.jsonl) and gates answered from the page."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(live=False, quiet=True)
        self.stream_tokens = True  # the page shows the running call's tokens (llm_call events)
        self.workspace = workspace
        self.started = threading.Event()

    def start(self, session_id: str, headline: str) -> None:
        super().start(session_id, headline)
        self.started.set()

    def can_ask(self) -> bool:
        return True  # the page answers

    def confirm(self, question: str) -> bool:
        session = SessionDir(self.workspace.runs_dir / self.session_id)
        for name in (GATE_ANSWER, GATE_REQUEST):
            session.file(name).unlink(missing_ok=True)
        atomic_write_json(session.file(GATE_REQUEST), {"question": question, "asked_at": utcnow().isoformat()})
        session.event("gate", question=question)
        try:
            while True:
                answer = read_json(session.file(GATE_ANSWER), None)
                if isinstance(answer, dict) and "approve" in answer:
                    approved = answer.get("approve") is True
                    session.event("gate_answer", approve=approved, feedback=str(answer.get("feedback") or ""))
                    return approved
                if session.pause_requested():  # pause while waiting: the same as "stop"
                    session.clear_pause()
                    session.event("gate_answer", approve=False, feedback="paused")
                    return False
                time.sleep(GATE_POLL_S)
        finally:
            # the question goes first, so a page never sees it without its answer still pending
            for name in (GATE_REQUEST, GATE_ANSWER):
                session.file(name).unlink(missing_ok=True)


def answer_gate(session: SessionDir, approve: bool, feedback: str = "") -> bool:
    """Record the page's answer; False when the session is not waiting at a gate."""
    if session.running_pid() is None or not session.file(GATE_REQUEST).exists():
        return False
    if session.file(GATE_ANSWER).exists():  # answered already (another tab, a double click)
        return False
    atomic_write_json(session.file(GATE_ANSWER), {"approve": approve, "feedback": feedback[:2000]})
    return True


class Launch:
    """One run in a worker thread; `wait_started` gives its session id once the orchestrator
    created (or reopened) the session, or raises what stopped it before that."""

    def __init__(self, orchestrator: Any, ui: WebRunUI) -> None:
        self.orchestrator = orchestrator
        self.ui = ui
        self.error: BaseException | None = None
        self.done = threading.Event()

    def start(self, coro_factory: Any) -> None:
        def work() -> None:
            try:
                asyncio.run(coro_factory())
            except BaseException as exc:  # noqa: BLE001 - the run's end is recorded in its session
                self.error = exc
                log.info("run ended: %s: %s", type(exc).__name__, exc)
            finally:
                self.done.set()

        threading.Thread(target=work, name="eurekaclaw-ui-run", daemon=True).start()

    def wait_started(self, timeout: float = START_WAIT_S) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.ui.started.wait(0.05):
                return self.ui.session_id
            if self.done.is_set():
                if self.error is not None:
                    raise self.error
                break
        if self.ui.started.is_set():
            return self.ui.session_id
        raise TimeoutError("the run did not start its session in time")


def _orchestrator(settings: Any, workspace: Workspace) -> tuple[Any, WebRunUI]:
    from eurekaclaw.orchestrator.meta import MetaOrchestrator

    ui = WebRunUI(workspace)
    orchestrator = MetaOrchestrator(settings, ui=ui)
    orchestrator.prepare_backend()  # a missing configuration fails here, before any session
    return orchestrator, ui


def launch_run(settings: Any, spec: Any) -> str:
    workspace = Workspace(settings.eurekaclaw_dir)
    orchestrator, ui = _orchestrator(settings, workspace)
    launch = Launch(orchestrator, ui)
    launch.start(lambda: orchestrator.run(spec))
    return launch.wait_started()


def resume_run(settings: Any, session: SessionDir, budget_usd: float | None = None) -> str:
    workspace = Workspace(settings.eurekaclaw_dir)
    orchestrator, ui = _orchestrator(settings, workspace)
    launch = Launch(orchestrator, ui)
    launch.start(lambda: orchestrator.resume(session, budget_usd=budget_usd))
    return launch.wait_started()
