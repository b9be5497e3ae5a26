"""Run one bench session and read back what it produced.

`run_one` is a plain function of a `RunSpec` (a dict on the wire), so the same code runs in
this process, in a local worker process and in a Ray task. It never raises for a failed
session: an error is a record with verdict `undecided` and the error's one line.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from eurekaclaw.bench.models import RunRecord, RunSpec, classify
from eurekaclaw.bench.timing import Stopwatch, breakdown, cpu_now
from eurekaclaw.orchestrator.progress import RunUI

log = logging.getLogger(__name__)


class StageClock(RunUI):
    """The bench's quiet display: it also notes the CPU clock at every stage event."""

    def __init__(self) -> None:
        super().__init__(live=False, quiet=True)
        self.marks: list[tuple[str, str, float]] = []  # (stage, status, cpu seconds)

    def event(self, kind: str, **data: Any) -> None:
        if kind == "stage" and data.get("name"):
            self.marks.append((str(data["name"]), str(data.get("status") or ""), cpu_now()))
        super().event(kind, **data)


def _read(path: Path) -> Any:
    """A session file for reading only (never moved aside: the session owns its files)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _tokens(row: dict[str, Any]) -> int:
    return sum(
        int(row.get(k) or 0) for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    )


def _usage(session_dir: Path) -> dict[str, Any]:
    usage = _read(session_dir / "usage.json")
    if isinstance(usage, dict) and "calls" in usage:
        return usage
    if (session_dir / "llm_log.jsonl").exists():
        # usage.json is derived data; the ledger rebuilds it from the log of every call
        from eurekaclaw.llm.ledger import UsageLedger

        return UsageLedger(session_dir / "usage.json").snapshot()
    return {}


def llm_for_run(llm: str | None, seed: int) -> str | None:
    """A seedable test model without a seed gets the run's seed, so repetitions differ and a
    re-run repeats them."""
    if llm is not None and llm.strip().lower() == "schema":
        return f"schema:{seed}"
    return llm


def collect(record: RunRecord, session_dir: Path) -> RunRecord:
    """Fill a record from a session directory. A missing or unreadable theory state leaves the
    run undecided, whatever session.json says."""
    from eurekaclaw.types.artifacts import TheoryState

    record.session_dir = str(session_dir)
    record.session_id = session_dir.name
    meta = _read(session_dir / "session.json") or {}
    record.session_status = str(meta.get("status") or "unknown")
    record.model = str(meta.get("model") or record.model)
    theory = None
    raw = _read(session_dir / "theory_state.json")
    if raw is not None:
        try:
            theory = TheoryState.model_validate(raw)
        except ValueError:
            record.reason = "theory_state.json does not validate"
    if theory is not None:
        from eurekaclaw.theory_view import theorem_status

        # the status every surface shows: a self-reviewed theorem or a narrower claim is not "proved"
        record.theory_status = theorem_status(theory)
        record.reason = record.reason or theory.status_reason
        record.lemmas = len(theory.lemma_dag)
        record.proven_lemmas = len(theory.proven_lemmas)
        record.refinement_cycles = len(theory.failed_attempts)
        record.counterexamples = len(theory.counterexamples)
        record.weakest_level = theory.weakest_level() if theory.proven_lemmas else None
    elif not record.reason:
        record.reason = str(meta.get("status_reason") or "no theory state (formalization did not finish)")
    usage = _usage(session_dir)
    record.llm_calls = int(usage.get("calls") or 0)
    record.tokens = _tokens(usage.get("total") or {})
    record.tokens_by_stage = {k: _tokens(v) for k, v in (usage.get("by_stage") or {}).items()}
    known = bool(usage.get("cost_known", True))
    record.cost_usd = float(usage.get("cost_usd") or 0.0) if known else None
    record.cost_by_stage = (
        {k: float(v.get("cost_usd") or 0.0) for k, v in (usage.get("by_stage") or {}).items()} if known else {}
    )
    report = _read(session_dir / "eval_report.json")
    if isinstance(report, dict) and isinstance(report.get("total"), int | float):
        record.eval_total = float(report["total"])
    return record


def timeout_reason(seconds: float) -> str:
    return f"session timeout: stopped after {seconds:g} s (--session-timeout); counted undecided"


@contextlib.contextmanager
def isolated() -> Iterator[None]:
    """A session leaves the process as it found it: environment and working directory. A worker
    process runs many sessions, and what one sets must not reach the next."""
    env, cwd = dict(os.environ), os.getcwd()
    try:
        yield
    finally:
        for key in set(os.environ) - set(env):
            del os.environ[key]
        for key, value in env.items():
            if os.environ.get(key) != value:
                os.environ[key] = value
        with contextlib.suppress(OSError):
            os.chdir(cwd)


def _new_record(spec: RunSpec, worker: str) -> RunRecord:
    return RunRecord(
        run_id=spec.run_id,
        config=spec.config.label,
        problem_id=spec.problem.id,
        problem_set=spec.problem.set_name,
        truth=spec.problem.truth,
        repetition=spec.repetition,
        seed=spec.seed,
        budget_usd=spec.budget_usd,
        budget_tokens=spec.budget_tokens,
        worker=worker,
    )


def killed_record(spec_data: dict[str, Any], elapsed_s: float, worker: str = "killed") -> dict[str, Any]:
    """The record of a session whose worker was killed at its wall limit: undecided, with what
    its files say about where the time went. Its session is the one in its home that was
    written to during the run (a shared home may hold others)."""
    spec = RunSpec.model_validate(spec_data)
    record = _new_record(spec, worker)
    record.timed_out, record.wall_s = True, round(elapsed_s, 3)
    runs = Path(spec.home) / "runs"
    since = time.time() - elapsed_s - 1.0
    recent = [d for d in runs.glob("*") if d.is_dir() and d.stat().st_mtime >= since] if runs.is_dir() else []
    session_dir = recent[0] if len(recent) == 1 else None
    if session_dir is not None:
        collect(record, session_dir)
    record.timing = breakdown(session_dir, _read(session_dir / "theory_state.json") if session_dir else None, [])
    return finish(record, spec).model_dump(mode="json")


def run_one(spec_data: dict[str, Any] | RunSpec) -> dict[str, Any]:
    """Run one session; return its RunRecord as a dict."""
    spec = spec_data if isinstance(spec_data, RunSpec) else RunSpec.model_validate(spec_data)
    record = _new_record(spec, f"{socket.gethostname()}:{os.getpid()}")
    watch = Stopwatch()
    created: list[Any] = []
    clock = StageClock()
    try:
        with isolated():
            _run_session(spec, created, clock)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - one failed run must not end the bench
        # wait_for's TimeoutError, not one from inside the session that escaped it
        if isinstance(exc, TimeoutError) and spec.timeout_s is not None and watch.read()[0] >= spec.timeout_s:
            record.timed_out = True
        else:
            from eurekaclaw.errors import EurekaError

            record.error = exc.user_message() if isinstance(exc, EurekaError) else f"{type(exc).__name__}: {exc}"
            record.session_status = "error"
            log.debug("bench run %s failed", spec.run_id, exc_info=True)
    finally:
        record.wall_s, record.cpu_s = watch.read()
    session_dir = Path(created[-1].path) if created else None
    if session_dir is not None:
        collect(record, session_dir)
        if record.error and record.session_status not in ("budget_exceeded", "interrupted", "paused"):
            record.session_status = "error"
    record.timing = breakdown(
        session_dir, _read(session_dir / "theory_state.json") if session_dir else None, clock.marks
    )
    return finish(record, spec).model_dump(mode="json")


def finish(record: RunRecord, spec: RunSpec) -> RunRecord:
    """The verdict, failing closed: a timed-out session is undecided whatever its files say."""
    if record.timed_out:
        record.reason = timeout_reason(spec.timeout_s or record.wall_s)
        record.session_status = "timed_out"
    if record.error and not record.reason:
        record.reason = record.error
    record.verdict, record.correct, record.false_proved, record.true_refuted = classify(
        record.truth, None if record.timed_out else record.theory_status
    )
    return record


def _run_session(spec: RunSpec, created: list[Any], clock: StageClock) -> None:
    from eurekaclaw.config import load_settings
    from eurekaclaw.orchestrator.meta import MetaOrchestrator
    from eurekaclaw.types.tasks import InputSpec

    home = Path(spec.home)
    home.mkdir(parents=True, exist_ok=True)
    overrides = dict(spec.config.settings)
    overrides.update(eurekaclaw_dir=home, gate_mode="none")
    if spec.budget_tokens is not None:
        overrides["eurekaclaw_budget_tokens"] = spec.budget_tokens
    settings = load_settings(**overrides)
    random.seed(spec.seed)
    orchestrator = MetaOrchestrator(
        settings,
        llm_override=llm_for_run(spec.config.llm, spec.seed),
        review_llm_override=llm_for_run(spec.config.review_llm, spec.seed + 1),
        ui=clock,
    )
    # the session this run creates, whoever else writes into a shared home meanwhile
    new_session = orchestrator.workspace.new_session

    def capture(*args: Any, **kwargs: Any) -> Any:
        session = new_session(*args, **kwargs)
        created.append(session)
        return session

    orchestrator.workspace.new_session = capture  # type: ignore[method-assign]
    problem = spec.problem
    spec_in = InputSpec(
        mode="prove", statement=problem.statement, domain=problem.domain, budget_usd=spec.budget_usd, gate_mode="none"
    )
    # the orchestrator checkpoints and marks the session interrupted when cancelled; wait_for
    # then raises TimeoutError
    asyncio.run(asyncio.wait_for(orchestrator.run(spec_in), spec.timeout_s))
