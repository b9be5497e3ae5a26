"""The bench: plan every (configuration, problem, repetition) run, run them on an executor within
the budgets, append each record to results.jsonl as it finishes, and write the summary.

The bench folder holds everything: bench.json (what was asked, with versions, commit, settings
and seeds), results.jsonl, summary.json/.md/.csv, the plots, and homes/ with every session.
`--resume` re-reads bench.json and results.jsonl and runs only what is missing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from eurekaclaw.bench import manifest as manifest_mod
from eurekaclaw.bench.budget import BenchBudget
from eurekaclaw.bench.executors import make_executor
from eurekaclaw.bench.models import BenchConfig, RunRecord, RunSpec
from eurekaclaw.bench.problems import Problem
from eurekaclaw.bench.schedule import schedule
from eurekaclaw.errors import BadInputError
from eurekaclaw.store.files import append_jsonl, atomic_write_json, atomic_write_text

log = logging.getLogger(__name__)

MANIFEST = "bench.json"
RESULTS = "results.jsonl"


class BenchOptions(BaseModel):
    problem_sets: list[str]
    problems: list[Problem]
    configs: list[BenchConfig]
    repetitions: int = Field(default=1, ge=1, le=1000)
    seed: int = 0
    workers: int = Field(default=1, ge=1, le=256)
    ray_address: str | None = None
    budget_usd: float | None = Field(default=None, ge=0.0)
    budget_tokens: int | None = Field(default=None, ge=0)
    run_budget_usd: float | None = Field(default=None, ge=0.0)
    run_budget_tokens: int | None = Field(default=None, ge=0)
    session_timeout_s: float | None = Field(default=None, gt=0.0)
    costs_from: list[str] = Field(default_factory=list)  # earlier bench folders: expected run times


class BenchOutcome(BaseModel):
    bench_dir: str
    records: list[RunRecord]
    summary: dict[str, Any]
    not_run: int = 0
    stop_reason: str = ""


def new_bench_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


def run_seed(base: int, problem_id: str, repetition: int) -> int:
    """The same seed for a problem and repetition in every configuration: runs pair up."""
    digest = hashlib.sha256(f"{base}:{problem_id}:{repetition}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def plan(options: BenchOptions, bench_dir: Path) -> list[RunSpec]:
    specs = []
    for config in options.configs:
        for rep in range(1, options.repetitions + 1):
            for problem in options.problems:
                home = bench_dir / "homes" / config.label
                if not config.shared_memory:
                    home = home / f"{problem.id}-r{rep}"
                specs.append(
                    RunSpec(
                        run_id=f"{config.label}/{problem.id}/{rep}",
                        config=config,
                        problem=problem,
                        repetition=rep,
                        seed=run_seed(options.seed, problem.id, rep),
                        home=str(home),
                    )
                )
    return specs


def read_results(bench_dir: Path) -> list[RunRecord]:
    """Finished runs; a line torn by a crash is skipped (that run is simply run again)."""
    path = bench_dir / RESULTS
    records: dict[str, RunRecord] = {}
    if not path.exists():
        return []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            record = RunRecord.model_validate_json(line)
        except ValueError:
            log.warning("%s: skipped an unreadable line", path)
            continue
        records[record.run_id] = record
    return list(records.values())


def build_manifest(options: BenchOptions, bench_id: str) -> dict[str, Any]:
    configs = []
    for config in options.configs:
        data = config.model_dump(mode="json")
        data["effective_settings"] = manifest_mod.effective_settings(dict(config.settings))
        configs.append(data)
    return {
        "bench_id": bench_id,
        "created_at": datetime.now(UTC).isoformat(),
        "git": (git := manifest_mod.git_commit()),
        "git_commit": git.get("commit"),
        "versions": manifest_mod.versions(),
        "machine": manifest_mod.machine(),
        "options": options.model_dump(mode="json", exclude={"problems", "configs"}),
        "configs": configs,
        "problems": [p.model_dump(mode="json") for p in options.problems],
        "repetitions": options.repetitions,
        "seed": options.seed,
        "models": {},
    }


def load_manifest(bench_dir: Path) -> dict[str, Any]:
    try:
        data = json.loads((bench_dir / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInputError(f"{bench_dir} is not a bench folder (no {MANIFEST})") from None
    except (OSError, ValueError) as exc:
        raise BadInputError(f"cannot read {bench_dir / MANIFEST}: {exc}") from None
    if not isinstance(data, dict) or "options" not in data:
        raise BadInputError(f"{bench_dir / MANIFEST} is not a bench manifest")
    return data


def options_from_manifest(data: dict[str, Any], **overrides: Any) -> BenchOptions:
    fields = dict(data["options"])
    fields.update({k: v for k, v in overrides.items() if v is not None})
    return BenchOptions(
        problems=data["problems"],
        configs=[
            BenchConfig.model_validate({k: v for k, v in c.items() if k != "effective_settings"})
            for c in data["configs"]
        ],
        **fields,
    )


def preflight(options: BenchOptions) -> None:
    """Every configuration's backend and budget are checked before the first run, so a typo in
    --llm or a missing key is one line and exit 2/3, not N failed runs."""
    import asyncio
    import contextlib

    from eurekaclaw.bench.session_run import llm_for_run
    from eurekaclaw.config import load_settings
    from eurekaclaw.orchestrator.meta import MetaOrchestrator

    for config in options.configs:
        settings = load_settings(**{**config.settings, "gate_mode": "none"})
        orchestrator = MetaOrchestrator(
            settings, llm_override=llm_for_run(config.llm, 0), review_llm_override=llm_for_run(config.review_llm, 1)
        )
        backend, _ = orchestrator.prepare_backend()
        try:
            if options.run_budget_usd is not None or options.budget_usd is not None:
                orchestrator.check_budget(
                    options.run_budget_usd if options.run_budget_usd is not None else options.budget_usd
                )
        finally:
            for client in (backend, orchestrator.prepare_review_backend()):
                closer = getattr(client, "aclose", None)  # each run builds its own clients
                if closer is not None:
                    with contextlib.suppress(Exception):
                        asyncio.run(closer())


def run_bench(
    options: BenchOptions,
    bench_dir: Path,
    *,
    resume: bool = False,
    on_record: Callable[[RunRecord, int, int], None] | None = None,
) -> BenchOutcome:
    if resume:
        manifest = load_manifest(bench_dir)
        # a resumed bench may run on other code: each continuation is on the record
        manifest.setdefault("resumes", []).append(
            {
                "at": datetime.now(UTC).isoformat(),
                "git": manifest_mod.git_commit(),
                "versions": manifest_mod.versions(),
                "options": options.model_dump(
                    mode="json",
                    include={
                        "workers",
                        "ray_address",
                        "budget_usd",
                        "budget_tokens",
                        "run_budget_usd",
                        "run_budget_tokens",
                        "session_timeout_s",
                    },
                ),
            }
        )
    elif (bench_dir / MANIFEST).exists():
        raise BadInputError(f"{bench_dir} already holds a bench; use --resume {bench_dir} to continue it")
    started = time.monotonic()
    # the workers import the engine while the configuration is checked
    executor = make_executor(options.workers, options.ray_address)
    try:
        preflight(options)  # before anything is written: a bad configuration leaves no folder behind
        if not resume:
            manifest = build_manifest(options, bench_dir.name)
            bench_dir.mkdir(parents=True, exist_ok=True)
            atomic_write_json(bench_dir / MANIFEST, manifest)
        specs = plan(options, bench_dir)
        done = {r.run_id: r for r in read_results(bench_dir) if r.run_id in {s.run_id for s in specs}}
        todo = schedule([s for s in specs if s.run_id not in done], _history(bench_dir, options.costs_from))
    except BaseException:
        executor.close()
        raise
    budget = BenchBudget(options.budget_usd, options.budget_tokens, options.run_budget_usd, options.run_budget_tokens)
    for record in done.values():
        budget.spend(record.cost_usd, record.tokens)
    records = list(done.values())
    stop_reason = ""
    try:
        stop_reason = _drive(executor, todo, budget, options, bench_dir, records, len(specs), on_record)
    finally:
        executor.close()
        manifest.setdefault("executions", []).append(_execution(executor, options, started, len(records) - len(done)))
        summary = _write_reports(bench_dir, manifest, options, specs, records, stop_reason)
    return BenchOutcome(
        bench_dir=str(bench_dir),
        records=records,
        summary=summary,
        not_run=len(specs) - len(records),
        stop_reason=stop_reason,
    )


def _drive(
    executor: Any,
    todo: list[RunSpec],
    budget: BenchBudget,
    options: BenchOptions,
    bench_dir: Path,
    records: list[RunRecord],
    planned: int,
    on_record: Callable[[RunRecord, int, int], None] | None,
) -> str:
    """Keep the executor full in schedule order within the budgets; record each run as it ends.
    Returns why it stopped early ("" when every run was started)."""
    stop_reason = ""
    inflight: dict[Any, RunSpec] = {}
    while todo or inflight:
        while todo and len(inflight) < executor.capacity and not stop_reason:
            allot = budget.allot(todo[0].run_id, len(todo))
            if allot is None:
                stop_reason = budget.exhausted_reason()
                break
            spec = todo.pop(0).model_copy(
                update={"budget_usd": allot.usd, "budget_tokens": allot.tokens, "timeout_s": options.session_timeout_s}
            )
            inflight[executor.submit(spec.model_dump(mode="json"))] = spec
        if not inflight:
            break
        for handle, data, error in executor.wait_any(list(inflight)):
            spec = inflight.pop(handle)
            record = _record(spec, data, error)
            budget.settle(spec.run_id, record.cost_usd, record.tokens)
            append_jsonl(bench_dir / RESULTS, record.model_dump(mode="json"))
            records.append(record)
            if on_record is not None:
                on_record(record, len(records), planned)
    return stop_reason


def _history(bench_dir: Path, costs_from: list[str]) -> list[RunRecord]:
    """Earlier runs whose times predict this bench's: this folder's and the named folders'."""
    history = list(read_results(bench_dir))
    for folder in costs_from:
        history.extend(read_results(Path(folder).expanduser()))
    return history


def _execution(executor: Any, options: BenchOptions, started: float, finished: int) -> dict[str, Any]:
    """One start (or resume) of the bench: where it ran, its workers' start-up, its wall time."""
    startups = list(getattr(executor, "startups", []))
    return {
        "at": datetime.now(UTC).isoformat(),
        "executor": executor.name,
        "workers": executor.capacity,
        "wall_s": round(time.monotonic() - started, 3),
        "runs_finished": finished,
        "session_timeout_s": options.session_timeout_s,
        "worker_startups": startups,
        "worker_startup_s_total": round(sum(float(s.get("startup_s") or 0.0) for s in startups), 3),
    }


def _write_reports(
    bench_dir: Path,
    manifest: dict[str, Any],
    options: BenchOptions,
    specs: list[RunSpec],
    records: list[RunRecord],
    stop_reason: str,
) -> dict[str, Any]:
    from eurekaclaw.bench.plot import write_plots
    from eurekaclaw.bench.report import csv_text, markdown, summarize

    order = {s.run_id: i for i, s in enumerate(specs)}
    records.sort(key=lambda r: order.get(r.run_id, len(order)))
    manifest["models"] = _models(records)
    atomic_write_json(bench_dir / MANIFEST, manifest)
    summary = summarize(records, [c.label for c in options.configs], len(specs))
    summary["stop_reason"] = stop_reason
    summary["executions"] = manifest.get("executions", [])
    atomic_write_json(bench_dir / "summary.json", summary)
    atomic_write_text(bench_dir / "summary.md", markdown(summary, manifest))
    atomic_write_text(bench_dir / "summary.csv", csv_text(records))
    write_plots(bench_dir, summary)
    return summary


def _record(spec: RunSpec, data: dict[str, Any] | None, error: str | None) -> RunRecord:
    if data is not None:
        return RunRecord.model_validate(data)
    from eurekaclaw.bench.models import classify

    record = RunRecord(
        run_id=spec.run_id,
        config=spec.config.label,
        problem_id=spec.problem.id,
        problem_set=spec.problem.set_name,
        truth=spec.problem.truth,
        repetition=spec.repetition,
        seed=spec.seed,
        session_status="error",
        error=error,
        reason=error or "",
        budget_usd=spec.budget_usd,
        budget_tokens=spec.budget_tokens,
        cost_usd=None,
    )
    record.verdict, record.correct, record.false_proved, record.true_refuted = classify(record.truth, None)
    return record


def _models(records: list[RunRecord]) -> dict[str, list[str]]:
    models: dict[str, set[str]] = {}
    for r in records:
        if r.model:
            models.setdefault(r.config, set()).add(r.model)
    return {k: sorted(v) for k, v in models.items()}
