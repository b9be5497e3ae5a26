"""One stage of a session, run to an outcome: attempts and retries, the pause watch (a pause
file or SIGTERM cancels the stage at its next checkpoint), and the stage's record kept in the
pipeline, the event log and the live display."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import Any

from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.errors import BudgetExceededError, LLMAuthError, LLMRetryableError, StorageError, storage_errors
from eurekaclaw.llm.context import current_stage
from eurekaclaw.orchestrator.graph import StageGraph
from eurekaclaw.orchestrator.progress import RunUI
from eurekaclaw.orchestrator.session_run import SessionRun
from eurekaclaw.orchestrator.stages import STAGE_GRAPH
from eurekaclaw.store.session import SessionDir
from eurekaclaw.types.artifacts import utcnow
from eurekaclaw.types.tasks import StageRecord, StageStatus

log = logging.getLogger(__name__)

PAUSE_POLL_S = 0.5


class PauseRequested(Exception):
    """The user asked for a pause (pause file, SIGTERM or a declined gate)."""


class StageRunner:
    def __init__(self, ui: RunUI, impls: dict[str, Stage | None], graph: StageGraph = STAGE_GRAPH) -> None:
        self.ui = ui
        self.impls = impls
        self.graph = graph
        self._pause_flag = False

    async def run(self, run: SessionRun, rec: StageRecord, resume: bool) -> None:
        stage = self.impls[rec.name]
        assert stage is not None
        session = run.session
        reason = stage.missing_inputs(run.ctx, run.spec)
        if reason:
            self.set_status(run, rec, "skipped", reason)
            return
        # Before the stage changes its output, whatever later stages built on the old output is
        # stale: they run again (a resumed Theory stage refreshes the paper, eval and learning).
        stale = self.graph.refresh_downstream(run.pipeline, rec.name)
        if stale:
            session.event("stale_stages", after=rec.name, stages=stale)
        max_attempts = 1 + run.settings.stage_max_retries
        while True:
            rec.attempts += 1
            rec.started_at = rec.started_at or utcnow()
            self.set_status(run, rec, "running", "")
            session.save_checkpoint({"stage": rec.name, "attempt": rec.attempts})
            outcome = await self._attempt(run, rec, stage, resume)
            if outcome.status != "failed":
                status: StageStatus = "completed" if outcome.status in ("completed", "partial") else "skipped"
                detail = outcome.reason or outcome.summary
                if outcome.status == "partial":
                    detail = f"partial: {detail}" if detail else "partial"
                rec.finished_at = utcnow()
                self.set_status(run, rec, status, detail)
                return
            if rec.attempts >= max_attempts or not outcome.retryable:
                rec.finished_at = utcnow()
                self.set_status(run, rec, "failed", outcome.reason or "stage failed")
                return
            session.event("stage_retry", name=rec.name, attempt=rec.attempts, reason=outcome.reason)
            resume = True

    async def _attempt(self, run: SessionRun, rec: StageRecord, stage: Stage, resume: bool) -> StageOutcome:
        session = run.session
        token = current_stage.set(rec.name)
        task = asyncio.ensure_future(stage.run(run.ctx, run.spec, resume=resume))
        watcher = asyncio.ensure_future(self._watch_pause(session, task))
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGTERM, self._request_pause, task)
        try:
            return await task
        except asyncio.CancelledError:
            self.set_status(run, rec, "interrupted", "stopped at a checkpoint")
            if self._pause_flag:
                raise PauseRequested() from None
            raise
        except BudgetExceededError:
            self.set_status(run, rec, "interrupted", "budget reached")
            raise
        except (LLMAuthError, StorageError):
            raise
        except OSError as exc:
            if storage_errors(exc.errno):  # a full or read-only disk: stop, resumable
                raise StorageError(exc.filename or session.path, exc) from exc
            return _failed(rec, exc)
        except Exception as exc:  # a stage bug or an exhausted LLM must not lose the session
            return _failed(rec, exc)
        finally:
            watcher.cancel()
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGTERM)
            current_stage.reset(token)

    def _request_pause(self, task: asyncio.Future[Any]) -> None:
        self._pause_flag = True
        task.cancel()

    async def _watch_pause(self, session: SessionDir, task: asyncio.Future[Any]) -> None:
        while not task.done():
            if session.pause_requested():
                session.clear_pause()
                self._request_pause(task)
                return
            await asyncio.sleep(PAUSE_POLL_S)

    def set_status(self, run: SessionRun, rec: StageRecord, status: StageStatus, reason: str) -> None:
        rec.status = status
        rec.reason = reason
        run.save_pipeline()
        run.session.event("stage", name=rec.name, status=status, reason=reason, attempt=rec.attempts)
        self.ui.event("stage", name=rec.name, status=status, reason=reason)
        self.ui.set_pipeline(run.pipeline)


def _failed(rec: StageRecord, exc: BaseException) -> StageOutcome:
    # one line; the traceback only with --verbose (DEBUG)
    log.warning("stage %s failed: %s: %s", rec.name, type(exc).__name__, exc)
    log.debug("stage %s failed", rec.name, exc_info=True)
    # A retryable LLM error that reaches here is one SessionLLM already retried until its policy
    # gave up: a stage retry would only repeat those calls.
    retryable = not isinstance(exc, LLMRetryableError)
    return StageOutcome(status="failed", reason=f"{type(exc).__name__}: {exc}", retryable=retryable)
