"""Render a PaperDoc into LaTeX with the jinja2 template templates/paper/paper.tex.j2.

The template uses its own delimiters, ((* block *)), ((( variable ))) and ((= comment =)), so
they never collide with LaTeX braces. Every value is escaped as plain text unless it is a `Tex`
string prepared here, so forgetting to escape in the template fails safe. Each inserted block is
wrapped in `%@block <id>` / `%@endblock <id>` comment lines: the compile repair maps a log line
number back to the block that caused the error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jinja2

from eurekaclaw.agents.writer.bibtex import plain_reference
from eurekaclaw.agents.writer.doc import LEVEL_MEANING, PaperDoc
from eurekaclaw.agents.writer.escape import Tex, breakable, escape_text, source_block
from eurekaclaw.agents.writer.experiments import fmt
from eurekaclaw.agents.writer.figures import figures_context
from eurekaclaw.agents.writer.fragments import normalize_refs, repair_fragments
from eurekaclaw.agents.writer.sanitize import sanitize_latex
from eurekaclaw.agents.writer.unicode import unicode_declarations
from eurekaclaw.templates import TEMPLATES_DIR

BLOCK_OPEN = "%@block "
BLOCK_CLOSE = "%@endblock "
_CITE_RE = re.compile(r"\\cite[a-z]*\*?(?:\[[^\]]*\])*\{([^}]*)\}")
_DELIMS = ("$", "\\(", "\\[", "\\begin{")
LINES_AFTER_BLOCK = 2


def _finalize(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, Tex):
        return value
    return escape_text(str(value))


@lru_cache(maxsize=1)
def latex_env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR / "paper")),
        block_start_string="((*",
        block_end_string="*))",
        variable_start_string="(((",
        variable_end_string=")))",
        comment_start_string="((=",
        comment_end_string="=))",
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        finalize=_finalize,
    )


def cited_keys(tex: str) -> list[str]:
    keys: list[str] = []
    for m in _CITE_RE.finditer(tex):
        for key in m.group(1).split(","):
            key = key.strip()
            if key and key not in keys:
                keys.append(key)
    return keys


def looks_like_bare_math(text: str) -> bool:
    """A statement written as math without $...$ (e.g. `R_T \\le C\\sqrt{T}`) would stop
    pdflatex with 'Missing $ inserted'; it is displayed as math instead, unchanged."""
    if any(d in text for d in _DELIMS):
        return False
    if not re.search(r"[\\^_=<>]", text):
        return False
    plain_words = re.findall(r"(?<![\\A-Za-z])[A-Za-z]{3,}", text)
    return len(plain_words) < 3


SOURCE_NOTE_PREFIX = "shown as LaTeX source"


def sentence(text: str) -> str:
    """A generated phrase as a sentence: a capital first letter, one full stop ("" stays "")."""
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


@dataclass
class RenderInfo:
    notes: list[str] = field(default_factory=list)
    cited: list[str] = field(default_factory=list)
    source_shown: list[str] = field(default_factory=list)  # blocks printed as source (last resort)
    repaired: dict[str, list[str]] = field(default_factory=dict)  # block -> fragment fixes


class _Renderer:
    def __init__(self, doc: PaperDoc) -> None:
        self.doc = doc
        self.info = RenderInfo()

    def note(self, text: str) -> None:
        if text not in self.info.notes:
            self.info.notes.append(text)

    @staticmethod
    def wrap(block_id: str, body: str) -> Tex:
        return Tex(f"{BLOCK_OPEN}{block_id}\n{body}\n{BLOCK_CLOSE}{block_id}")

    def verbatim(self, block_id: str, text: str, what: str) -> Tex:
        """A statement or proof from the TheoryState, typeset as recorded with each problem
        repaired where it is (fragments.py); shown as its source only as a last resort, with a
        visible note."""
        text = text.strip()
        if not text:
            return self.wrap(block_id, r"\emph{(no text recorded)}")
        if block_id in self.doc.source_blocks:
            return self.as_source(block_id, text, what, "it broke the compilation")
        bare = looks_like_bare_math(text)
        rep = repair_fragments(
            "\\[\n" + text + "\n\\]" if bare else text,
            labels=self.doc.labels,
            cite_keys=self.doc.cite.citable_keys(),
            undefined=self.doc.block_undefined.get(block_id, ()),
            bad_chars=self.doc.block_bad_chars.get(block_id, ()),
        )
        check = sanitize_latex(rep.text, mode="block")
        if check.changed:
            return self.as_source(block_id, text, what, "; ".join(dict.fromkeys(check.removed)))
        if rep.fixes:
            self.info.repaired[block_id] = rep.fixes
            self.note(
                f"{what} repaired in place: " + "; ".join(rep.fixes[:5]) + ("; ..." if len(rep.fixes) > 5 else "")
            )
        return self.wrap(block_id, rep.text)

    def as_source(self, block_id: str, text: str, what: str, reason: str) -> Tex:
        self.info.source_shown.append(block_id)
        self.note(f"{what} is {SOURCE_NOTE_PREFIX} ({reason})")
        head = (
            "\\noindent\\emph{[" + escape_text(what[0].upper() + what[1:]) + " could not be typeset and is "
            "shown as its LaTeX source.]}\\par\n"
        )
        return self.wrap(block_id, head + source_block(text))

    def prose(self, name: str, *, inline: bool = False) -> Tex:
        raw = self.doc.prose.get(name, "") or ""
        if inline:
            raw = " ".join(raw.split())
        if name in self.doc.plain_prose:
            body: str = escape_text(raw)
        else:
            if self.doc.labels is not None:
                raw = normalize_refs(raw, self.doc.labels)
            result = sanitize_latex(
                raw,
                mode="prose",
                cite_keys=self.doc.cite.citable_keys(),
                labels=self.doc.lemma_labels(),
            )
            body = result.text
            if inline:
                body = " ".join(body.split())
            for item in dict.fromkeys(result.removed):
                self.note(f"{name.replace('_', ' ')} prose: {item}")
        return Tex(body) if inline else self.wrap(f"prose:{name}", body)

    # --- pieces --------------------------------------------------------------------------------
    def level_tag(self, text: str) -> Tex:
        return Tex(f"\\eclevel{{{escape_text(text)}}}")

    def lemma_context(self) -> list[dict[str, Any]]:
        rows = []
        for i, lem in enumerate(self.doc.lemmas):
            tag = lem.tag
            head = f"\\texttt{{{escape_text(lem.id)}}}; {self.level_tag(tag)}"
            if lem.citation_key and lem.citation_key in self.doc.cite.citable_keys():
                head += f" \\citep{{{lem.citation_key}}}"
            rows.append(
                {
                    "label": Tex(lem.label),
                    "head": Tex(head),
                    "margin": Tex(escape_text(tag)),
                    "statement": self.verbatim(
                        f"lemma:{i}:statement", lem.statement, f"the statement of lemma {lem.id}"
                    ),
                    "proof": self.verbatim(f"lemma:{i}:proof", lem.proof, f"the proof of lemma {lem.id}")
                    if lem.proof
                    else None,
                    "id": lem.id,
                    "status": lem.status,
                    "level": lem.level,
                    "source": lem.citation_text,
                    "depends": ", ".join(lem.dependencies),
                    "known": lem.provenance == "known",
                }
            )
        return rows

    def experiment_context(self) -> dict[str, Any] | None:
        view = self.doc.experiment
        if view is None:
            return None
        plot = view.has_plot and self.doc.show_plot and "figure:plot" not in self.doc.source_blocks
        figures: list[dict[str, Any]] = []
        if plot:
            figures, notes = figures_context(view)
            for text in notes:
                self.note(text)
        checks = [
            {
                "name": breakable(c.name),
                "horizon": str(c.horizon),
                "empirical": f"{fmt(c.empirical_mean)} ± {fmt(c.std_error)}",
                "theoretical": fmt(c.theoretical),
                "held": "yes" if c.held else "NO",
                "margin": fmt(c.margin),
            }
            for c in view.checks
        ]
        return {
            "plot": plot and bool(figures),
            "figures": figures,
            "checks": checks,
            "notes": view.notes,
            **view.section_context(),
            "csv": view.csv_name or "",
            "text": self.prose("experiments"),
            "open": Tex(BLOCK_OPEN + "figure:plot"),
            "close": Tex(BLOCK_CLOSE + "figure:plot"),
        }

    def context(self) -> dict[str, Any]:
        doc = self.doc
        plan = doc.cite
        theorem_tag = doc.theorem_tag()
        abstract = self.prose("abstract")
        suffix = escape_text(doc.abstract_suffix())
        ctx: dict[str, Any] = {
            "unicode_declarations": Tex(unicode_declarations()),
            "title": self.prose("title", inline=True),
            "abstract": abstract,
            "abstract_suffix": suffix,
            "introduction": self.prose("introduction"),
            "preliminaries": self.prose("preliminaries"),
            "related_work": self.prose("related_work"),
            "limitations": self.prose("limitations"),
            "assumptions": [
                self.verbatim(f"assumption:{i}", a, f"assumption {i + 1}") for i, a in enumerate(doc.assumptions)
            ],
            "proved": doc.proved,
            "standing": doc.standing,
            "theorem_env": doc.theorem_env,
            "theorem_name": doc.theorem_env.capitalize(),
            "theorem_status": doc.theorem_word,
            "status_reason": doc.status_reason,
            "theorem_head": self.level_tag(theorem_tag),
            "theorem_margin": theorem_tag,
            "theorem": self.verbatim("theorem:statement", doc.theorem_statement, "the main statement"),
            # the model's own statement beside the checked claim, and the generated narrowing
            "theorem_words": self.verbatim("theorem:words", doc.theorem_in_words, "the statement in words")
            if doc.theorem_in_words.strip()
            else None,
            "scope_sentence": sentence(doc.scope_sentence),
            "theorem_how": doc.theorem.how if doc.theorem is not None else "",
            "theorem_hint": sentence(doc.theorem.hint.replace("`", "")) if doc.theorem is not None else "",
            "theorem_proof": self.verbatim("theorem:proof", doc.theorem_proof, "the proof of the main theorem")
            if doc.theorem_proof
            else None,
            "unproved_assembly": doc.unproved_assembly,
            "lemmas": self.lemma_context(),
            "summary": [
                dict(zip(("name", "status", "level", "checks"), map(breakable, row), strict=True))
                for row in doc.summary_rows()
            ],
            "weakest": doc.weakest,
            "levels": [{"name": lvl, "meaning": LEVEL_MEANING[lvl]} for lvl in doc.levels_used],
            "counterexamples": [
                f"{c.lemma_id}: {c.description or c.assignment}" + (f" (found by {c.checker})" if c.checker else "")
                for c in doc.counterexamples
            ],
            "experiment": self.experiment_context(),
            "directions": doc.directions,
            "checks_ran": plan.checks_ran,
            "offline": plan.offline,
            "unverified": [f"{plain_reference(p)} [{p.verification}]" for p in plan.unverified],
            "dropped_not_found": plan.dropped_not_found,
        }
        # verified works the prose did not cite are still cited once, so every reference in
        # references.bib is reachable from the text
        prose_text = "\n".join(
            str(ctx[k]) for k in ("title", "abstract", "introduction", "preliminaries", "related_work", "limitations")
        )
        if ctx["experiment"]:
            prose_text += str(ctx["experiment"]["text"])
        already = set(cited_keys(prose_text)) | {lem.citation_key for lem in doc.lemmas if lem.citation_key}
        already &= plan.citable_keys()
        # a domain's shipped references appear only where something cites them: they were not
        # "surveyed for this work"
        extra = [key for key, _ in plan.citable() if key not in already and key not in plan.shipped_keys]
        ctx["extra_citations"] = Tex(",".join(extra)) if extra else None
        ctx["has_bibliography"] = bool(extra or already)
        ctx["shipped_cited"] = bool(already & plan.shipped_keys)
        # an empty section is omitted (the assumptions alone still get the section)
        ctx["has_preliminaries"] = bool((doc.prose.get("preliminaries") or "").strip() or doc.assumptions)
        return ctx


def render_tex(doc: PaperDoc) -> tuple[str, RenderInfo]:
    renderer = _Renderer(doc)
    tex = latex_env().get_template("paper.tex.j2").render(**renderer.context())
    renderer.info.cited = cited_keys(tex)
    return tex, renderer.info


def block_at_line(tex: str, line_no: int) -> str | None:
    """The id of the block that contains 1-based line `line_no`. TeX often notices an error a
    line or two after its cause (at a closing marker or an \\end), so a line just after a
    block counts as that block's."""
    stack: list[str] = []
    last_closed: tuple[str, int] | None = None
    for n, line in enumerate(tex.splitlines(), start=1):
        if line.startswith(BLOCK_OPEN):
            stack.append(line[len(BLOCK_OPEN) :].strip())
        elif line.startswith(BLOCK_CLOSE):
            if stack:
                last_closed = (stack.pop(), n)
            if n == line_no and last_closed:
                return last_closed[0]
        if n == line_no:
            if stack:
                return stack[-1]
            if last_closed and n - last_closed[1] <= LINES_AFTER_BLOCK:
                return last_closed[0]
            return None
    return None
