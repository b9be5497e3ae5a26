"""Golden tests of the rendered paper on a fixed TheoryState: verbatim blocks, level tags,
conjecture handling, citation rules, experiments, Markdown."""

from __future__ import annotations

import re
from pathlib import Path

import writer_helpers as wh

from eurekaclaw.agents.writer.bibtex import assign_cite_keys, plan_citations, render_bibtex
from eurekaclaw.agents.writer.doc import build_doc
from eurekaclaw.agents.writer.experiments import MAX_POINTS, experiment_view, read_plot_csv
from eurekaclaw.agents.writer.markdown import render_markdown
from eurekaclaw.agents.writer.render import block_at_line, render_tex
from eurekaclaw.types.artifacts import Bibliography, Paper, TheoryState


def _doc(theory: TheoryState | None = None, *, bib: Bibliography | None = None, with_experiment: bool = True):
    theory = theory or wh.theory()
    plan = plan_citations(bib if bib is not None else wh.bibliography())
    view = experiment_view(wh.experiment(), wh.FIXTURES) if with_experiment else None
    return build_doc(theory, plan, view, dict(wh.GOOD_PROSE))


def test_statements_and_proofs_are_verbatim() -> None:
    theory = wh.theory()
    tex, _ = render_tex(_doc(theory))
    assert theory.formal_statement in tex
    for lid in ("L1", "L2", "L3"):
        assert theory.lemma_dag[lid].statement in tex
        assert theory.proven_lemmas[lid].proof in tex
    root = theory.root_id()
    assert root is not None and theory.proven_lemmas[root].proof in tex
    for assumption in theory.assumptions:
        assert assumption in tex
    # the theorem is a theorem, and its statement sits inside the theorem environment
    body = tex.split("\\begin{theorem}", 1)[1].split("\\end{theorem}", 1)[0]
    assert theory.formal_statement in body
    assert "\\begin{conjecture}" not in tex


def test_every_lemma_carries_its_level_in_head_margin_and_table() -> None:
    tex, _ = render_tex(_doc())
    expected = {"L1": "cited", "L2": "reviewed", "L3": "smt"}
    for lid, level in expected.items():
        head = re.search(r"\\begin\{lemma\}\[\\texttt\{" + lid + r"\}; \\eclevel\{verified: (\w+)[^}]*\}", tex)
        assert head and head.group(1) == level
        assert f"Lemma {lid} & proved & {level} &" in tex
    assert "\\ecmargin" not in tex  # the tag is in the head; no margin note repeats it
    # the weakest level used is stated (cited is weaker than reviewed and smt)
    assert "The weakest verification level used in\nthis paper is \\textbf{cited}" in tex
    assert "the weakest verification level used by its lemmas is cited" in tex
    # the root lemma is the theorem, not a separate lemma
    assert "\\texttt{main}" not in tex


def test_known_lemma_cites_its_verified_source() -> None:
    tex, _ = render_tex(_doc())
    assert re.search(r"\\texttt\{L1\}; \\eclevel\{verified: cited\} \\citep\{hoeffding1963probability\}", tex)


def test_unproved_theorem_is_a_conjecture_and_the_abstract_says_so() -> None:
    theory = wh.unproved_theory()
    doc = _doc(theory)
    tex, _ = render_tex(doc)
    assert "\\begin{theorem}" not in tex
    conj = tex.split("\\begin{conjecture}", 1)[1].split("\\end{conjecture}", 1)[0]
    assert theory.formal_statement in conj
    abstract = tex.split("\\begin{abstract}", 1)[1].split("\\end{abstract}", 1)[0]
    assert "not proved here and is presented as a conjecture" in abstract
    assert "Only 2 of 3 supporting lemmas were established" in abstract
    assert re.search(r"\\texttt\{L2\}; \\eclevel\{not proved\}", tex)
    assert "Proof of Lemma~\\ref{lem:L2}" not in tex  # no proof for an unproved lemma
    assert "Proof of Theorem" not in tex
    assert "An assembled argument exists but did not pass its checks" in tex
    assert theory.assembled_proof not in tex
    md = render_markdown(doc)
    assert "**Conjecture** `[not proved: in progress]`" in md
    assert "not proved here and is presented as a conjecture" in md


def test_refuted_theorem_says_so_in_the_abstract() -> None:
    theory = wh.unproved_theory()
    theory.status = "refuted"
    tex, _ = render_tex(_doc(theory))
    abstract = tex.split("\\begin{abstract}", 1)[1].split("\\end{abstract}", 1)[0]
    assert "The main statement was refuted" in abstract
    assert "\\begin{conjecture}" in tex


def test_only_verified_references_are_cited_and_in_the_bib() -> None:
    doc = _doc()
    tex, info = render_tex(doc)
    bib = render_bibtex(doc.cite)
    cited = set(info.cited)
    assert cited == {"auer2002finitetime", "hoeffding1963probability", "bubeck2012regret"}
    assert set(re.findall(r"@\w+\{([^,]+),", bib)) == cited
    # unverified and suspicious entries are listed as plain text, never in \cite or the .bib
    assert "Made-up Paper" not in bib and "Made-up Paper" in tex
    assert "[suspicious]" in tex and "[unverified]" in tex
    assert "Hallucinated" not in tex and "Hallucinated" not in bib
    assert "1 further reference(s) suggested during the survey could not be found" in tex
    # the unverified entry's special characters are escaped in the list
    assert "100\\% Optimal Bandits \\& Friends" in tex


def test_offline_bibliography_cites_nothing_and_says_why() -> None:
    bib = wh.bibliography()
    bib.checks_ran = False
    for paper in bib.papers:
        paper.verification = "unverified"
    doc = _doc(bib=bib)
    tex, info = render_tex(doc)
    assert info.cited == []
    assert "\\bibliography{references}" not in tex
    assert "Citation checks could not run for this session" in tex
    assert render_bibtex(doc.cite).count("@") == 0


def test_bibtex_fields_are_escaped_and_balanced() -> None:
    paper = Paper(
        paper_id="x",
        title="Rates {of} 100% & more_things #1",
        authors=["Ann O'Neil", "Bo $Li"],
        year=2020,
        venue="J. of A&B",
        verification="verified",
        doi="10.1000/a_b",
    )
    plan = plan_citations(Bibliography(papers=[paper], checks_ran=True))
    bib = render_bibtex(plan)
    assert "title = {{Rates of 100\\% \\& more\\_things \\#1}}" in bib
    assert "author = {Ann O'Neil and Bo \\$Li}" in bib
    assert "journal = {J. of A\\&B}" in bib
    entry = bib.split("@article", 1)[1]
    assert entry.count("{") == entry.count("}")


def test_cite_keys_are_deterministic_and_unique() -> None:
    papers = [
        Paper(paper_id="a", title="The Regret of Bandits", authors=["Jane Smith"], year=2020),
        Paper(paper_id="b", title="Regret bounds again", authors=["Smith, John"], year=2020),
        Paper(paper_id="c", title="A Study", authors=[], cite_key="custom:key"),
        Paper(paper_id="d", title="Bad key", authors=["Zoë Ångström"], year=None, cite_key="bad key{}"),
    ]
    keys = assign_cite_keys(papers)
    assert keys == {"a": "smith2020regret", "b": "smith2020regretb", "c": "custom:key", "d": "angstromndbad"}
    assert assign_cite_keys(papers) == keys


def test_experiment_plot_and_bound_table() -> None:
    tex, _ = render_tex(_doc())
    assert "\\usepackage{pgfplots}" in tex
    assert "xmode=log" in tex  # the horizon spans four decades
    assert tex.count("\\addlegendentry") == 3
    assert tex.count(", dashed]") == 1  # the bound series only
    assert tex.count("fill opacity=0.18") == 2  # ± s.e. bands for the two policies
    assert "\\addlegendentry{ucb1\\_gap\\_free (bound)}" in tex
    assert "ylabel={cumulative regret}" in tex
    assert "legend style={font=\\scriptsize, at={(0.5,-0.32)}, anchor=north" in tex  # outside the plot
    assert "Mean cumulative regret over 50 runs for each policy" in tex
    assert "ucb1\\_\\allowbreak{}log\\_\\allowbreak{}T & 10000 & 2036 ± 1.2 & 40 & NO & -1996" in tex
    assert "\\section{Experiments}" in tex


def test_one_panel_per_instance_with_a_handful_of_series(tmp_path: Path) -> None:
    rows = ["series,t,mean,stderr,q10,q50,q90"]
    for inst in ("easy", "hard"):
        for k in range(7):
            rows += [f"pol{k}@{inst},{t},{t * 0.1 * (k + 1)},0.5,0,0,0" for t in (10, 20, 40)]
        rows += [f"bound:gap_free@{inst},{t},{t},0,0,0,0" for t in (10, 20, 40)]
    (tmp_path / "r.csv").write_text("\n".join(rows))
    result = wh.experiment()
    result.plot_csv = "r.csv"
    view = experiment_view(result, tmp_path)
    assert view is not None
    panels = view.panels()
    assert [p.instance for p in panels] == ["easy", "easy", "hard", "hard"]
    assert all(len([s for s in p.series if not s.is_bound]) <= 5 for p in panels)
    assert all(any(s.is_bound for s in p.series) for p in panels)  # bounds in every panel
    assert not any(p.log_x for p in panels)  # 10..40 is not two decades
    doc = build_doc(wh.theory(), plan_citations(wh.bibliography()), view, dict(wh.GOOD_PROSE))
    tex, _ = render_tex(doc)
    assert "title={instance: easy}" in tex and "title={instance: hard}" in tex
    assert "\\addlegendentry{pol0}" in tex and "pol0@easy" not in tex
    assert "xmode=log" not in tex
    assert "Instances: easy, hard" in tex


def test_no_experiment_means_no_section_and_no_pgfplots() -> None:
    tex, _ = render_tex(_doc(with_experiment=False))
    assert "\\section{Experiments}" not in tex
    assert "pgfplots" not in tex


def test_plot_csv_is_thinned_on_a_log_grid(tmp_path: Path) -> None:
    rows = ["series,t,mean,stderr,q10,q50,q90"] + [f"p,{t},{t * 0.5},0,0,0,0" for t in range(1, 5001)]
    rows += ["p,0,1,0,0,0,0", "p,abc,1,0,0,0,0", "p,7,nan,0,0,0,0"]
    path = tmp_path / "r.csv"
    path.write_text("\n".join(rows))
    series, notes = read_plot_csv(path)
    assert len(series) == 1
    points = series[0].points
    assert len(points) <= MAX_POINTS + 1
    assert points[0] == (1.0, 0.5) and points[-1] == (5000.0, 2500.0)
    assert notes and "3 row(s)" in notes[0]


def test_hostile_fragment_is_shown_as_text_not_executed() -> None:
    theory = wh.theory()
    theory.lemma_dag["L3"].statement = "Bound holds for $x_i$. \\input{/etc/passwd}"
    tex, info = render_tex(_doc(theory))
    assert "\\input{/etc/passwd}" not in tex
    # only the forbidden fragment becomes text; the rest of the statement is typeset
    assert "Bound holds for $x_i$. \\textnormal{\\texttt{\\textbackslash{}input\\{/etc/passwd\\}}}" in tex
    assert any("lemma L3" in n and "repaired in place" in n for n in info.notes)
    assert info.source_shown == []


def test_block_markers_locate_lines() -> None:
    tex, _ = render_tex(_doc())
    lines = tex.splitlines()
    target = next(i for i, line in enumerate(lines, start=1) if "For every suboptimal arm" in line)
    assert block_at_line(tex, target) == "lemma:1:statement"
    intro = next(i for i, line in enumerate(lines, start=1) if "Stochastic bandits are the basic" in line)
    assert block_at_line(tex, intro) == "prose:introduction"
    assert block_at_line(tex, 3) is None


def test_markdown_has_verbatim_statements_tags_and_references() -> None:
    theory = wh.theory()
    md = render_markdown(_doc(theory))
    assert theory.formal_statement in md
    assert theory.lemma_dag["L2"].statement in md
    assert "**Lemma L3** `[verified: smt (z3)]`" in md
    assert "**Lemma L1** `[verified: cited]` [hoeffding1963probability]" in md
    assert "| Lemma L2 | proved | reviewed |" in md
    assert "[auer2002finitetime]" in md  # \citet became [key]
    assert "- [bubeck2012regret] Sébastien Bubeck" in md
    assert "### Unverified references" in md
    assert "Lemma L2 is the key step" in md


def test_markdown_prose_shows_plain_characters_not_tex_escapes() -> None:
    from eurekaclaw.agents.writer.escape import escape_text

    theory = wh.theory()
    prose = dict(wh.GOOD_PROSE)
    prose["title"] = escape_text("Regret of x^2 ~ T_i with 50% & #1 {a} \\ b")
    md = render_markdown(build_doc(theory, plan_citations(wh.bibliography()), None, prose))
    assert md.splitlines()[0] == "# Regret of x^2 ~ T_i with 50% & #1 {a} \\ b"


def test_label_scheme_is_shared_with_the_assembly() -> None:
    from eurekaclaw.agents.theory.assembly import REF_RE
    from eurekaclaw.agents.writer.labels import (
        THEOREM_LABEL,
        LabelMap,
        cited_lemma_ids,
        lemma_label,
    )

    ids = ["pull_event", "conc.1", "step:2", "L3b", "ünï"]
    for lid in ids[:4]:
        assert lemma_label(lid) == f"lem:{lid}"  # exactly what the prover prompt tells the model
    assert lemma_label("ünï").startswith("lem:uni-") and lemma_label("ünï").isascii()
    proof = "By Lemma~\\ref{lem:pull_event}, \\cref{lem:conc.1} and \\ref{lem:step:2} and \\ref{lem:ünï}."
    assert cited_lemma_ids(proof) == ["pull_event", "conc.1", "step:2", "ünï"]
    assert REF_RE.findall(proof) == ["pull_event", "conc.1", "step:2", "ünï"]
    labels = LabelMap(ids, "main_thm")
    assert labels.resolve("lem:ünï") == lemma_label("ünï")
    assert labels.resolve("lem:pull-event") == "lem:pull_event"  # a slip, forgiven
    assert labels.resolve("lem:main_thm") == THEOREM_LABEL
    assert labels.resolve("lem:nothing") is None


def test_a_proof_with_problems_is_repaired_fragment_by_fragment() -> None:
    from eurekaclaw.agents.writer.fragments import repair_fragments

    rep = repair_fragments("Since mu_i \\le 1 and pull_event holds for 50% of arms, {done")
    assert rep.text == "Since $\\mu_i \\le 1$ and pull\\_event holds for 50\\% of arms, {done}"
    rep = repair_fragments("Then \\input{/etc/passwd} and $x_1$.")
    assert rep.text == "Then \\textnormal{\\texttt{\\textbackslash{}input\\{/etc/passwd\\}}} and $x_1$."


def test_a_block_that_cannot_be_repaired_is_source_with_a_visible_note() -> None:
    theory = wh.theory()
    theory.proven_lemmas["L3"].proof = "Proof. \\begin{verbatim}x\\end{verbatim} \\catcode`\\^=7 ^^5cinput{x}"
    doc = _doc(theory)
    doc.source_blocks.add("lemma:2:proof")  # e.g. after the compile log kept pointing at it
    tex, info = render_tex(doc)
    assert info.source_shown == ["lemma:2:proof"]
    assert "The proof of lemma L3 could not be typeset and is shown as its LaTeX source." in tex
    assert any("shown as LaTeX source" in n for n in info.notes)


def test_fallback_prose_is_conditional_on_the_data_and_escapes_the_statement() -> None:
    from eurekaclaw.agents.writer.prose import fallback_prose

    theory = wh.unproved_theory()
    theory.informal_statement = "For all x_i, 100% of $\\input{/etc/passwd} & more."
    theory.assumptions = []
    prose = fallback_prose(theory, plan_citations(wh.bibliography()), None)
    assert "\\input{" not in prose["introduction"] and "\\textbackslash{}input" in prose["introduction"]
    assert "For all $x_i$, 100\\% of $\\textnormal{\\texttt{\\textbackslash{}input" in prose["abstract"]
    assert "\\& more.$" in prose["abstract"]
    assert "decomposed into 3 lemma(s), 2 of which have a recorded proof" in prose["introduction"]
    assert prose["preliminaries"] == ""
    theory.lemma_dag = {k: v for k, v in theory.lemma_dag.items() if v.is_root}
    prose = fallback_prose(theory, plan_citations(wh.bibliography()), None)
    assert "0 lemma" not in prose["introduction"]
    assert "No decomposition into lemmas was recorded" in prose["introduction"]
    tex, _ = render_tex(build_doc(theory, plan_citations(wh.bibliography()), None, prose))
    assert "\\section{Preliminaries}" not in tex  # empty section omitted


def test_prose_claiming_a_proof_of_an_unproved_statement_is_dropped() -> None:
    from eurekaclaw.agents.writer.honest import check_prose
    from eurekaclaw.agents.writer.machine_claims import status_sentence

    prose = {
        "title": "A Proof of the Gap-Free Bound",
        "abstract": "We study UCB1. We prove Theorem 4, a new theorem. The analysis uses concentration.",
        "introduction": "Bandits matter. In this paper we show that the bound holds.",
    }
    theory = wh.unproved_theory()
    out, notes = check_prose(prose, theory, "UCB1 regret")
    assert out["title"] == "UCB1 regret"
    assert out["abstract"] == "We study UCB1. The analysis uses concentration."
    assert out["introduction"] == f"Bandits matter. {status_sentence(theory)}"
    assert len(notes) == 3
    # proved: "we show" is a description of the result; "we prove" is still a proof status the records state
    proved, notes = check_prose(prose, wh.theory(), "x")
    assert proved["introduction"] == prose["introduction"] and "We prove" not in proved["abstract"]
