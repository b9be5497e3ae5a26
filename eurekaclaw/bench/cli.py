"""The `eurekaclaw bench` command (registered in eurekaclaw/cli.py). Parsing and rendering only;
the work is in eurekaclaw.bench.runner. Imports stay inside the function so the CLI starts fast."""

from __future__ import annotations

from typing import Annotated, Any

import typer


def bench_command(
    problem_sets: Annotated[
        list[str] | None,
        typer.Argument(
            help="Problem sets: a bundled set (general, demo), a domain level (mab:1) or a .yaml/.json file "
            "(default: general)."
        ),
    ] = None,
    config: Annotated[
        list[str] | None,
        typer.Option(
            "--config",
            "-c",
            help="A configuration to run: default | memory_guided | LABEL:key=value,... "
            "(keys: llm, review_llm, pipeline or a setting). Repeat to compare.",
        ),
    ] = None,
    llm: Annotated[
        list[str] | None,
        typer.Option(
            "--llm",
            help="Model, as for prove (anthropic, openai_compat, local, scripted:<file>, schema[:seed]). "
            "Repeat without --config to compare models.",
        ),
    ] = None,
    review_llm: Annotated[
        str | None, typer.Option("--review-llm", help="A separate reviewing model for every configuration.")
    ] = None,
    runs: Annotated[
        int, typer.Option("--runs", "-n", min=1, max=1000, help="Runs of each problem per configuration.")
    ] = 1,
    problem: Annotated[list[str] | None, typer.Option("--problem", help="Only these problem ids (repeatable).")] = None,
    truth: Annotated[str | None, typer.Option("--truth", help="Only true or only false statements.")] = None,
    seed: Annotated[
        int, typer.Option("--seed", help="Base seed; each run's seed derives from it, the problem and the repetition.")
    ] = 0,
    workers: Annotated[
        int, typer.Option("--workers", "-w", min=1, max=256, help="Sessions at once, each in its own worker process.")
    ] = 1,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="ADDRESS",
            help="Run sessions as Ray tasks: `local` starts a local Ray, "
            "`auto` or an address joins a cluster (needs the ray extra).",
        ),
    ] = None,
    budget_usd: Annotated[
        float | None, typer.Option("--budget-usd", min=0.0, help="Total for the whole bench.")
    ] = None,
    budget_tokens: Annotated[
        int | None, typer.Option("--budget-tokens", min=0, help="Total tokens for the whole bench.")
    ] = None,
    problem_budget_usd: Annotated[
        float | None, typer.Option("--problem-budget-usd", min=0.0, help="Cap for each session (one problem, one run).")
    ] = None,
    problem_budget_tokens: Annotated[
        int | None, typer.Option("--problem-budget-tokens", min=0, help="Token cap for each session.")
    ] = None,
    session_timeout: Annotated[
        float | None,
        typer.Option(
            "--session-timeout",
            min=0.001,
            metavar="SECONDS",
            help="Wall limit per session; a session past it ends as undecided, with the reason recorded.",
        ),
    ] = None,
    costs_from: Annotated[
        list[str] | None,
        typer.Option(
            "--costs-from",
            metavar="BENCH_DIR",
            help="An earlier bench whose run times order this one, longest first (repeatable).",
        ),
    ] = None,
    out: Annotated[
        str | None, typer.Option("--out", "-o", help="Bench folder (default: $EUREKACLAW_DIR/bench/<id>).")
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option("--resume", metavar="BENCH_DIR", help="Continue an interrupted bench; finished runs are kept."),
    ] = None,
    demo: Annotated[
        bool,
        typer.Option(
            "--demo",
            help="The scripted demonstration: honest and careless scripted models (and the careless one with "
            "an independent reviewer) on the demo set, offline.",
        ),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show debug logs and tracebacks.")] = False,
) -> None:
    """Run problem sets N times per configuration and report proved / refuted / false-proved rates.

    Every problem has a ground truth; a false statement that ends `proved` is the failure this
    command exists to count. Results go to a bench folder: bench.json (versions, commit, settings,
    seeds), results.jsonl, summary.md/.csv/.json and two SVG plots. See docs/bench.md.

    Examples:

      eurekaclaw bench --demo

      eurekaclaw bench general -n 3 --config default --config memory_guided --workers 2

      eurekaclaw bench general --llm schema --workers 2 --session-timeout 60

      eurekaclaw bench mab:1 --llm anthropic --llm openai_compat --problem-budget-usd 2
    """
    from pathlib import Path

    from eurekaclaw.bench import runner
    from eurekaclaw.bench.configs import build_configs, demo_configs
    from eurekaclaw.bench.problems import load_problem_set, select
    from eurekaclaw.config import load_settings
    from eurekaclaw.console import err
    from eurekaclaw.errors import BadInputError

    if truth is not None and truth not in ("true", "false"):
        raise BadInputError(f"--truth must be true or false, not {truth!r}")
    for folder in costs_from or []:
        if not (Path(folder).expanduser() / runner.RESULTS).is_file():
            raise BadInputError(f"--costs-from {folder}: no earlier bench there (no {runner.RESULTS})")
    settings = load_settings()
    if resume:
        bench_dir = Path(resume).expanduser()
        if problem_sets or config or llm or demo or out:
            raise BadInputError(
                "--resume continues the bench as it was planned; give only budgets, --workers, --ray, "
                "--session-timeout or --costs-from with it"
            )
        manifest = runner.load_manifest(bench_dir)
        options = runner.options_from_manifest(
            manifest,
            workers=workers if workers > 1 else None,
            ray_address=ray,
            budget_usd=budget_usd,
            budget_tokens=budget_tokens,
            run_budget_usd=problem_budget_usd,
            run_budget_tokens=problem_budget_tokens,
            session_timeout_s=session_timeout,
            costs_from=costs_from,
        )
    else:
        if demo and (config or llm):
            raise BadInputError("--demo brings its own two models; leave out --config and --llm")
        set_specs = list(problem_sets or (["demo"] if demo else ["general"]))
        sets = [load_problem_set(s) for s in set_specs]
        options = runner.BenchOptions(
            problem_sets=set_specs,
            problems=select(sets, problem, truth),
            configs=demo_configs() if demo else build_configs(config or [], llm or [], review_llm),
            repetitions=runs,
            seed=seed,
            workers=workers,
            ray_address=ray,
            budget_usd=budget_usd,
            budget_tokens=budget_tokens,
            run_budget_usd=problem_budget_usd,
            run_budget_tokens=problem_budget_tokens,
            session_timeout_s=session_timeout,
            costs_from=costs_from or [],
        )
        bench_dir = Path(out).expanduser() if out else settings.eurekaclaw_dir / "bench" / runner.new_bench_id()
        if bench_dir.exists() and not bench_dir.is_dir():
            raise BadInputError(f"--out {bench_dir} is a file, not a folder")

    unknown = [p.id for p in options.problems if p.truth == "unknown"]
    if unknown:
        err().print(
            f"{len(unknown)} problem(s) have no ground truth and are run but not scored: "
            f"{', '.join(unknown[:5])}{' …' if len(unknown) > 5 else ''}",
            style="yellow",
            markup=False,
            highlight=False,
        )

    def progress(record: Any, finished: int, total: int) -> None:
        level = f" ({record.weakest_level})" if record.verdict == "proved" and record.weakest_level else ""
        flag = (
            "  FALSE STATEMENT PROVED"
            if record.false_proved
            else "  FALSE STATEMENT SELF-REVIEWED"
            if record.false_self_reviewed
            else "  TRUE STATEMENT REFUTED"
            if record.true_refuted
            else ""
        )
        why = f" - {record.error}" if record.error else f" - {record.reason}" if record.timed_out else ""
        err().print(
            f"[{finished}/{total}] {record.run_id}: {record.verdict}{level} in {record.wall_s:.1f}s{flag}{why}",
            markup=False,
            highlight=False,
        )

    try:
        outcome = runner.run_bench(options, bench_dir, resume=bool(resume), on_record=progress)
    except KeyboardInterrupt:
        err().print(
            f"interrupted: finished runs are in {bench_dir}; `eurekaclaw bench --resume {bench_dir}` continues",
            markup=False,
            highlight=False,
        )
        raise typer.Exit(130) from None
    _render(outcome, json_out)
    if outcome.not_run:
        raise typer.Exit(1)


def _render(outcome: Any, as_json: bool) -> None:
    import json

    from rich.table import Table

    from eurekaclaw.console import out

    if as_json:
        out().print_json(
            json.dumps(
                {
                    "bench_dir": outcome.bench_dir,
                    "not_run": outcome.not_run,
                    "stop_reason": outcome.stop_reason,
                    **outcome.summary,
                }
            )
        )
        return

    def rate(d: dict[str, Any]) -> str:
        return "n/a" if not d["n"] else f"{d['hits']}/{d['n']} ({d['rate']:.0%}, {d['low']:.0%}–{d['high']:.0%})"

    table = Table(title="bench summary (95 % Wilson intervals)", show_header=True)
    cols = ("config", "runs", "correct", "false-proved", "false self-reviewed", "true refuted", "undecided", "tokens")
    for col in (*cols, "cost"):
        table.add_column(col)
    for label, s in outcome.summary["overall"].items():
        cost = "unknown" if s["cost_usd"] is None else f"${s['cost_usd']:.4f}"
        table.add_row(
            label,
            str(s["runs"]),
            rate(s["correct"]),
            rate(s["false_proved"]),
            rate(s["false_self_reviewed"]),
            rate(s["true_refuted"]),
            str(s["undecided"]),
            str(s["tokens"]),
            cost,
        )
    out().print(table)
    for c in outcome.summary["comparisons"]:
        out().print(
            f"{c['a']} vs {c['b']}: {c['pairs']} pairs, only {c['a']} right {c['only_a_correct']}, "
            f"only {c['b']} right {c['only_b_correct']}, McNemar p = {c['mcnemar_p']:.4g}",
            markup=False,
            highlight=False,
        )
    if outcome.stop_reason:
        out().print(
            f"stopped early: {outcome.stop_reason}; {outcome.not_run} run(s) not started", markup=False, highlight=False
        )
    out().print(f"bench folder: {outcome.bench_dir} (summary.md, results.jsonl)", markup=False, highlight=False)
