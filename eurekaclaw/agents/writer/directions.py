"""What the paper says about `explore` pivots: the direction it reports and why the earlier
ones were dropped (orchestrator/pivots.py records them in the research brief)."""

from __future__ import annotations

from dataclasses import dataclass, field

from eurekaclaw.types.artifacts import ResearchBrief

REASON_CHARS = 300


@dataclass
class DirectionReport:
    final: str
    dropped: list[str] = field(default_factory=list)


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= REASON_CHARS else flat[: REASON_CHARS - 1] + "…"


def direction_report(brief: ResearchBrief | None) -> DirectionReport | None:
    """None unless the session handed at least one direction over to another."""
    if brief is None or not brief.dropped_directions:
        return None
    count = len(brief.dropped_directions)
    final = brief.selected_direction
    head = (
        f"This paper reports the research direction {final.title} (composite score {final.composite:.2f}), "
        if final is not None
        else "This paper reports the last research direction tried, "
    )
    head += (
        f"the {count + 1}th tried in this session: "
        if count > 2
        else f"the {('second', 'third')[count - 1]} tried in this session: "
    )
    head += (
        "the earlier one was dropped when its theory failed."
        if count == 1
        else "the earlier ones were dropped when their theories failed."
    )
    dropped = [
        f"Direction {d.version}, {d.title} (composite score {d.composite:.2f}): the theory ended "
        f"{d.outcome}; {_short(d.reason)} (its files are kept in {d.archive}/ of the session)"
        for d in brief.dropped_directions
    ]
    return DirectionReport(final=head, dropped=dropped)
