"""Exit codes tell the truth, and resume refreshes every stage after one that ran again."""

from __future__ import annotations

import sys
from pathlib import Path

from fake_stages import CountingStage

from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.config import load_settings
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.orchestrator.meta import MetaOrchestrator
from eurekaclaw.store.files import read_jsonl
from eurekaclaw.types.artifacts import PaperOutput, TheoryState
from eurekaclaw.types.tasks import InputSpec

sys.path.insert(0, str(Path(__file__).resolve().parent))

SPEC = InputSpec(mode="prove", statement="For all real x, x^2 >= 0")


class TheoryFake(Stage):
    """Puts a theory state with the next status from `statuses`; raises on 'crash'."""

    name = "theory"
    produces = ("theory_state",)

    def __init__(self, *statuses: str) -> None:
        self.statuses = list(statuses)
        self.runs = 0

    async def run(self, ctx, spec, *, resume=False):
        status = self.statuses[min(self.runs, len(self.statuses) - 1)]
        self.runs += 1
        if status == "crash":
            raise RuntimeError("theory broke")
        ctx.bus.put_theory_state(TheoryState(informal_statement=spec.statement, status=status))
        return StageOutcome(status="completed" if status == "proved" else "partial", summary=f"theorem {status}")


class PaperFake(Stage):
    """Records what theory status it wrote about; the paper builds or not as told."""

    name = "write"
    produces = ("paper",)

    def __init__(self, compile_error: str = "", compiled: bool = True) -> None:
        self.compile_error, self.compiled = compile_error, compiled
        self.saw: list[str] = []

    async def run(self, ctx, spec, *, resume=False):
        theory = ctx.bus.get_theory_state()
        self.saw.append(theory.status if theory else "none")
        paper = PaperOutput(
            tex_file="paper.tex",
            compiled=self.compiled and not self.compile_error,
            compile_error=self.compile_error,
            pdf_file=None if self.compile_error else "paper.pdf",
        )
        ctx.bus.put("paper", paper)
        return StageOutcome(status="partial" if self.compile_error else "completed", reason=self.compile_error)


def _orch(**stages) -> MetaOrchestrator:
    names = ("survey", "formalize", "theory", "experiment", "write", "evaluate", "learn")
    impls = {n: CountingStage(n) for n in names}  # type: ignore[arg-type]
    impls.update(stages)
    return MetaOrchestrator(
        load_settings(stage_max_retries=0), backend=ScriptedBackend(responder=lambda r: "ok"), stages=impls, plugins={}
    )


async def test_a_proved_theorem_whose_pdf_failed_is_a_partial_session_with_the_reason() -> None:
    writer = PaperFake(compile_error="line 12: Undefined control sequence")
    result = await _orch(theory=TheoryFake("proved"), write=writer).run(SPEC)
    assert result.status == "partial"
    assert "paper.pdf was not built" in result.status_reason
    assert "Undefined control sequence" in result.status_reason


async def test_no_toolchain_is_completed_with_a_note() -> None:
    result = await _orch(theory=TheoryFake("proved"), write=PaperFake(compiled=False)).run(SPEC)
    assert result.status == "completed"
    assert "no LaTeX toolchain" in result.status_reason


async def test_a_built_paper_and_a_proved_theorem_complete() -> None:
    result = await _orch(theory=TheoryFake("proved"), write=PaperFake()).run(SPEC)
    assert result.status == "completed" and "paper" not in result.status_reason


async def test_resume_of_a_failed_theory_refreshes_paper_eval_and_learning() -> None:
    theory, writer = TheoryFake("crash", "proved"), PaperFake()
    evaluate, learn = CountingStage("evaluate"), CountingStage("learn")
    experiment = CountingStage("experiment")
    first = await _orch(theory=theory, write=writer, evaluate=evaluate, learn=learn, experiment=experiment).run(SPEC)
    assert first.status == "partial"
    assert [r.status for r in first.stages if r.name == "theory"] == ["failed"]
    assert writer.saw == ["none"]  # the paper was written without a theorem
    runs_before = (evaluate.runs, learn.runs, experiment.runs, len(writer.saw))

    session = MetaOrchestrator(load_settings()).workspace.resolve(first.session_id)
    resumed = await _orch(theory=theory, write=writer, evaluate=evaluate, learn=learn, experiment=experiment).resume(
        session
    )
    assert resumed.status == "completed", resumed.status_reason
    assert resumed.theory_status == "proved"
    assert writer.saw[-1] == "proved"  # the paper was written again, about the proved theorem
    assert (evaluate.runs, learn.runs, experiment.runs, len(writer.saw)) == tuple(n + 1 for n in runs_before)
    events = read_jsonl(session.file("events.jsonl"))
    stale = [e for e in events if e["kind"] == "stale_stages"]
    assert stale and stale[0]["after"] == "theory" and "write" in stale[0]["stages"]


async def test_an_earlier_stage_that_reruns_resets_only_later_finished_stages() -> None:
    # survey failed first, everything after it ran; on resume survey re-runs, and so does the rest
    survey = CountingStage("survey", fail_times=1)
    formalize, learn = CountingStage("formalize"), CountingStage("learn")
    first = await _orch(
        survey=survey, formalize=formalize, learn=learn, theory=TheoryFake("proved"), write=PaperFake()
    ).run(SPEC)
    assert first.status == "partial" and formalize.runs == 1
    session = MetaOrchestrator(load_settings()).workspace.resolve(first.session_id)
    resumed = await _orch(
        survey=survey, formalize=formalize, learn=learn, theory=TheoryFake("proved"), write=PaperFake()
    ).resume(session)
    assert resumed.status == "completed"
    assert survey.runs == 2 and formalize.runs == 2 and learn.runs == 2


async def test_resume_of_a_paper_without_pdf_writes_it_again() -> None:
    theory = TheoryFake("proved")
    broken = PaperFake(compile_error="pdflatex timed out")
    first = await _orch(theory=theory, write=broken).run(SPEC)
    assert first.status == "partial"
    session = MetaOrchestrator(load_settings()).workspace.resolve(first.session_id)
    fixed = PaperFake()
    resumed = await _orch(theory=theory, write=fixed).resume(session)
    assert fixed.saw == ["proved"] and theory.runs == 1
    assert resumed.status == "completed"
