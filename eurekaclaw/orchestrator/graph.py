"""The stage graph, built from what each registered Stage class declares (agents/stage.py).

A node is one stage's declaration: the bus keys it needs and produces, whether a revision may
re-run it, whether an `explore` direction may hand over before it, and its transition. The graph
is the registration order plus the data flow between nodes; every list the orchestrator used to
keep by hand is a question asked of it: which stages go stale when one runs again (downstream),
which stage makes a damaged artifact again (producers), which stages a revision may re-run, where
a direction may hand over (pivot points).

A StageRegistry is how a stage joins the graph: orchestrator/stages.py registers the built-ins
with it, and a new stage is one module plus one `register` call.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from eurekaclaw.agents.stage import Stage
from eurekaclaw.types.tasks import PipelineState, StageRecord

# Statuses of a stage that already ran to an end in this session. When an earlier stage runs
# again, what these stages produced was built from the earlier output and is stale.
_FINISHED = ("completed", "skipped", "failed")


@dataclass(frozen=True)
class StageNode:
    name: str
    needs: tuple[str, ...]
    produces: tuple[str, ...]
    rerunnable: bool
    pivot_point: bool
    reads_finished_session: bool
    stage_class: type[Stage]

    @classmethod
    def of(cls, stage_class: type[Stage]) -> StageNode:
        return cls(
            name=stage_class.name,
            needs=tuple(stage_class.needs),
            produces=tuple(stage_class.produces),
            rerunnable=stage_class.rerunnable,
            pivot_point=stage_class.pivot_point,
            reads_finished_session=stage_class.reads_finished_session,
            stage_class=stage_class,
        )


class StageGraph:
    """The declared stages in their order, and what follows from the declarations."""

    def __init__(self, nodes: Iterable[StageNode]) -> None:
        self.nodes: tuple[StageNode, ...] = tuple(nodes)
        self.names: tuple[str, ...] = tuple(n.name for n in self.nodes)
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"a stage is registered twice: {self.names}")
        self._by_name = {n.name: n for n in self.nodes}
        self._position = {name: i for i, name in enumerate(self.names)}

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[StageNode]:
        return iter(self.nodes)

    def node(self, name: str) -> StageNode:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"no stage {name!r} in the graph ({', '.join(self.names)})") from None

    # ---- walking ------------------------------------------------------------------------------
    @property
    def first(self) -> str | None:
        return self.names[0] if self.names else None

    def successor(self, name: str) -> str | None:
        position = self._position[name] + 1
        return self.names[position] if position < len(self.names) else None

    def span(self, start: str, end: str) -> tuple[str, ...]:
        """The stages from `start` to `end`, both included (a re-plan's stages)."""
        low, high = self._position[start], self._position[end]
        if low > high:
            raise ValueError(f"{start} does not come before {end}")
        return self.names[low : high + 1]

    # ---- derived lists ------------------------------------------------------------------------
    def producers(self, keys: Iterable[str]) -> tuple[str, ...]:
        wanted = set(keys)
        return tuple(n.name for n in self.nodes if wanted & set(n.produces))

    def downstream(self, name: str) -> tuple[str, ...]:
        """The later stages whose output is built from `name`'s, transitively: they need what it
        (or a stage downstream of it) produces, or they describe the whole finished session."""
        stale = set(self.node(name).produces)
        found: list[str] = []
        for node in self.nodes[self._position[name] + 1 :]:
            if node.reads_finished_session or stale & set(node.needs):
                found.append(node.name)
                stale |= set(node.produces)
        return tuple(found)

    @property
    def rerunnable(self) -> tuple[str, ...]:
        return tuple(n.name for n in self.nodes if n.rerunnable)

    @property
    def pivot_points(self) -> tuple[str, ...]:
        return tuple(n.name for n in self.nodes if n.pivot_point)

    def rerunnable_after(self, name: str) -> tuple[str, ...]:
        """The re-runnable stages downstream of `name` (what a revision runs after it)."""
        return tuple(s for s in self.downstream(name) if self.node(s).rerunnable)

    # ---- the pipeline record ------------------------------------------------------------------
    def new_pipeline(self, impls: Mapping[str, Stage | None]) -> PipelineState:
        pipeline = PipelineState(stages=[StageRecord(name=name) for name in self.names])
        for rec in pipeline.stages:
            _mark_absent(rec, impls)
        return pipeline

    def complete(self, pipeline: PipelineState, impls: Mapping[str, Stage | None]) -> list[str]:
        """Give a pipeline recorded before a stage was registered a record for it, in graph
        order (pending, or absent without an implementation). Returns the names added."""
        have = {rec.name for rec in pipeline.stages}
        added = [name for name in self.names if name not in have]
        if not added:
            return []
        old = {rec.name: rec for rec in pipeline.stages}
        ordered = [old.get(name) or _mark_absent(StageRecord(name=name), impls) for name in self.names]
        pipeline.stages = ordered + [rec for rec in pipeline.stages if rec.name not in self._by_name]
        return added

    def refresh_downstream(self, pipeline: PipelineState, name: str) -> list[str]:
        """Put every stage downstream of `name` that already finished back to pending (its paper,
        evaluation or lessons came from what `name` is about to replace). Returns those reset."""
        stale = set(self.downstream(name))
        reset: list[str] = []
        for rec in pipeline.stages:
            if rec.name in stale and rec.status in _FINISHED:
                rec.status, rec.attempts = "pending", 0
                rec.reason = f"re-run: {name} ran again, so its output changed"
                reset.append(rec.name)
        return reset


def _mark_absent(rec: StageRecord, impls: Mapping[str, Stage | None]) -> StageRecord:
    if impls.get(rec.name) is None:
        rec.status = "absent"
        rec.reason = "not part of this build"
    return rec


class StageRegistry:
    """The stages of a build, in pipeline order. `register` is the one way in, for the built-ins
    (orchestrator/stages.py) and for a stage added later."""

    def __init__(self, classes: Iterable[type[Stage]] = ()) -> None:
        self._classes: list[type[Stage]] = []
        for stage_class in classes:
            self.register(stage_class)

    def register(self, stage_class: type[Stage], *, after: str | None = None) -> type[Stage]:
        """Add a stage at the end, or right after the stage named `after`."""
        names = [c.name for c in self._classes]
        if stage_class.name in names:
            raise ValueError(f"a stage named {stage_class.name!r} is already registered")
        position = len(names) if after is None else names.index(after) + 1
        self._classes.insert(position, stage_class)
        return stage_class

    def copy(self) -> StageRegistry:
        return StageRegistry(self._classes)

    def graph(self) -> StageGraph:
        return StageGraph(StageNode.of(c) for c in self._classes)
