"""MetaOrchestrator: runs the declared stage graph (survey → formalize → theory → experiment →
write → evaluate → learn; orchestrator/stages.py) over one KnowledgeBus, with checkpoints, gates,
retries, budget and pause/resume."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
from pathlib import Path
from typing import Any

from eurekaclaw.agents.stage import Stage
from eurekaclaw.config import Settings, known_gate_mode
from eurekaclaw.domains import DomainPlugin, discover_plugins, route_domain
from eurekaclaw.errors import (
    BadInputError,
    BudgetExceededError,
    LLMAuthError,
    RunInterrupted,
    StorageError,
)
from eurekaclaw.knowledge_bus.bus import TYPED_ARTIFACTS, KnowledgeBus
from eurekaclaw.knowledge_bus.keys import INPUT_SPEC, PAPER
from eurekaclaw.llm.ledger import UsageLedger, check_budget_enforceable
from eurekaclaw.llm.prices import settings_price
from eurekaclaw.llm.select import build_backend, choose_backend
from eurekaclaw.llm.types import LLMClient
from eurekaclaw.orchestrator.graph import StageGraph
from eurekaclaw.orchestrator.interpreter import GraphInterpreter
from eurekaclaw.orchestrator.progress import RunUI
from eurekaclaw.orchestrator.resume_plan import plan_resume
from eurekaclaw.orchestrator.session_run import SessionRun
from eurekaclaw.orchestrator.session_setup import build_context, copy_outputs
from eurekaclaw.orchestrator.stage_runner import PauseRequested, StageRunner
from eurekaclaw.orchestrator.stages import STAGE_GRAPH, load_stages
from eurekaclaw.orchestrator.verdict import session_status
from eurekaclaw.store.session import SessionDir, Workspace
from eurekaclaw.types.tasks import (
    InputSpec,
    PipelineState,
    ResearchOutput,
    SessionMeta,
    SessionStatus,
    StageRecord,
)

log = logging.getLogger(__name__)


def _with_session(exc: StorageError, session: SessionDir) -> StorageError:
    return exc if exc.session_id else exc.for_session(session.session_id)


class MetaOrchestrator:
    def __init__(
        self,
        settings: Settings,
        *,
        llm_override: str | None = None,
        review_llm_override: str | None = None,
        backend: LLMClient | None = None,
        review_backend: LLMClient | None = None,
        stages: dict[str, Stage | None] | None = None,
        ui: RunUI | None = None,
        plugins: dict[str, DomainPlugin] | None = None,
        graph: StageGraph | None = None,
    ) -> None:
        self.settings = settings
        # `stages` replaces what a stage runs (tests do), never the graph: declarations and
        # transitions come from the registered classes.
        self.graph = graph or STAGE_GRAPH
        self.workspace = Workspace(settings.eurekaclaw_dir)
        self.llm_override = llm_override
        self.review_llm_override = review_llm_override
        self._backend = backend
        self._review_backend = review_backend
        self._stages = stages
        self.ui = ui or RunUI(live=False, quiet=True)
        self._plugins = plugins
        self.profile_overrides: dict[str, Any] = {}
        self._profile_checked = False

    # ------------------------------------------------------------------------------------------
    # entry points
    # ------------------------------------------------------------------------------------------
    def prepare_backend(self, session: SessionDir | None = None) -> tuple[LLMClient, str]:
        """Choose and build the LLM backend before any session is created, so a missing
        configuration fails fast (exit 3) without leaving an empty session behind."""
        if self._backend is not None:
            if not self._profile_checked:
                self._apply_profile(self._backend)
            self.prepare_review_backend()
            return self._backend, self._backend.name
        name, arg = choose_backend(self.settings, self.llm_override)
        replay_log = None
        if name == "replay":
            source = self.workspace.resolve(arg or "")
            replay_log = source.file(SessionDir.LLM_LOG)
        self._backend = self.ui.watch(build_backend(self.settings, name, arg, replay_log))
        self._apply_profile(self._backend)
        self.prepare_review_backend()
        return self._backend, name

    def prepare_review_backend(self) -> LLMClient | None:
        """The reviewers' own model, when REVIEW_LLM / --review-llm names one."""
        if self._review_backend is not None:
            return self._review_backend
        spec = self.review_llm_override or self.settings.review_llm
        if not spec:
            return None
        name, arg = choose_backend(self.settings, spec)
        if name == "replay":
            raise BadInputError("--review-llm cannot be replay: a replayed session replays its reviews too")
        model = self.settings.review_model
        settings = (
            self.settings.model_copy(update={"eurekaclaw_model": model, "openai_compat_model": model})
            if model
            else self.settings
        )
        self._review_backend = self.ui.watch(build_backend(settings, name, arg))
        return self._review_backend

    def _apply_profile(self, backend: LLMClient) -> None:
        """A backend too weak for real work (a small local model) asks for settings that let a
        session finish in minutes; anything the user set explicitly is kept."""
        profile = getattr(backend, "demonstration_profile", None)
        overrides = {
            k: v for k, v in (profile() if callable(profile) else {}).items() if k not in self.settings.model_fields_set
        }
        if overrides:
            self.settings = self.settings.model_copy(update=overrides)
        self.profile_overrides = overrides
        self._profile_checked = True

    def check_budget(self, budget_usd: float | None) -> None:
        """A dollar budget the ledger could not enforce stops the run before its first call."""
        check_budget_enforceable(
            budget_usd,
            self.settings.eurekaclaw_budget_tokens,
            [self._backend, self._review_backend],
            settings_price(self.settings),
        )

    async def run(self, spec: InputSpec) -> ResearchOutput:
        backend, backend_name = self.prepare_backend()
        self.check_budget(self._budget(spec))
        self._check_gate_can_ask(spec.gate_mode or self.settings.gate_mode)
        plugins = self._plugins if self._plugins is not None else discover_plugins()
        domain = route_domain(" ".join([spec.statement, *spec.paper_ids]), spec.domain, plugins)
        session = self.workspace.new_session()
        try:
            meta = SessionMeta(
                session_id=session.session_id,
                mode=spec.mode,
                statement=spec.statement,
                paper_ids=spec.paper_ids,
                domain=domain,
                backend=backend_name,
                model=backend.model_for("main"),
                budget_usd=self._budget(spec),
                gate_mode=spec.gate_mode or self.settings.gate_mode,
                output_dir=spec.output_dir.replace("{session_id}", session.session_id) if spec.output_dir else None,
            )
            session.save_meta(meta)
            bus = KnowledgeBus(session.session_id, session.path)
            bus.put(INPUT_SPEC, spec)
            bus.put_pipeline(self._initial_pipeline())
            session.event(
                "session_started",
                mode=spec.mode,
                domain=domain,
                backend=backend_name,
                settings_profile=self.profile_overrides,
            )
            return await self._drive(session, meta, bus, spec, plugins, resume=False)
        except StorageError as exc:
            if not session.file(SessionDir.META).exists():  # nothing to resume: leave no husk
                shutil.rmtree(session.path, ignore_errors=True)
                raise
            raise _with_session(exc, session) from None

    async def resume(
        self, session: SessionDir, *, budget_usd: float | None = None, gate_mode: str | None = None
    ) -> ResearchOutput:
        meta = session.load_meta()
        if meta is None:
            raise BadInputError(f"session {session.session_id} has no readable session.json")
        if session.running_pid() is not None:
            raise BadInputError(f"session {session.session_id} is still running (pid {session.running_pid()})")
        if gate_mode is not None:  # `resume --gate`: a run started under a human gate may go on unattended
            meta.gate_mode = gate_mode
        self._check_gate_can_ask(meta.gate_mode)
        present = {key for key in TYPED_ARTIFACTS if session.file(f"{key}.json").exists()}
        bus = KnowledgeBus.load(session.session_id, session.path)
        lost = sorted(key for key in present if bus.get(key) is None)  # damaged, moved aside
        spec = bus.get(INPUT_SPEC)
        if spec is None:
            # session.json holds everything the input spec said
            spec = InputSpec(
                mode=meta.mode,
                statement=meta.statement,
                paper_ids=meta.paper_ids,
                domain=meta.domain,
                budget_usd=meta.budget_usd,
                gate_mode=known_gate_mode(meta.gate_mode),
                output_dir=meta.output_dir,
            )
            bus.put(INPUT_SPEC, spec)
        self.prepare_backend()
        self.check_budget(budget_usd if budget_usd is not None else meta.budget_usd)
        plugins = self._plugins if self._plugins is not None else discover_plugins()
        pipeline = bus.get_pipeline() or self._initial_pipeline()
        self.graph.complete(pipeline, self._stage_impls())  # a stage registered since it ran
        plan_resume(
            session,
            bus,
            pipeline,
            self._stage_impls(),
            [k for k in lost if k not in ("input_spec", "pipeline")],
            self.graph,
        )
        if budget_usd is not None:
            meta.budget_usd = budget_usd
        session.clear_pause()
        meta.status = "running"
        meta.status_reason = ""
        session.save_meta(meta)
        try:
            session.event("session_resumed")
            return await self._drive(session, meta, bus, spec, plugins, resume=True)
        except StorageError as exc:
            raise _with_session(exc, session) from None

    # ------------------------------------------------------------------------------------------
    # the pipeline
    # ------------------------------------------------------------------------------------------
    def _budget(self, spec: InputSpec) -> float | None:
        return spec.budget_usd if spec.budget_usd is not None else self.settings.eurekaclaw_budget_usd

    def _stage_impls(self) -> dict[str, Stage | None]:
        if self._stages is None:
            self._stages = load_stages(self.graph)
        return self._stages

    def _initial_pipeline(self) -> PipelineState:
        return self.graph.new_pipeline(self._stage_impls())

    def _session_run(
        self,
        session: SessionDir,
        meta: SessionMeta,
        bus: KnowledgeBus,
        spec: InputSpec,
        plugin: DomainPlugin | None,
        *,
        resume: bool,
    ) -> SessionRun:
        """The session in progress, with the agents' events and usage wired to the session log
        and the live display."""
        ui = self.ui
        ui.record_to(session.event)  # its model calls go to the session log beside these events

        def on_event(kind: str, **data: Any) -> None:
            session.event(kind, **data)
            if kind == "lemma":
                ui.set_theory(bus.get_theory_state())
            ui.event(kind, **data)

        def on_usage(ledger: UsageLedger) -> None:
            ui.usage(ledger.total.input_tokens + ledger.total.output_tokens, ledger.cost if ledger.cost_known else None)

        ctx = build_context(
            settings=self.settings,
            workspace=self.workspace,
            session=session,
            bus=bus,
            backend=self._backend,  # type: ignore[arg-type]
            budget_usd=meta.budget_usd,
            domain=meta.domain,
            plugin=plugin,
            statement=spec.statement,
            events=on_event,
            on_usage=on_usage,
            review_backend=self._review_backend,
        )
        pipeline: PipelineState = bus.get_pipeline()  # type: ignore[assignment]
        return SessionRun(
            ctx=ctx,
            session=session,
            pipeline=pipeline,
            spec=spec,
            events=on_event,
            gate_mode=meta.gate_mode,
            resume=resume,
        )

    async def _run_stages(self, run: SessionRun) -> None:
        """The declared graph from where the pipeline stands (interpreter.py); a gate may pause
        (PauseRequested)."""
        runner = StageRunner(self.ui, self._stage_impls(), self.graph)
        interpreter = GraphInterpreter(
            self.graph, runner, self.ui, lambda name, previous: self._gate(run.gate_mode, name, previous)
        )
        await interpreter.run(run)

    async def _drive(
        self,
        session: SessionDir,
        meta: SessionMeta,
        bus: KnowledgeBus,
        spec: InputSpec,
        plugins: dict[str, DomainPlugin],
        *,
        resume: bool,
    ) -> ResearchOutput:
        ui = self.ui
        run = self._session_run(session, meta, bus, spec, plugins.get(meta.domain), resume=resume)
        pipeline = run.pipeline
        session.mark_running()
        ui.start(session.session_id, f"{spec.mode} [{meta.domain}] via {meta.backend} ({meta.model})")
        ui.set_pipeline(pipeline)
        ui.set_theory(bus.get_theory_state())
        stop_status: SessionStatus | None = None
        stop_reason = ""
        try:
            await self._run_stages(run)
        except PauseRequested:
            stop_status, stop_reason = "paused", "paused at a checkpoint"
        except BudgetExceededError as exc:
            stop_status, stop_reason = "budget_exceeded", exc.message
        except asyncio.CancelledError:
            stop_status, stop_reason = "interrupted", "interrupted by Ctrl+C"
        except LLMAuthError as exc:
            stop_status, stop_reason = "failed", exc.message
            meta.status, meta.status_reason = "failed", exc.message
            self._finish(run, meta)
            raise
        except StorageError as exc:
            # The disk is full or read-only: record what can still be recorded, and say which
            # path failed and how to go on. The last checkpoint stays valid, so it is resumable.
            meta.status, meta.status_reason = "interrupted", exc.message
            with contextlib.suppress(OSError):
                session.save_meta(meta)
            with contextlib.suppress(OSError):
                session.event("session_stopped", status="interrupted", reason=exc.message)
            raise exc.for_session(session.session_id) from None
        finally:
            ui.set_pipeline(pipeline)
            ui.stop()
            session.mark_stopped()
            for backend in (self._backend, self._review_backend):
                closer = getattr(backend, "aclose", None)
                if closer is not None:
                    with contextlib.suppress(Exception):
                        await closer()

        if stop_status is not None:
            meta.status = stop_status
            meta.status_reason = stop_reason
            self._finish(run, meta)
            hint = f"resume with `eurekaclaw resume {session.session_id}`"
            if stop_status == "budget_exceeded":
                raise BudgetExceededError(f"{stop_reason}; session {session.session_id} saved", hint=hint)
            if stop_status == "interrupted":
                raise asyncio.CancelledError()
            raise RunInterrupted(f"session {session.session_id} paused", hint=hint)

        theory = bus.get_theory_state()
        meta.status, meta.status_reason = session_status(pipeline, theory, bus.get(PAPER))
        if theory is None and any(session.path.glob("theory_state.json.corrupt-*")):
            # a theorem was formalized but is gone (damaged file): never a success
            meta.status = "failed"
            meta.status_reason = (
                "the theory state is missing (theory_state.json damaged?); "
                f"`eurekaclaw resume {session.session_id}` re-runs Formalize and Theory"
            )
        return self._finish(run, meta)

    def _check_gate_can_ask(self, mode: str | None) -> None:
        """A human gate with no one to answer would wait forever: refuse at the start instead."""
        if mode == "human" and not self.ui.can_ask():
            raise BadInputError(
                "--gate human needs a terminal to answer on (stdin is not one); use --gate auto or --gate none"
            )

    def _gate(self, mode: str, name: str, previous: StageRecord | None) -> bool:
        if previous is None or mode == "none":
            return True
        if mode == "auto" and previous.status != "failed":
            return True
        if mode == "auto" and not self.ui.can_ask():
            # unattended: the auto rule continues after a failed stage, and says so
            self.ui.line(f"gate auto: {previous.name} {previous.status}; no terminal to ask, continuing to {name}")
            return True
        note = f" ({previous.name} {previous.status}: {previous.reason})" if previous.reason else ""
        return self.ui.confirm(f"Continue to stage {name}?{note}")

    def _finish(self, run: SessionRun, meta: SessionMeta) -> ResearchOutput:
        session, bus, pipeline = run.session, run.bus, run.pipeline
        ledger = run.ctx.llm.ledger
        theory = bus.get_theory_state()
        meta.cost_usd = round(ledger.cost, 6)
        meta.theory_status = theory.status if theory else None
        session.save_meta(meta)
        session.save_checkpoint({"stage": self._next_stage(pipeline), "status": meta.status})
        session.event("session_stopped", status=meta.status, reason=meta.status_reason)
        files: list[str] = []
        if meta.output_dir:
            files = copy_outputs(session, Path(meta.output_dir))
        return ResearchOutput(
            session_id=session.session_id,
            status=meta.status,
            status_reason=meta.status_reason,
            theory_status=meta.theory_status,
            theory_reason=theory.status_reason if theory else "",
            weakest_level=theory.weakest_level() if theory and theory.proven_lemmas else None,
            self_reviewed=sum(
                1 for r in theory.proven_lemmas.values() if r.self_review and r.verification_level == "reviewed"
            )
            if theory
            else 0,
            stages=pipeline.stages,
            cost_usd=meta.cost_usd,
            llm_calls=ledger.calls,
            session_dir=str(session.path),
            output_dir=meta.output_dir,
            files=files,
        )

    @staticmethod
    def _next_stage(pipeline: PipelineState) -> str | None:
        for rec in pipeline.stages:
            if rec.status not in ("completed", "skipped", "absent", "failed"):
                return rec.name
        return None
