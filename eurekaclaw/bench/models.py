"""The bench's records: a configuration, one planned run, and what one run produced."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from eurekaclaw.bench.problems import Problem

# How a run ended, as the bench counts it, from the theorem's displayed status (theory_view):
# only `proved` is "proved"; a theorem whose weakest support is a self-review is "self_reviewed"
# (its own column and its own false rate); a proved claim narrower than the statement, errors,
# budget stops and missing files are "undecided" (fail closed).
Verdict = Literal["proved", "self_reviewed", "refuted", "undecided"]
REFUTING = ("refuted", "contradicted")


class BenchConfig(BaseModel):
    """One configuration under test: a label, a model, and settings overrides."""

    model_config = ConfigDict(extra="forbid")

    label: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$", max_length=60)
    llm: str | None = None  # as --llm; None: the configured backend
    review_llm: str | None = None
    settings: dict[str, Any] = Field(default_factory=dict)  # Settings field -> value

    @property
    def shared_memory(self) -> bool:
        """Sessions of a memory_guided configuration share one home (memory, skills) by design;
        every other run starts from a fresh home so runs stay independent."""
        return self.settings.get("theory_pipeline") == "memory_guided"


class RunSpec(BaseModel):
    """Everything a worker needs to run one session, and nothing it has to look up."""

    run_id: str
    config: BenchConfig
    problem: Problem
    repetition: int
    seed: int
    home: str  # EUREKACLAW_DIR of this run
    budget_usd: float | None = None
    budget_tokens: int | None = None
    timeout_s: float | None = None  # the session's wall limit (--session-timeout)
    expected_s: float | None = None  # the scheduler's estimate, kept to judge the schedule


class RunRecord(BaseModel):
    """One line of results.jsonl."""

    run_id: str
    config: str
    problem_id: str
    problem_set: str
    truth: str
    repetition: int
    seed: int
    verdict: Verdict = "undecided"
    correct: bool | None = None  # None when the ground truth is unknown
    false_proved: bool = False
    true_refuted: bool = False
    session_status: str = "not_started"
    theory_status: str | None = None  # the displayed status (theory_view), e.g. self_reviewed
    weakest_level: str | None = None
    reason: str = ""
    lemmas: int = 0
    proven_lemmas: int = 0
    refinement_cycles: int = 0
    counterexamples: int = 0
    llm_calls: int = 0
    tokens: int = 0
    tokens_by_stage: dict[str, int] = Field(default_factory=dict)
    cost_usd: float | None = 0.0  # None: a model without a price was called
    cost_by_stage: dict[str, float] = Field(default_factory=dict)
    eval_total: float | None = None
    wall_s: float = 0.0
    cpu_s: float | None = None  # this process and its children during the session
    # where the time went (bench/timing.py): stages (wall, CPU), checkers, model calls, TeX
    timing: dict[str, Any] = Field(default_factory=dict)
    timed_out: bool = False  # stopped by --session-timeout: undecided whatever the theory says
    budget_usd: float | None = None
    budget_tokens: int | None = None
    model: str = ""
    session_id: str | None = None
    session_dir: str | None = None
    error: str | None = None
    worker: str = ""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def false_self_reviewed(self) -> bool:
        """A false statement that ended self-reviewed: not counted as false-proved, reported beside it."""
        return self.truth == "false" and self.verdict == "self_reviewed"


def classify(truth: str, theory_status: str | None) -> tuple[Verdict, bool | None, bool, bool]:
    """(verdict, correct, false_proved, true_refuted) from the ground truth and the theory status."""
    verdict: Verdict = (
        "proved"
        if theory_status == "proved"
        else "self_reviewed"
        if theory_status == "self_reviewed"
        else "refuted"
        if theory_status in REFUTING
        else "undecided"
    )
    if truth not in ("true", "false"):
        return verdict, None, False, False
    correct = (truth == "true" and verdict == "proved") or (truth == "false" and verdict == "refuted")
    return verdict, correct, truth == "false" and verdict == "proved", truth == "true" and verdict == "refuted"
