"""Golden run through latexmk with realistic lemma ids (`_`, `.`, `:`, digits, unicode), checked
on the PDF itself: no LaTeX leaks into the text, every proof is typeset (not shown as source),
no word runs past the right margin. Page images are rendered into the test's tmp dir."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import writer_helpers as wh
from toolreq import require_tool

from eurekaclaw.agents.writer import WriteStage
from eurekaclaw.types.artifacts import LemmaNode, ProofRecord, TheoryState
from eurekaclaw.types.tasks import InputSpec

pytestmark = pytest.mark.e2e

SPEC = InputSpec(mode="prove", statement="UCB1 regret")
MARGIN_PT = 1.2 * 72  # geometry margin=1.2in
# Each proof carries a marker word, so its presence in the PDF text proves it was typeset.
PROOFS = {
    "conc.hoeffding": "This is Hoeffding's inequality.",
    "pull_event": "MARKPULL By \\cref{lem:conc.hoeffding}, after $\\ell$ pulls the confidence radius of "
    "arm $i$ is below $\\Delta_i/2$, so a pull_event happens with probability at most $2T^{-4}$.",
    "step:2": "MARKSTEP Combining Lemma~\\ref{lem:pull_event} with \\mu_i \\le 1 and x_i in [0,1] "
    "gives the claim for 50% of the arms & the rest by symmetry.",
    "lemma_3b": "MARKTHREEB Apply the Cauchy--Schwarz inequality to $(1,\\dots,1)$ and "
    "$(\\sqrt{a_1},\\dots,\\sqrt{a_K})$, as in Lemma~\\ref{lem:not_a_lemma}.",
    "ünï_bound": "MARKUNI By Lemma~\\ref{lem:step:2}, $\\undefinedmacro{x} \\le 1$ for every arm, "
    "which closes the { argument.",
    "main_thm": "MARKMAIN Combine Lemma~\\ref{lem:pull_event}, Lemma~\\ref{lem:step:2}, "
    "Lemma~\\ref{lem:lemma-3b} and Lemma~\\ref{lem:ünï_bound}.",
}
DEPS = {
    "conc.hoeffding": [],
    "pull_event": ["conc.hoeffding"],
    "step:2": ["pull_event"],
    "lemma_3b": [],
    "ünï_bound": ["step:2"],
    "main_thm": ["pull_event", "step:2", "lemma_3b", "ünï_bound"],
}


def realistic_theory() -> TheoryState:
    base = wh.theory()
    dag: dict[str, LemmaNode] = {}
    proven: dict[str, ProofRecord] = {}
    for lid, deps in DEPS.items():
        root = lid == "main_thm"
        statement = (
            base.lemma_dag["main"].statement
            if root
            else f"For all $n \\ge 1$, the quantity $q_n$ of {lid} is at most $1$."
        )
        dag[lid] = LemmaNode(
            id=lid,
            statement=statement,
            dependencies=deps,
            is_root=root,
            status="proved",
            provenance="known" if lid == "conc.hoeffding" else "new",
            citation="hoeffding1963probability" if lid == "conc.hoeffding" else None,
        )
        level = "cited" if lid == "conc.hoeffding" else ("smt" if lid == "lemma_3b" else "reviewed")
        proven[lid] = ProofRecord(lemma_id=lid, proof=PROOFS[lid], verification_level=level)
    return base.model_copy(
        update={
            "lemma_dag": dag,
            "proven_lemmas": proven,
            # a plain-text assumption, as a model writes it
            "assumptions": ["Rewards of arm i lie in [0,1] with mean mu_i and gap Delta_i = mu_star - mu_i."],
        }
    )


def _run(*argv: str) -> str:
    return subprocess.run(list(argv), capture_output=True, check=True, timeout=120).stdout.decode("utf-8", "replace")


async def test_golden_pdf_with_realistic_ids(tmp_path: Path) -> None:
    require_tool("latexmk")
    require_tool("pdftotext")
    require_tool("pdftoppm")
    bus = wh.session(tmp_path, state=realistic_theory())
    assert bus.session_dir is not None
    # two instances and seven policies: two panels per instance, legends outside the plot
    rows = ["series,t,mean,stderr,q10,q50,q90"]
    for inst in ("bernoulli_easy", "bernoulli_hard"):
        for k, pol in enumerate(("UCB1", "KL-UCB", "Thompson", "eps_greedy_0.1", "MOSS", "UCB-V", "ETC")):
            rows += [
                f"{pol}@{inst},{t},{(k + 1) * t**0.5:.3f},{0.05 * t**0.5:.3f},0,0,0" for t in (1, 10, 100, 1000, 10000)
            ]
        rows += [f"bound:ucb1_gap_free@{inst},{t},{8 * t**0.5:.3f},0,0,0,0" for t in (1, 10, 100, 1000, 10000)]
    (bus.session_dir / "regret.csv").write_text("\n".join(rows) + "\n")
    ctx = wh.context(bus, rules=[{"role": "writer", "output": "PaperProse", "reply": wh.GOOD_PROSE}])
    outcome = await WriteStage().run(ctx, SPEC)
    assert outcome.status == "completed", outcome.reason
    sdir = bus.session_dir
    assert sdir is not None
    pdf = sdir / "paper.pdf"
    tex = (sdir / "paper.tex").read_text()
    paper = bus.get("paper")

    # every proof typeset: no block fell back to source
    assert "could not be typeset" not in tex
    assert not any("shown as LaTeX source" in n for n in paper.notes), paper.notes
    # labels: the proofs' citations resolve to the labels the lemmas define
    assert "\\label{lem:pull_event}" in tex and "\\label{lem:conc.hoeffding}" in tex
    assert "\\label{lem:step:2}" in tex
    uni = re.search(r"\\label\{(lem:uni_bound-[0-9a-f]{6})\}", tex)
    assert uni and f"\\ref{{{uni.group(1)}}}" in tex
    assert "Lemma~\\ref{lem:lemma_3b}" in tex  # `lem:lemma-3b` was a slip for lemma_3b

    text = " ".join(_run("pdftotext", "-raw", str(pdf), "-").split())
    for leak in ("\\ref{", "\\cref", "\\begin{", "$", "??", "\\le ", "\\mu"):
        assert leak not in text, leak
    for marker in ("MARKPULL", "MARKSTEP", "MARKTHREEB", "MARKUNI", "MARKMAIN"):
        assert marker in text, marker
    assert "This is Hoeffding" in text and "inequality." in text
    assert "not_a_lemma" in text  # an unknown reference is shown as its name, not "??"
    assert "\\undefinedmacro{x}" in text  # the unknown command as text; the rest of the proof typeset
    assert "50% of the arms & the rest" in text
    assert "μi" in text or "µi" in text  # mu_i set in math mode, as \mu_i
    assert "pull_event" in text and "mu_star" in text  # identifiers stay words
    assert "Lemma L2 is the key step" in text  # a prose reference to no lemma keeps its name

    # no word past the right margin
    bbox = _run("pdftotext", "-bbox", str(pdf), "-")
    pages = re.findall(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', bbox, re.S)
    assert pages
    for width, _height, body in pages:
        right = float(width) - MARGIN_PT + 1.0
        for x_max, word in re.findall(
            r'<word xMin="[\d.]+" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>', body
        ):
            assert float(x_max) <= right, f"{word!r} ends at {x_max} > {right}"

    images = tmp_path / "pages"
    images.mkdir()
    _run("pdftoppm", "-png", "-r", "60", str(pdf), str(images / "page"))
    assert len(list(images.glob("page-*.png"))) == len(pages)
    assert "instance: bernoulli_easy" in text and "instance: bernoulli_hard" in text
