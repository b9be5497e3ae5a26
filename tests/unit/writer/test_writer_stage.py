"""WriteStage end to end with the scripted LLM: files, PaperOutput, fallbacks, budget."""

from __future__ import annotations

from pathlib import Path

import pytest
import writer_helpers as wh
from toolreq import require_tool

from eurekaclaw.agents.writer import WriteStage
from eurekaclaw.errors import BudgetExceededError
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.types import LLMRequest
from eurekaclaw.types.artifacts import PaperOutput
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="UCB1 regret")
PROSE_RULE = {"role": "writer", "output": "PaperProse", "reply": wh.GOOD_PROSE}


def _no_toolchain(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


async def test_write_stage_end_to_end_compiles(tmp_path: Path) -> None:
    require_tool("latexmk")
    bus = wh.session(tmp_path)
    ctx = wh.context(bus, rules=[PROSE_RULE])
    outcome = await WriteStage().run(ctx, SPEC)
    assert outcome.status == "completed", outcome.reason
    sdir = bus.session_dir
    assert sdir is not None
    for name in ("paper.tex", "paper.md", "references.bib", "paper.pdf"):
        assert (sdir / name).is_file(), name
    paper = bus.get("paper")
    assert isinstance(paper, PaperOutput)
    assert paper.compiled and paper.pdf_file == "paper.pdf" and paper.compile_error == ""
    assert paper.weakest_level == "cited"
    # persisted at once, and reloadable
    reloaded = KnowledgeBus.load("s1", sdir).get("paper")
    assert reloaded == paper
    tex = (sdir / "paper.tex").read_text()
    assert wh.theory().formal_statement in tex
    assert "A gap-free regret bound for UCB1 with explicit constants" in tex
    # the model was asked once, for prose only
    calls = ctx.llm.backend.calls  # type: ignore[attr-defined]
    assert [c.output_name() for c in calls] == ["PaperProse"]
    assert "verified_references" in calls[0].prompt_text()
    assert "key=auer2002finitetime" in calls[0].prompt_text()


async def test_without_a_working_tex_sandbox_no_pdf_is_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Model-written LaTeX is compiled only in bubblewrap: a missing sandbox switches the PDF
    off (a note, not a failure); it never compiles with weaker isolation."""
    require_tool("latexmk")
    from eurekaclaw.agents.writer import compile as tex_compile
    from eurekaclaw.agents.writer import tex_sandbox
    from eurekaclaw.orchestrator.verdict import paper_note, paper_problem

    monkeypatch.setattr(tex_sandbox, "sandbox_available", lambda: (False, "bubblewrap (bwrap) is not installed"))

    async def never(*args, **kwargs):
        raise AssertionError("TeX ran without the sandbox")

    monkeypatch.setattr(tex_compile, "_run", never)
    bus = wh.session(tmp_path)
    ctx = wh.context(bus, rules=[PROSE_RULE])
    outcome = await WriteStage().run(ctx, SPEC)
    assert outcome.status == "completed", outcome.reason
    paper = bus.get("paper")
    assert not paper.compiled and paper.pdf_file is None and paper.compile_error == ""
    assert "TeX sandbox is unavailable" in paper.compile_skipped and "bubblewrap" in paper.compile_skipped
    assert any("TeX sandbox is unavailable" in n for n in paper.notes)
    assert not (bus.session_dir / "paper.pdf").exists() and (bus.session_dir / "paper.tex").is_file()
    # the session is not partial for it, and says why there is no PDF
    assert paper_problem(paper) == "" and "TeX sandbox is unavailable" in paper_note(paper)


async def test_garbage_reply_falls_back_to_deterministic_prose(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_toolchain(monkeypatch, tmp_path)
    bus = wh.session(tmp_path, with_experiment=False)
    ctx = wh.context(bus, rules=[{"role": "writer", "reply": "Sure! Here is a great paper about bandits."}])
    outcome = await WriteStage().run(ctx, SPEC)
    assert outcome.status == "completed"
    paper = bus.get("paper")
    assert not paper.compiled and paper.compile_error == "" and paper.pdf_file is None
    assert any("deterministic prose" in n and "LLMOutputError" in n for n in paper.notes)
    assert any("eurekaclaw doctor" in n for n in paper.notes)
    sdir = bus.session_dir
    assert not (sdir / "paper.pdf").exists()
    tex = (sdir / "paper.tex").read_text()
    md = (sdir / "paper.md").read_text()
    # the fallback prose is built from the statement, and the paper is complete
    assert "We study the following statement: For every number of arms" in tex
    assert "\\title{For every number of arms $K \\ge 2$ and horizon $T \\ge K$" in tex
    assert wh.theory().lemma_dag["L2"].statement in tex
    assert "\\citet{auer2002finitetime}" in tex  # related work cites the verified references
    assert "deterministic prose" in md  # the build notes say so


async def test_unusable_fields_are_replaced_one_by_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_toolchain(monkeypatch, tmp_path)
    bus = wh.session(tmp_path, with_experiment=False)
    reply = dict(wh.GOOD_PROSE, abstract="N/A", introduction="")
    ctx = wh.context(bus, rules=[{"role": "writer", "output": "PaperProse", "reply": reply}])
    await WriteStage().run(ctx, SPEC)
    paper = bus.get("paper")
    assert any("no usable abstract, introduction" in n for n in paper.notes)
    tex = (bus.session_dir / "paper.tex").read_text()
    assert "A gap-free regret bound for UCB1" in tex  # the model's usable title is kept
    assert "We study the following statement" in tex
    assert "N/A" not in tex


async def test_prose_is_cached_for_a_rerun_with_the_same_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_toolchain(monkeypatch, tmp_path)
    bus = wh.session(tmp_path, with_experiment=False)
    ctx = wh.context(bus, rules=[PROSE_RULE])
    await WriteStage().run(ctx, SPEC)
    await WriteStage().run(ctx, SPEC, resume=True)
    assert len(ctx.llm.backend.calls) == 1  # type: ignore[attr-defined]
    # a changed theory state is new input: the prose is written again
    state = bus.get_theory_state()
    state.status = "abandoned"
    bus.put_theory_state(state)
    await WriteStage().run(ctx, SPEC)
    assert len(ctx.llm.backend.calls) == 2  # type: ignore[attr-defined]


async def test_budget_exceeded_is_not_swallowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_toolchain(monkeypatch, tmp_path)
    bus = wh.session(tmp_path, with_experiment=False)

    def over_budget(request: LLMRequest) -> None:
        raise BudgetExceededError("budget of $0.01 reached")

    ctx = wh.context(bus, responder=over_budget)
    with pytest.raises(BudgetExceededError):
        await WriteStage().run(ctx, SPEC)
    assert bus.get("paper") is None


def test_write_stage_is_skipped_without_a_theory_state(tmp_path: Path) -> None:
    bus = KnowledgeBus("s1", tmp_path)
    ctx = wh.context(bus)
    assert "no theory state" in (WriteStage().missing_inputs(ctx, SPEC) or "")
    assert WriteStage().missing_inputs(wh.context(wh.session(tmp_path)), SPEC) is None
