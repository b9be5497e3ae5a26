"""Every key of the KnowledgeBus, with the type of what it holds: `bus.get(PAPER)` is a
`PaperOutput | None` to the type checker, where a string key gave `Any`.

A key is its own name (a `str`), so it names the file an artifact is saved in (`paper.json`) and
the entry in `bus_extra.json` exactly as the plain strings did: sessions written before keys were
typed load unchanged. A key with a `model` is a typed artifact (validated on put, saved in its own
file, read back through its model); a key without one is an extra, kept as the JSON it was put as,
so its readers keep checking its shape.
"""

from __future__ import annotations

from typing import Any, Generic, Self, TypeVar

from pydantic import BaseModel

from eurekaclaw.types.artifacts import (
    Bibliography,
    EvalReport,
    ExperimentResult,
    PaperOutput,
    ResearchBrief,
    TheoryState,
)
from eurekaclaw.types.tasks import InputSpec, PipelineState

T = TypeVar("T")


class ArtifactKey(str, Generic[T]):
    """A bus key; `T` is what `KnowledgeBus.get`/`put` take and give for it."""

    model: type[BaseModel] | None

    def __new__(cls, name: str, model: type[BaseModel] | None = None) -> Self:
        key = super().__new__(cls, name)
        key.model = model
        return key


# --- typed artifacts: one <name>.json each ----------------------------------------------------------
INPUT_SPEC: ArtifactKey[InputSpec] = ArtifactKey("input_spec", InputSpec)
PIPELINE: ArtifactKey[PipelineState] = ArtifactKey("pipeline", PipelineState)
RESEARCH_BRIEF: ArtifactKey[ResearchBrief] = ArtifactKey("research_brief", ResearchBrief)
BIBLIOGRAPHY: ArtifactKey[Bibliography] = ArtifactKey("bibliography", Bibliography)
THEORY_STATE: ArtifactKey[TheoryState] = ArtifactKey("theory_state", TheoryState)
EXPERIMENT_RESULT: ArtifactKey[ExperimentResult] = ArtifactKey("experiment_result", ExperimentResult)
PAPER: ArtifactKey[PaperOutput] = ArtifactKey("paper", PaperOutput)
EVAL_REPORT: ArtifactKey[EvalReport] = ArtifactKey("eval_report", EvalReport)

# --- extras: kept together in bus_extra.json ---------------------------------------------------------
# the writer's prose and the fingerprint of the records it was written from
WRITER_PROSE: ArtifactKey[dict[str, Any]] = ArtifactKey("writer_prose")
# lemma id -> the skills injected into its prompts (the Learn stage scores them)
INJECTED_SKILLS: ArtifactKey[dict[str, list[str]]] = ArtifactKey("injected_skills")
# the theory stage's tool calls, for the Learn stage's tool patterns
TOOL_TRACES: ArtifactKey[list[dict[str, Any]]] = ArtifactKey("tool_traces")
# what the theory stage's repair rounds were spent on
PROOF_COSTS: ArtifactKey[dict[str, Any]] = ArtifactKey("proof_costs")
# the Learn steps already done (a resumed Learn stage skips them) and its report
LEARN_PROGRESS: ArtifactKey[list[str]] = ArtifactKey("learn_progress")
LEARN_REPORT: ArtifactKey[dict[str, Any]] = ArtifactKey("learn_report")

TYPED_KEYS: tuple[ArtifactKey[Any], ...] = (
    INPUT_SPEC,
    PIPELINE,
    RESEARCH_BRIEF,
    BIBLIOGRAPHY,
    THEORY_STATE,
    EXPERIMENT_RESULT,
    PAPER,
    EVAL_REPORT,
)
EXTRA_KEYS: tuple[ArtifactKey[Any], ...] = (
    WRITER_PROSE,
    INJECTED_SKILLS,
    TOOL_TRACES,
    PROOF_COSTS,
    LEARN_PROGRESS,
    LEARN_REPORT,
)
