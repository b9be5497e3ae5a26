"""ExperimentStage: test the theorem's quantitative claims numerically.

When it runs (EXPERIMENT_MODE): "false" never; "true" always; "auto" when some lemma has a
machine-checkable claim or the domain plugin offers simulators. Otherwise it records an
ExperimentResult with status "skipped" and the reason.

Domains with a simulator (plugin.experiment_stage_available() and plugin.experiment_backend()):
the ExperimentDesigner writes a declarative spec, the backend runs it (no model-written code),
and checks.py compares the curves with the bounds. Other domains: lemma claims get a numeric
violation rate by sampling, and when the code sandbox has real isolation (tools/code_exec.py,
bubblewrap available) the designer may write a small program whose JSON output is checked the
same way; without isolation, model-written code is not run and the reason is recorded.

Evidence: bound checks of the theorem's own bounds (the designer's spec or the model's code;
not the domain's default spec, used when the designer's was unusable) carry from_theorem=True.
Those that failed the 99% one-sided test are summarised in result.violations, one line per bound
and series (violations.py), and named in the summary and the events; the stage's transition
turns violations.worst_violation(result) into a Counterexample (evidence.py) and, once per
session, into a re-plan from Formalize.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
from typing import Any

from pydantic import ValidationError

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.experiment import report as _report
from eurekaclaw.agents.experiment.checks import alignment_score, run_checks
from eurekaclaw.agents.experiment.claims import violation_rate
from eurekaclaw.agents.experiment.designer import CodeExperiment, ExperimentDesigner, bound_sources
from eurekaclaw.agents.experiment.evidence import apply_experiment_evidence
from eurekaclaw.agents.experiment.expr import Compiled, ExpressionError, compile_expression
from eurekaclaw.agents.experiment.report import CSV_NAME, SimulationReport, csv_rows, render_csv
from eurekaclaw.agents.experiment.violations import apply_required, checked_metadata, violation_lines
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.agents.transitions import NEXT, Replan, Transition
from eurekaclaw.store.files import atomic_write_text
from eurekaclaw.tools import code_exec
from eurekaclaw.types.artifacts import ExperimentResult, TheoryState
from eurekaclaw.types.tasks import InputSpec

log = logging.getLogger(__name__)

MAX_SIMULATION_SECONDS = 900.0
CODE_CPU_SECONDS = 120
CODE_MEMORY_MB = 2048  # total for all the program's processes (sandbox/)
CODE_MAX_PROCS = 4  # so 512 MiB per process when no cgroup v2 enforces the total
CODE_MAX_OUTPUT_BYTES = 4_000_000  # stdout beyond this is cut and reported, never parsed
MAX_VIOLATION_EVENTS = 10  # the result keeps every line; the event stream only the worst


def experiment_backend(ctx: AgentContext) -> Any | None:
    plugin = ctx.plugin
    if plugin is None or not plugin.experiment_stage_available():
        return None
    factory = getattr(plugin, "experiment_backend", None)
    return factory() if callable(factory) else None


def skip_reason(mode: str, theory: TheoryState, has_simulator: bool, domain: str) -> str | None:
    if mode == "false":
        return "EXPERIMENT_MODE=false: experiments are turned off"
    if mode == "auto" and not has_simulator and not any(n.claim for n in theory.lemma_dag.values()):
        return f"EXPERIMENT_MODE=auto: no lemma has a machine-checkable claim and domain {domain!r} offers no simulator"
    return None


class ExperimentStage(Stage):
    name = "experiment"
    needs = ("theory_state",)
    produces = ("experiment_result",)
    rerunnable = True
    pivot_point = True  # a refuted or abandoned theory needs no experiment

    @classmethod
    def transition(cls, ctx: AgentContext, spec: InputSpec) -> Transition:
        """The evidence on the theorem: a violated bound contradicts it, and once per session a
        theorem that had been proved is formalized again with the violation in view."""
        verdict = apply_experiment_evidence(ctx.bus, replans_allowed=ctx.settings.theory_max_replans > 0)
        if verdict == "none":
            return NEXT
        theory = ctx.bus.get_theory_state()
        ctx.events("theory", state="contradicted", message=theory.status_reason if theory else "")
        if verdict == "replan":
            return Replan("formalize", "re-run: the experiment contradicted the theorem")
        return NEXT

    def missing_inputs(self, ctx: AgentContext, spec: InputSpec) -> str | None:
        theory = ctx.bus.get_theory_state()
        if theory is None or not theory.lemma_dag:
            return "no formalized theorem to test: the Formalize stage produced no lemma DAG"
        return None

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        theory = ctx.bus.get_theory_state()
        if theory is None:
            return StageOutcome(status="skipped", reason=self.missing_inputs(ctx, spec) or "")
        previous = ctx.bus.get_experiment_result()
        if resume and previous is not None and previous.status == "completed":
            return StageOutcome(status="completed", summary="experiment already done", reason=previous.reason)
        backend = experiment_backend(ctx)
        mode = ctx.settings.experiment_mode
        reason = skip_reason(mode, theory, backend is not None, ctx.domain)
        if reason:
            skipped = ExperimentResult(status="skipped", reason=reason, domain=ctx.domain)
            apply_required(previous, theory, skipped)  # a violated bound stays violated, run or not
            ctx.bus.put_experiment_result(skipped)
            ctx.events("experiment", phase="skipped", reason=reason)
            return StageOutcome(status="skipped", reason=reason)

        result = ExperimentResult(domain=ctx.domain)
        designer = ExperimentDesigner(ctx)
        ctx.events("experiment", phase="start", mode=mode, simulator=backend is not None)
        if backend is not None:
            report = await self._simulate(ctx, designer, theory, backend, result)
        else:
            report = await self._code_experiment(ctx, designer, theory, result)
        if report is not None:
            self._check(ctx, report, result)
        self._claims(theory, result)
        apply_required(previous, theory, result)  # earlier violations on this statement, re-checked
        return self._finish(ctx, result)

    # --- domains with a simulator ------------------------------------------------------------
    async def _simulate(
        self,
        ctx: AgentContext,
        designer: ExperimentDesigner,
        theory: TheoryState,
        backend: Any,
        result: ExperimentResult,
    ) -> SimulationReport | None:
        ctx.events("experiment", phase="design")
        design = await designer.design_spec(theory, backend)
        result.notes.extend(design.notes)  # internals: the record keeps them, the paper never shows them
        result.spec = {"source": design.source, **design.spec.model_dump(mode="json")}
        result.spec["bound_sources"] = bound_sources(backend, design.spec)
        ctx.events("experiment", phase="simulate", source=design.source)
        raw = await self._in_thread(ctx, backend.run, design.spec)
        if isinstance(raw, str):
            result.status, result.reason = "failed", raw
            return None
        return self._validate(raw, result)

    async def _in_thread(self, ctx: AgentContext, fn: Any, *args: Any) -> Any:
        """Run fn(*args, progress, should_stop) in a worker thread; a string means it failed.
        Cancellation (Ctrl+C) sets the stop flag so the simulation ends at its next check."""
        loop = asyncio.get_running_loop()
        stop = threading.Event()
        deadline = time.monotonic() + MAX_SIMULATION_SECONDS

        def progress(phase: str, data: dict[str, Any]) -> None:
            loop.call_soon_threadsafe(functools.partial(ctx.events, "experiment", phase=phase, **data))

        def should_stop() -> bool:
            return stop.is_set() or time.monotonic() > deadline

        try:
            return await asyncio.to_thread(functools.partial(fn, *args, progress, should_stop))
        except asyncio.CancelledError:
            stop.set()
            raise
        except Exception as exc:  # a simulator failure is recorded in the result, not a crash
            log.warning("experiment simulation failed: %s", exc)
            timed_out = time.monotonic() > deadline
            return f"simulation {'exceeded ' + str(int(MAX_SIMULATION_SECONDS)) + ' s' if timed_out else 'failed'}: {type(exc).__name__}: {exc}"

    @staticmethod
    def _validate(raw: Any, result: ExperimentResult) -> SimulationReport | None:
        try:
            report = SimulationReport.model_validate(raw)
        except ValidationError as exc:
            result.status, result.reason = "failed", f"the simulation report is malformed: {exc.errors()[0]['msg']}"
            return None
        result.notes.extend(report.notes)
        return report

    # --- domains without a simulator ---------------------------------------------------------
    async def _code_experiment(
        self, ctx: AgentContext, designer: ExperimentDesigner, theory: TheoryState, result: ExperimentResult
    ) -> SimulationReport | None:
        isolation = await asyncio.to_thread(code_exec.detect_isolation)
        if isolation == "none":
            reason = code_exec.sandbox_reason()
            result.notes.append(reason)
            if not result.reason:
                result.reason = reason
            ctx.events("experiment", phase="code_skipped", reason=reason)
            return None
        error = ""
        for attempt in (1, 2):  # one repair round with the error of the first program
            ctx.events("experiment", phase="design_code", attempt=attempt)
            plan = await designer.design_code(
                theory, cpu_seconds=CODE_CPU_SECONDS, memory_mb=CODE_MEMORY_MB // CODE_MAX_PROCS, previous_error=error
            )
            if plan is None:
                result.notes.append("the designer's code experiment reply was unusable")
                return None
            if not plan.code.strip():
                result.notes.append(f"no code experiment: {plan.rationale or 'nothing quantitative to simulate'}")
                return None
            result.spec = {
                "source": "code",
                "rationale": plan.rationale,
                "code": plan.code,
                "variables": plan.variables,
                "bounds": [b.model_dump() for b in plan.bounds],
            }
            ctx.events("experiment", phase="run_code", attempt=attempt)
            try:
                run = await asyncio.to_thread(
                    code_exec.run_python,
                    plan.code,
                    timeout_s=CODE_CPU_SECONDS * 1.5,
                    cpu_s=CODE_CPU_SECONDS,
                    memory_mb=CODE_MEMORY_MB,
                    max_procs=CODE_MAX_PROCS,
                    max_output_bytes=CODE_MAX_OUTPUT_BYTES,
                )
            except code_exec.SandboxUnavailable as exc:
                result.notes.append(str(exc))
                return None
            result.notes.extend(w for w in run.warnings if w not in result.notes)
            report, error = self._code_report(plan, run)
            if report is not None:
                result.notes.extend(report.notes)
                return report
        result.notes.append(f"code experiment failed twice; last error: {error}")
        return None

    @staticmethod
    def _code_report(plan: CodeExperiment, run: code_exec.ExecResult) -> tuple[SimulationReport | None, str]:
        if not run.ok:
            why = f"limit {run.limit} reached" if run.limit else (run.json_error or f"exit code {run.returncode}")
            return None, f"{why}\n{run.stderr[-2000:]}"
        if not isinstance(run.result, dict) or "series" not in run.result:
            return None, 'the program must print one JSON object with a "series" list'
        names = [s.get("name") for s in run.result.get("series", []) if isinstance(s, dict)]
        raw = {
            "series": run.result["series"],
            "variables": {"": plan.variables},
            "bounds": [{**b.model_dump(), "series": b.series or names} for b in plan.bounds],
        }
        try:
            return SimulationReport.model_validate(raw), ""
        except ValidationError as exc:
            return None, f"output does not match the format: {exc.errors()[0]['msg']}"

    # --- checks and the result ------------------------------------------------------------------
    @staticmethod
    def _compile(report: SimulationReport, result: ExperimentResult) -> dict[str, Compiled]:
        compiled = {}
        for bound in report.bounds:
            names = {"T"} | {k for s in report.series for k in report.variables_for(s)}
            try:
                compiled[bound.name] = compile_expression(bound.expression, names, relation=False)
            except ExpressionError as exc:
                result.notes.append(f"bound {bound.name} not checked: {exc}")
        return compiled

    def _check(self, ctx: AgentContext, report: SimulationReport, result: ExperimentResult) -> None:
        found = run_checks(report, self._compile(report, result))
        # The default spec tests the domain's reference bound, not this theorem: its failures
        # are no evidence against the theorem.
        from_theorem = result.spec.get("source") != "default"
        # A named literature bound the designer added for comparison (`known`, tied to no
        # lemma) is not the theorem's claim either: on an instance outside its hypotheses it
        # may fail while the theorem holds.
        reference = {
            b.get("name")
            for b in result.spec.get("bounds", []) or []
            if isinstance(b, dict) and b.get("known") and not b.get("lemma_id")
        }
        for check in found["bound_checks"]:
            check.from_theorem = from_theorem and check.name.split("@", 1)[0] not in reference
        for fit in found["rate_fits"]:
            fit["from_theorem"] = from_theorem and str(fit.get("bound", "")) not in reference
        result.bound_checks = found["bound_checks"]
        result.rate_fits = found["rate_fits"]
        result.claim_violation_rates.update(found["lemma_rates"])
        result.notes.extend(found["notes"])
        result.notes.extend(_report.outcome_lines(report))
        result.spec["checked"] = checked_metadata(report)
        result.violations = violation_lines(result)
        text = render_csv(csv_rows(report, found["curves"]))
        if ctx.session is not None:
            atomic_write_text(ctx.session.path / CSV_NAME, text)
            result.plot_csv = CSV_NAME
        else:
            result.notes.append("no session directory: plot data not saved")
        held = sum(c.held for c in result.bound_checks)
        ctx.events(
            "experiment",
            phase="checked",
            bound_checks=len(result.bound_checks),
            held=held,
            rate_fits=len(result.rate_fits),
            violations=len(result.violations),
        )
        for line in result.violations[:MAX_VIOLATION_EVENTS]:
            ctx.events("experiment", phase="violation", detail=line)

    @staticmethod
    def _claims(theory: TheoryState, result: ExperimentResult) -> None:
        for i, node in enumerate(theory.lemma_dag.values()):
            if node.claim is None or node.id in result.claim_violation_rates:
                continue
            rate, detail = violation_rate(node.claim, seed=i)
            if rate is None:
                result.notes.append(f"lemma {node.id}: claim {detail}")
            else:
                result.claim_violation_rates[node.id] = rate
                result.notes.append(f"lemma {node.id}: claim sampled, {detail}")

    @staticmethod
    def _finish(ctx: AgentContext, result: ExperimentResult) -> StageOutcome:
        checked = bool(result.bound_checks or result.rate_fits or result.claim_violation_rates)
        if result.status != "failed":
            result.status = "completed" if checked else "skipped"
            if not checked and not result.reason:
                result.reason = "nothing could be checked numerically: " + ("; ".join(result.notes[-2:]) or "no data")
        elif checked:
            result.notes.append(f"simulation failed ({result.reason}); claim sampling results kept")
        # Alignment with the theorem: checks of the domain's default spec say nothing about it.
        result.alignment_score = alignment_score(
            [c for c in result.bound_checks if c.from_theorem],
            [f for f in result.rate_fits if f.get("from_theorem")],
            result.claim_violation_rates,
        )
        ctx.bus.put_experiment_result(result)
        n_violated = len(result.violations)
        ctx.events(
            "experiment", phase="done", status=result.status, alignment=result.alignment_score, violations=n_violated
        )
        held = sum(c.held for c in result.bound_checks)
        summary = (
            f"{held}/{len(result.bound_checks)} bound checks held, "
            f"{sum(bool(f['consistent']) for f in result.rate_fits)}/{len(result.rate_fits)} rate fits consistent, "
            f"alignment {result.alignment_score if result.alignment_score is not None else 'n/a'}"
        )
        if n_violated:
            summary = f"{n_violated} theorem bound{'s' if n_violated != 1 else ''} violated; " + summary
        if result.spec.get("source") == "default":
            # the designer's spec was unusable: these checks test the domain's reference bound
            summary = "default spec, not this theorem's bounds: " + summary
        # an experiment's statuses are a subset of a stage's: passed on as they are
        return StageOutcome(
            status=result.status, summary=summary if result.status == "completed" else "", reason=result.reason
        )
