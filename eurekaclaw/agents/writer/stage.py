"""The Write stage: paper.tex, paper.md, references.bib and (with a TeX toolchain) paper.pdf.

Statements and proofs come verbatim from the TheoryState; the model writes only the prose
(one structured call, with a deterministic fallback). The .tex is compiled in
<session>/latex/ and repaired when the log shows a problem; the final .tex, .md and .bib are
written to the session directory whatever happens, and a PaperOutput on the bus records the
files, whether the PDF was built, the compile error and every note.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

from pydantic import BaseModel

from eurekaclaw.agents.base import AgentContext, BaseAgent
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.agents.writer.bibtex import CitePlan, plan_citations, render_bibtex
from eurekaclaw.agents.writer.compile import usable_toolchain
from eurekaclaw.agents.writer.directions import direction_report
from eurekaclaw.agents.writer.doc import build_doc
from eurekaclaw.agents.writer.experiments import ExperimentView, experiment_view
from eurekaclaw.agents.writer.machine_claims import Records, check_prose_text, removed_count
from eurekaclaw.agents.writer.markdown import render_markdown
from eurekaclaw.agents.writer.prose import write_prose
from eurekaclaw.agents.writer.render import SOURCE_NOTE_PREFIX, render_tex
from eurekaclaw.agents.writer.repair import BIB_NAME, TEX_NAME, compile_with_repair, copy_pdf
from eurekaclaw.agents.writer.shipped import keep_cited_shipped, offer_shipped, record_shipped
from eurekaclaw.errors import LLMError, StageFailedError
from eurekaclaw.knowledge_bus.keys import PAPER, WRITER_PROSE
from eurekaclaw.store.files import atomic_write_text
from eurekaclaw.templates import render_prompt
from eurekaclaw.types.artifacts import PaperOutput, TheoryState
from eurekaclaw.types.tasks import InputSpec

MD_NAME = "paper.md"
PDF_NAME = "paper.pdf"
BUILD_DIR = "latex"
PROSE_CACHE_KEY = WRITER_PROSE


class LatexFix(BaseModel):
    replacement: str
    explanation: str = ""


def _fingerprint(theory: TheoryState, plan: CitePlan, experiment: ExperimentView | None) -> str:
    """What the prose depends on: reuse cached prose only for the same inputs (resume)."""
    body = {
        "theory": theory.model_dump(mode="json", exclude={"failed_attempts"}),
        "keys": sorted(k for k, _ in plan.citable()),
        "experiment": bool(experiment),
    }
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()[:16]


class WriterAgent(BaseAgent):
    role = "writer"
    max_tokens_key = "writer"

    def __init__(self, ctx: AgentContext) -> None:
        super().__init__(ctx)
        self._plan: CitePlan | None = None

    def session_dir(self) -> Path:
        if self.ctx.session is not None:
            return self.ctx.session.path
        if self.ctx.bus.session_dir is not None:
            return self.ctx.bus.session_dir
        raise StageFailedError("the write stage needs a session directory to write the paper into")

    async def _prose(
        self, theory: TheoryState, plan: CitePlan, experiment: ExperimentView | None
    ) -> tuple[dict[str, str], list[str]]:
        fingerprint = _fingerprint(theory, plan, experiment)
        cached = self.ctx.bus.get(PROSE_CACHE_KEY)
        if isinstance(cached, dict) and cached.get("fingerprint") == fingerprint:
            return dict(cached["prose"]), list(cached.get("notes", []))
        prose, notes = await write_prose(
            self, theory, plan, experiment, self.ctx.bus.get_research_brief(), self.ctx.bus.get_experiment_result()
        )
        self.ctx.bus.put(PROSE_CACHE_KEY, {"fingerprint": fingerprint, "prose": prose, "notes": notes})
        return prose, notes

    async def llm_fix(self, field: str, text: str, error: str, lines: str) -> str | None:
        """One model repair of a prose paragraph pdflatex rejected; None when unusable."""
        prompt = render_prompt(
            "writer_fix",
            error=error,
            lines=lines,
            field=field,
            text=text,
            keys=", ".join(k for k, _ in self._plan.citable()) if self._plan else "",
        )
        try:
            fix = await self.ask_structured(self.request(prompt, output=LatexFix), LatexFix)
        except LLMError as exc:
            self.log(f"model fix of {field} unusable: {exc.message[:200]}")
            return None
        # the fix is model text that replaces a checked field: it goes through the same door
        theory = self.ctx.bus.get_theory_state()
        if theory is None:
            return None
        fixed, _ = check_prose_text(fix.replacement, Records.from_theory(theory), insert=field != "abstract")
        return fixed

    async def write(self) -> PaperOutput:
        ctx = self.ctx
        theory = ctx.bus.get_theory_state()
        if theory is None:
            raise StageFailedError("no theory state on the bus: nothing to write about")
        session_dir = self.session_dir()
        plan = plan_citations(ctx.bus.get_bibliography())
        plan.offline = ctx.settings.eurekaclaw_offline
        self._plan = plan
        offer_shipped(plan, ctx.plugin, theory)
        experiment = experiment_view(ctx.bus.get_experiment_result(), session_dir)
        prose, notes = await self._prose(theory, plan, experiment)
        shipped = keep_cited_shipped(plan, prose, theory)
        record_shipped(ctx.bus, shipped)
        if shipped:
            notes.append(
                f"{len(shipped)} reference(s) cited from the {ctx.domain} domain's own "
                "bibliography (checked when it was written, not by this session)"
            )
        doc = build_doc(theory, plan, experiment, prose)
        doc.directions = direction_report(ctx.bus.get_research_brief())
        if ctx.bus.get_bibliography() is not None and not plan.checks_ran:
            notes.append("citation checks did not run for this session: no reference is cited as verified")
        if plan.unverified:
            notes.append(f"{len(plan.unverified)} unverified reference(s) listed separately, not cited")

        toolchain, skipped = usable_toolchain()
        compiled = False
        compile_error = ""
        pdf_path = session_dir / PDF_NAME
        if toolchain is None:
            tex, info = render_tex(doc)
            bib = render_bibtex(doc.cite)
            notes.append(f"paper.tex and paper.md only: {skipped}")
        else:
            ctx.events("write", message=f"compiling paper.tex with {toolchain.engine} in the sandbox")
            outcome = await compile_with_repair(
                doc,
                session_dir / BUILD_DIR,
                toolchain,
                ctx.settings.latex_timeout_s,
                llm_fix=self.llm_fix,
            )
            tex, bib, info = outcome.tex, outcome.bib, outcome.info
            notes.extend(f"compile repair: {a}" for a in outcome.actions)
            if outcome.compiled and copy_pdf(outcome, pdf_path):
                compiled = True
            else:
                compile_error = outcome.error or "the PDF could not be built"
                notes.append(
                    f"paper.tex did not compile ({compile_error}); paper.tex and paper.md were kept, "
                    f"see {BUILD_DIR}/paper.log"
                )
        if not compiled:
            # never leave a PDF from an earlier attempt that no longer matches paper.tex
            with contextlib.suppress(FileNotFoundError):
                pdf_path.unlink()
        notes = list(dict.fromkeys(notes + doc.notes + info.notes))
        atomic_write_text(session_dir / TEX_NAME, tex)
        atomic_write_text(session_dir / BIB_NAME, bib)
        atomic_write_text(session_dir / MD_NAME, render_markdown(doc, notes))
        output = PaperOutput(
            tex_file=TEX_NAME,
            md_file=MD_NAME,
            bib_file=BIB_NAME,
            pdf_file=PDF_NAME if compiled else None,
            compiled=compiled,
            compile_error=compile_error,
            compile_skipped=skipped,
            notes=notes,
            weakest_level=doc.weakest,
        )
        ctx.bus.put(PAPER, output)
        self.log(_summary(output))
        ctx.events("write", message=_summary(output))
        return output


def source_blocks_shown(output: PaperOutput) -> int:
    """How many statements/proofs had to be printed as LaTeX source (the last resort)."""
    return sum(1 for n in output.notes if SOURCE_NOTE_PREFIX in n)


def _summary(output: PaperOutput) -> str:
    shown = source_blocks_shown(output)
    extra = f"; {shown} statement(s)/proof(s) shown as LaTeX source, see paper.md notes" if shown else ""
    if claims := removed_count(output.notes):
        extra += f"; {claims} unsupported claim(s) of machine verification removed, see paper.md notes"
    if output.compiled:
        return f"paper written and compiled (weakest verification level: {output.weakest_level}){extra}"
    if output.compile_error:
        return f"paper written; compilation failed: {output.compile_error[:160]}{extra}"
    return f"paper written (.tex and .md; no LaTeX toolchain to build the PDF){extra}"


class WriteStage(Stage):
    name = "write"
    needs = ("theory_state", "research_brief", "bibliography", "experiment_result")
    produces = ("paper",)
    rerunnable = True
    pivot_point = True  # the experiment may have contradicted the theory

    def missing_inputs(self, ctx: AgentContext, spec: InputSpec) -> str | None:
        if ctx.bus.get_theory_state() is None:
            return "no theory state: the formalize stage produced nothing to write about"
        return None

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        # writing is idempotent; on resume the cached prose (same inputs) avoids a second call
        output = await WriterAgent(ctx).write()
        return StageOutcome(
            status="partial" if output.compile_error else "completed",
            summary=_summary(output),
            reason=output.compile_error,
        )
