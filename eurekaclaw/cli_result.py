"""The end of a research command: the result table, the theorem line with how it was checked,
the cost (never a false $0), and the exit code."""

from __future__ import annotations

import json
from typing import Any

import typer

from eurekaclaw.errors import EXIT_FAILED


def finish_run(result: Any, as_json: bool) -> None:
    from eurekaclaw.console import out

    if as_json:
        data = result.model_dump(mode="json")
        if not usage_of(result.session_dir).get("cost_known", True):
            data["cost_usd"], data["cost_known"] = None, False
        out().print_json(json.dumps(data))
    else:
        print_result(result)
    raise typer.Exit(0 if result.status == "completed" else EXIT_FAILED)


def usage_of(session_dir: Any) -> dict[str, Any]:
    from pathlib import Path

    from eurekaclaw.store.session import read_usage

    return read_usage(Path(session_dir)) if session_dir else {}


def cost_text(session_dir: Any, cost_usd: float) -> str:
    """ "$0.0123", or "unknown" when a model without a price was called (never a false $0)."""
    usage = usage_of(session_dir)
    if usage.get("cost_known", True):
        return f"${cost_usd:.4f}"
    priced = float(usage.get("priced_cost_usd") or 0.0)
    return f"unknown (≥ ${priced:.4f} priced)" if priced else "unknown"


def print_result(result: Any) -> None:
    from rich.table import Table

    from eurekaclaw.console import out

    table = Table(title=f"session {result.session_id}: {result.status}", show_header=True)
    table.add_column("stage")
    table.add_column("status")
    table.add_column("detail", overflow="fold")
    for rec in result.stages:
        table.add_row(rec.name, rec.status, rec.reason)
    out().print(table)
    if result.status != "completed" and result.status_reason:
        out().print(f"{result.status}: {result.status_reason}", markup=False, highlight=False)
    if result.theory_status:
        level = f" (weakest verification level: {result.weakest_level})" if result.weakest_level else ""
        if result.self_reviewed and result.weakest_level == "reviewed":
            # the weakest link was checked by nobody but the model that wrote it: say so on the
            # line that says "proved", not only in a note below it
            level = " (weakest verification level: reviewed by the proving model itself — self-review, no independent check)"
        out().print(f"theorem: [bold]{result.theory_status}[/]{level}")
        if result.self_reviewed:
            out().print(
                f"[yellow]{result.self_reviewed} lemma(s) reviewed only by the model that proved "
                "them (self-review); use --review-llm for an independent reviewer[/]"
            )
        if result.theory_status != "proved" and result.theory_reason:
            out().print(f"why: {result.theory_reason}", markup=False, highlight=False)
    out().print(
        f"cost: {cost_text(result.session_dir, result.cost_usd)} over {result.llm_calls} LLM calls",
        markup=False,
        highlight=False,
    )
    out().print(f"session directory: {result.session_dir}")
    if result.output_dir:
        out().print(f"artefacts copied to: {result.output_dir}")
