"""Where the pipeline goes after a stage, as a value (the orchestrator interprets it).

Kept in agents/ (not the orchestrator) because a stage returns one: imports point down.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Next:
    """Go on with the stage after this one in the declared order."""


@dataclass(frozen=True)
class Replan:
    """Run the pipeline again from `target`: every stage from `target` up to the one that asked
    goes back to pending with `reason`."""

    target: str
    reason: str = ""


@dataclass(frozen=True)
class Pivot:
    """`explore`: the current direction ended; `direction` (the next scored one) takes over and
    the stages that build a direction's artifacts run again."""

    direction: str
    reason: str = ""


@dataclass(frozen=True)
class Stop:
    """Stop the run at this checkpoint (resumable), e.g. a declined gate."""

    reason: str


Transition = Next | Replan | Pivot | Stop

NEXT = Next()
