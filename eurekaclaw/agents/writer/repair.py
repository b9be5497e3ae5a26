"""Compile, and when the log shows a problem, repair the PaperDoc and compile again.

Order of repairs for each failed compile:
1. deterministic fixes, by what the log says: drop an undefined citation key; in a statement,
   proof or assumption, set an undefined command as text (fragment repair, fragments.py), and
   only when the block still breaks LaTeX show it verbatim as source with a visible note; drop the plot when pgfplots is missing or the plot fails; replace characters
   pdflatex cannot set; un-escape an undefined control sequence in prose;
2. at most MAX_LLM_FIXES model fixes of the offending prose paragraph (structured output);
3. the offending prose paragraph printed as plain text; finally everything in safe mode.
If it still fails, the caller keeps paper.tex/paper.md and records the error.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from eurekaclaw.agents.writer.bibtex import render_bibtex
from eurekaclaw.agents.writer.compile import (
    CompileResult,
    LatexLog,
    LogError,
    Toolchain,
    compile_tex,
)
from eurekaclaw.agents.writer.doc import PROSE_FIELDS, PaperDoc
from eurekaclaw.agents.writer.render import RenderInfo, block_at_line, render_tex
from eurekaclaw.store.files import atomic_write_text

MAX_LLM_FIXES = 2
MAX_COMPILES = 10
TEX_NAME = "paper.tex"
BIB_NAME = "references.bib"

# (field, paragraph text, log error, offending lines) -> replacement paragraph or None
LLMFixer = Callable[[str, str, str, str], Awaitable[str | None]]


@dataclass
class RepairOutcome:
    compiled: bool
    tex: str
    bib: str
    info: RenderInfo
    error: str = ""
    actions: list[str] = field(default_factory=list)
    llm_fixes: int = 0
    pdf: Path | None = None
    compiles: int = 0


def verbatim_text(doc: PaperDoc, block_id: str) -> str:
    kind, _, rest = block_id.partition(":")
    if kind == "theorem":
        if rest == "words":
            return doc.theorem_in_words
        return doc.theorem_statement if rest == "statement" else (doc.theorem_proof or "")
    if kind == "assumption":
        return doc.assumptions[int(rest)]
    if kind == "lemma":
        index, _, part = rest.partition(":")
        lem = doc.lemmas[int(index)]
        return lem.statement if part == "statement" else (lem.proof or "")
    return ""


def verbatim_ids(doc: PaperDoc) -> list[str]:
    ids = ["theorem:statement"] + (["theorem:words"] if doc.theorem_in_words.strip() else [])
    ids += ["theorem:proof"] if doc.theorem_proof else []
    ids += [f"assumption:{i}" for i in range(len(doc.assumptions))]
    for i, lem in enumerate(doc.lemmas):
        ids.append(f"lemma:{i}:statement")
        if lem.proof:
            ids.append(f"lemma:{i}:proof")
    return ids


def _blocks_mentioning(doc: PaperDoc, pattern: re.Pattern[str]) -> list[str]:
    return [b for b in verbatim_ids(doc) if b not in doc.source_blocks and pattern.search(verbatim_text(doc, b))]


def deterministic_fix(doc: PaperDoc, tex: str, result: CompileResult) -> str | None:
    """Apply one deterministic repair for the first problem in the log; describe it, or None."""
    log = result.log
    action = _leave_out_missing_plot(doc, log) or _replace_unsetable_chars(doc, log)
    if action:
        return action
    if log.errors:
        # a run stopped by an error never reached BibTeX: its undefined citations mean nothing
        return _fix_error_block(doc, tex, log)
    return _drop_unknown_citations(doc, log) or _show_unknown_refs(doc, log)


def _leave_out_missing_plot(doc: PaperDoc, log: LatexLog) -> str | None:
    if "pgfplots.sty" in log.missing_files and doc.show_plot and doc.experiment is not None:
        doc.show_plot = False
        doc.notes.append("pgfplots is not installed (Debian package texlive-pictures); the plot was left out")
        return "left out the plot: pgfplots.sty is missing"
    return None


def _replace_unsetable_chars(doc: PaperDoc, log: LatexLog) -> str | None:
    fixed = []
    for ch in log.unicode_chars:
        for name in PROSE_FIELDS:
            if ch in doc.prose.get(name, ""):
                doc.prose[name] = doc.prose[name].replace(ch, "?")
                fixed.append(name)
        blocks = [
            b for b in _blocks_mentioning(doc, re.compile(re.escape(ch))) if ch not in doc.block_bad_chars.get(b, set())
        ]
        for b in blocks:
            doc.block_bad_chars.setdefault(b, set()).add(ch)
        fixed += blocks
    if fixed:
        return "replaced characters pdflatex cannot set in: " + ", ".join(dict.fromkeys(fixed))
    return None


def _fix_error_block(doc: PaperDoc, tex: str, log: LatexLog) -> str | None:
    """A repair of the first block a LaTeX error points into; None leaves a prose error to the
    model fix and plain text (see compile_with_repair)."""
    for err in log.errors:
        block = block_at_line(tex, err.line) if err.line else None
        if block is None:
            continue
        if block == "figure:plot":
            doc.show_plot = False
            return f"left out the plot after: {err.message}"
        if block.startswith("prose:"):
            return _unescape_prose_command(doc, block.split(":", 1)[1], err)
        action = _fix_verbatim_block(doc, block, err)
        if action is not None:
            return action
    return None


def _unescape_prose_command(doc: PaperDoc, name: str, err: LogError) -> str | None:
    cs = err.undefined_control_sequence()
    text = doc.prose.get(name, "")
    if cs and cs[1:].isalpha() and cs in text and name not in doc.plain_prose:
        doc.prose[name] = re.sub(re.escape(cs) + r"(?![A-Za-z])", cs[1:], text)
        return f"removed the undefined command {cs} from the {name} prose"
    return None


def _fix_verbatim_block(doc: PaperDoc, block: str, err: LogError) -> str | None:
    cs = err.undefined_control_sequence()
    undefined = doc.block_undefined.setdefault(block, set())
    if cs and cs[1:].isalpha() and cs[1:] not in undefined and cs in verbatim_text(doc, block):
        undefined.add(cs[1:])
        return f"set the undefined command {cs} in {block} as text"
    if block not in doc.source_blocks:
        # the last resort: the whole block verbatim, with a visible note (render.as_source)
        doc.source_blocks.add(block)
        return f"showed {block} as source text after: {err.message}"
    return None


def _drop_unknown_citations(doc: PaperDoc, log: LatexLog) -> str | None:
    if not log.undefined_citations:
        return None
    citable = doc.cite.citable_keys()
    ours = [k for k in log.undefined_citations if k in citable]
    if ours:
        doc.cite.excluded_keys.update(ours)
        return "dropped citation(s) BibTeX could not resolve: " + ", ".join(ours)
    keys = "|".join(re.escape(k) for k in log.undefined_citations)
    blocks = _blocks_mentioning(doc, re.compile(r"\\cite[a-z]*\*?(\[[^\]]*\])*\{[^}]*(" + keys + ")"))
    if blocks:
        doc.source_blocks.update(blocks)
        return "showed as source the verbatim block(s) citing unknown keys: " + ", ".join(blocks)
    return None


def _show_unknown_refs(doc: PaperDoc, log: LatexLog) -> str | None:
    if not log.undefined_references:
        return None
    labels = "|".join(re.escape(k) for k in log.undefined_references)
    blocks = _blocks_mentioning(doc, re.compile(r"\\[a-z]*ref\{(" + labels + r")\}"))
    if blocks:
        doc.source_blocks.update(blocks)
        return "showed as source the verbatim block(s) referring to unknown labels: " + ", ".join(blocks)
    return None


def _offending(tex: str, line: int | None) -> str:
    if not line:
        return ""
    lines = tex.splitlines()
    lo, hi = max(0, line - 4), min(len(lines), line + 2)
    return "\n".join(f"{n + 1}: {lines[n]}" for n in range(lo, hi))


def _failing_prose(tex: str, result: CompileResult) -> tuple[str, int | None] | None:
    for err in result.log.errors:
        block = block_at_line(tex, err.line) if err.line else None
        if block and block.startswith("prose:"):
            return block.split(":", 1)[1], err.line
    return None


def safe_mode(doc: PaperDoc) -> bool:
    """Everything as plain text/source: the last resort. False when already in safe mode."""
    before = (set(doc.plain_prose), set(doc.source_blocks), doc.show_plot)
    doc.plain_prose.update(PROSE_FIELDS)
    doc.source_blocks.update(verbatim_ids(doc))
    doc.show_plot = False
    return before != (set(doc.plain_prose), set(doc.source_blocks), doc.show_plot)


def write_inputs(doc: PaperDoc, build_dir: Path) -> tuple[str, str, RenderInfo]:
    tex, info = render_tex(doc)
    bib = render_bibtex(doc.cite)
    atomic_write_text(build_dir / TEX_NAME, tex)
    atomic_write_text(build_dir / BIB_NAME, bib)
    return tex, bib, info


async def compile_with_repair(
    doc: PaperDoc,
    build_dir: Path,
    toolchain: Toolchain,
    timeout_s: float,
    llm_fix: LLMFixer | None = None,
) -> RepairOutcome:
    build_dir.mkdir(parents=True, exist_ok=True)
    actions: list[str] = []
    llm_fixes = 0
    compiles = 0
    while True:
        tex, bib, info = write_inputs(doc, build_dir)
        result = await compile_tex(build_dir, TEX_NAME, toolchain, timeout_s)
        compiles += 1
        if result.ok:
            return RepairOutcome(True, tex, bib, info, "", actions, llm_fixes, result.pdf, compiles)
        if compiles >= MAX_COMPILES:
            break
        if result.timed_out:
            # nothing in the log to go by: one more try with no model-written LaTeX at all
            action = "safe mode after a timeout" if safe_mode(doc) else None
        else:
            action = deterministic_fix(doc, tex, result)
        if action is None and not result.timed_out:
            failing = _failing_prose(tex, result)
            if failing is not None:
                name, line = failing
                if llm_fix is not None and llm_fixes < MAX_LLM_FIXES and name not in doc.plain_prose:
                    llm_fixes += 1
                    replacement = await llm_fix(
                        name, doc.prose.get(name, ""), result.error_text(), _offending(tex, line)
                    )
                    if replacement and replacement.strip() and replacement != doc.prose.get(name):
                        doc.prose[name] = replacement
                        action = f"model fix {llm_fixes} of the {name} prose"
                if action is None and name not in doc.plain_prose:
                    doc.plain_prose.add(name)
                    action = f"printed the {name} prose as plain text"
        if action is None and safe_mode(doc):
            action = "safe mode: all prose as plain text, statements and proofs as source"
        if action is None:
            break
        actions.append(f"{action} (after: {result.error_text()[:200]})")
    return RepairOutcome(False, tex, bib, info, result.error_text(), actions, llm_fixes, None, compiles)


def copy_pdf(outcome: RepairOutcome, target: Path) -> bool:
    if outcome.pdf is None or not outcome.pdf.is_file():
        return False
    tmp = target.with_name(f".{target.name}.tmp")
    shutil.copyfile(outcome.pdf, tmp)
    tmp.replace(target)
    return True
