"""The end of a research command: the result table, the theorem line with how it was checked,
the cost (never a false $0), and the exit code."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from eurekaclaw.errors import EXIT_FAILED

if TYPE_CHECKING:
    from eurekaclaw.theory_view import TheoremView


def finish_run(result: Any, as_json: bool) -> None:
    import json

    from eurekaclaw.agents.theory.costs import read_costs
    from eurekaclaw.console import out

    if as_json:
        data = result.model_dump(mode="json")
        if not usage_of(result.session_dir).get("cost_known", True):
            data["cost_usd"], data["cost_known"] = None, False
        data["proof_costs"] = read_costs(result.session_dir)  # calls per proof (agents/theory/costs.py)
        view = theorem_of(result.session_dir)
        if view is not None:
            # the displayed status, never the stage's plain word: "self_reviewed", "narrower_claim"
            data["theory_status"] = view.status
            data["theorem"] = view_json(view)
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

    from eurekaclaw.agents.theory.costs import costs_line, read_costs
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
        print_theorem(result)
    out().print(
        f"cost: {cost_text(result.session_dir, result.cost_usd)} over {result.llm_calls} LLM calls",
        markup=False,
        highlight=False,
    )
    if read_costs(result.session_dir):
        out().print(costs_line(read_costs(result.session_dir)), markup=False, highlight=False)
    out().print(f"session directory: {result.session_dir}")
    if result.output_dir:
        out().print(f"artefacts copied to: {result.output_dir}")


def theorem_of(session_dir: Any) -> TheoremView | None:
    """The theorem as every surface shows it, from the session's theory_state.json (read only)."""
    if not session_dir:
        return None
    from pathlib import Path

    from eurekaclaw.agents.views import theorem_view
    from eurekaclaw.types.artifacts import TheoryState

    try:
        theory = TheoryState.model_validate_json((Path(session_dir) / "theory_state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return theorem_view(theory)


def view_json(view: TheoremView) -> dict[str, Any]:
    keys: tuple[str, ...] = (
        "status",
        "word",
        "colour",
        "level",
        "level_label",
        "statement",
        "statement_plain",
        "from_claim",
        "in_words",
        "scope_sentence",
        "statement_not_proved",
        "how",
        "hint",
    )
    data = {k: getattr(view, k) for k in keys}
    data["self_reviewed"] = list(view.self_reviewed)
    return data


def theorem_lines(view: TheoremView) -> list[tuple[str, str]]:
    """(text, style) lines under the result table: the status word, what was checked (the
    rendered claim), the model's words beside it, the narrowing, how it was checked."""
    level = f" (weakest: {view.level_label})" if view.level_label else ""
    lines = [(f"theorem: {view.word}{level}", "bold" if view.proved else "yellow")]
    if view.statement_plain:
        lines.append((("claim checked: " if view.from_claim else "statement: ") + view.statement_plain, ""))
    if view.in_words:
        lines.append((f"in words: {' '.join(view.in_words.split())}", "dim"))
    if view.scope_sentence:
        lines.append((view.scope_sentence, "yellow"))
    if view.status in ("narrower_claim", "different_claim") or (view.scope_sentence and view.statement_not_proved):
        lines.append(("the statement itself was not proved", "yellow"))
    lines.append((f"how: {view.how}", ""))
    if view.hint:
        lines.append((view.hint, "yellow"))
    return lines


def print_theorem(result: Any) -> None:
    from eurekaclaw.console import out

    view = theorem_of(result.session_dir)
    if view is None:
        # no readable theory state: the run's own summary, never upgraded
        word = result.theory_status
        if word == "proved" and result.self_reviewed and result.weakest_level == "reviewed":
            word = "self-reviewed"
        level = f" (weakest verification level: {result.weakest_level})" if result.weakest_level else ""
        out().print(f"theorem: {word}{level}", markup=False, highlight=False)
    else:
        for text, style in theorem_lines(view):
            out().print(text, style=style or None, markup=False, highlight=False)
    proved = view.proved if view is not None else result.theory_status == "proved"
    if not proved and result.theory_reason:
        out().print(f"why: {result.theory_reason}", markup=False, highlight=False)
