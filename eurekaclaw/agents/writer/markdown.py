"""paper.md: the same paper as Markdown (math left as $...$ for MathJax/KaTeX renderers).

Rendered from the same PaperDoc as the .tex, after the compile repair, so both say the same
thing; citations become `[key]` pointing at the reference list at the end.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import jinja2

from eurekaclaw.agents.writer.bibtex import plain_reference
from eurekaclaw.agents.writer.doc import LEVEL_MEANING, PaperDoc
from eurekaclaw.agents.writer.experiments import fmt
from eurekaclaw.agents.writer.render import looks_like_bare_math, sentence
from eurekaclaw.agents.writer.sanitize import sanitize_latex
from eurekaclaw.templates import TEMPLATES_DIR

_CITE = re.compile(r"\\cite([a-z]*)\*?(?:\[[^\]]*\])*\{([^}]*)\}")
_REF = re.compile(r"\\(?:eq|auto|page)?ref\{([^}]*)\}")
# the escapes escape_text() writes, undone for Markdown (multi-character ones first)
_UNESCAPE = {
    r"\textasciicircum{}": "^",
    r"\textasciitilde{}": "~",
    r"\textbackslash{}": "\\",
    r"\^{}": "^",
    r"\~{}": "~",
    r"\$": "$",
    r"\%": "%",
    r"\&": "&",
    r"\#": "#",
    r"\_": "_",
    r"\{": "{",
    r"\}": "}",
}


@lru_cache(maxsize=1)
def markdown_env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR / "paper")),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        undefined=jinja2.StrictUndefined,
    )


_LIST_ENV = re.compile(r"\\(?:begin|end)\{(?:itemize|enumerate|description)\}")
_ITEM = re.compile(r"[ \t]*\\item(?:\[([^\]]*)\])?[ \t]*")


def _markdown_lists(text: str) -> str:
    """LaTeX lists as Markdown bullets: a Markdown reader shows no `\\begin{itemize}` or `\\item`."""
    if "\\item" not in text and not _LIST_ENV.search(text):
        return text
    text = _LIST_ENV.sub("\n", text)
    text = _ITEM.sub(lambda m: "\n- " + (f"**{m.group(1)}** " if m.group(1) else ""), text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def cell(text: Any) -> str:
    return " ".join(str(text if text is not None else "--").split()).replace("|", "\\|")


class _Md:
    def __init__(self, doc: PaperDoc) -> None:
        self.doc = doc
        # `Lemma~\ref{lem:L2}` reads "Lemma L2"; the main result is Theorem/Conjecture 1
        self.label_names = {lem.label: lem.id for lem in doc.lemmas}
        self.label_names.update({"thm:main": "1", "tab:levels": "1"})

    def prose(self, name: str) -> str:
        raw = self.doc.prose.get(name, "") or ""
        if name in self.doc.plain_prose:
            return raw.strip()
        text = sanitize_latex(
            raw, mode="prose", cite_keys=self.doc.cite.citable_keys(), labels=self.doc.lemma_labels()
        ).text

        def cite(m: re.Match[str]) -> str:
            keys = "; ".join(k.strip() for k in m.group(2).split(",") if k.strip())
            return f"[{keys}]"

        text = _CITE.sub(cite, text)
        text = self._refs(text)
        text = _markdown_lists(text)
        text = re.sub(r"(?<!\\)~", " ", text)  # a tie is a space; an escaped tilde stays
        for tex, plain in _UNESCAPE.items():
            text = text.replace(tex, plain)
        return text.strip()

    def _refs(self, text: str) -> str:
        # `Lemma~\ref{lem:L2}` reads "Lemma L2" (a tie before a reference is a space)
        text = re.sub(r"(?<!\\)~(?=\\(?:eq|auto|page)?ref\{)", " ", text)
        return _REF.sub(lambda m: self.label_names.get(m.group(1), m.group(1)), text)

    def verbatim(self, text: str | None) -> str:
        text = (text or "").strip()
        if not text:
            return "_(no text recorded)_"
        if looks_like_bare_math(text):
            return f"$$\n{text}\n$$"
        return _markdown_lists(self._refs(text))

    def context(self) -> dict[str, Any]:
        doc = self.doc
        lemmas = []
        for lem in doc.lemmas:
            tag = lem.tag
            lemmas.append(
                {
                    "id": lem.id,
                    "tag": tag,
                    "statement": self.verbatim(lem.statement),
                    "proof": self.verbatim(lem.proof) if lem.proof else None,
                    "cite": lem.citation_key if lem.citation_key in doc.cite.citable_keys() else None,
                    "source": lem.citation_text if lem.provenance == "known" else "",
                    "depends": ", ".join(lem.dependencies),
                }
            )
        summary = doc.summary_rows()
        exp = None
        if doc.experiment is not None:
            exp = {
                "text": self.prose("experiments"),
                "csv": doc.experiment.csv_name,
                "plot": doc.experiment.has_plot and doc.show_plot,
                "checks": [
                    [
                        c.name,
                        c.horizon,
                        f"{fmt(c.empirical_mean)} ± {fmt(c.std_error)}",
                        fmt(c.theoretical),
                        "yes" if c.held else "NO",
                        fmt(c.margin),
                    ]
                    for c in doc.experiment.checks
                ],
                "notes": doc.experiment.notes,
                **doc.experiment.section_context(),
            }
        return {
            "title": " ".join(self.prose("title").split()),
            "abstract": self.prose("abstract"),
            "abstract_suffix": doc.abstract_suffix(),
            "introduction": self.prose("introduction"),
            "preliminaries": self.prose("preliminaries"),
            "related_work": self.prose("related_work"),
            "limitations": self.prose("limitations"),
            "assumptions": [self.verbatim(a) for a in doc.assumptions],
            "proved": doc.proved,
            "standing": doc.standing,
            "theorem_env": doc.theorem_env,
            "theorem_name": doc.theorem_env.capitalize(),
            "theorem_tag": doc.theorem_tag(),
            "theorem_status": doc.theorem_word,
            "status_reason": doc.status_reason,
            "weakest": doc.weakest,
            "theorem": self.verbatim(doc.theorem_statement),
            "theorem_words": self.verbatim(doc.theorem_in_words) if doc.theorem_in_words.strip() else None,
            "scope_sentence": sentence(doc.scope_sentence),
            "theorem_how": doc.theorem.how if doc.theorem is not None else "",
            "theorem_hint": sentence(doc.theorem.hint) if doc.theorem is not None else "",
            "theorem_proof": self.verbatim(doc.theorem_proof) if doc.theorem_proof else None,
            "unproved_assembly": doc.unproved_assembly,
            "lemmas": lemmas,
            "summary": [[cell(c) for c in row] for row in summary],
            "levels": [{"name": lvl, "meaning": LEVEL_MEANING[lvl]} for lvl in doc.levels_used],
            "counterexamples": [f"{c.lemma_id}: {c.description or c.assignment}" for c in doc.counterexamples],
            "experiment": exp,
            "directions": doc.directions,
            "references": [(key, plain_reference(p)) for key, p in doc.cite.citable()],
            "unverified": [f"{plain_reference(p)} [{p.verification}]" for p in doc.cite.unverified],
            "checks_ran": doc.cite.checks_ran,
            "offline": doc.cite.offline,
            "shipped_cited": bool(doc.cite.shipped_keys & doc.cite.citable_keys()),
            "dropped_not_found": doc.cite.dropped_not_found,
            "cell": cell,
        }


def render_markdown(doc: PaperDoc, notes: list[str] | None = None) -> str:
    ctx = _Md(doc).context()
    ctx["build_notes"] = notes or []
    return markdown_env().get_template("paper.md.j2").render(**ctx)
