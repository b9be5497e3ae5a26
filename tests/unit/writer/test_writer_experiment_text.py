"""The Experiments section a referee reads: the instance stated (arms, means, horizons, runs,
seed), each dashed curve named as an upper or a lower bound with its origin, what held and what
did not in plain sentences; no validator diagnostics; a deterministic program's experiment in
words that are not a bandit's. Also the generated paper text around it: the "follow" sentence,
the offline-by-choice notice and the typeset fallback title."""

from __future__ import annotations

import re
from pathlib import Path

import writer_helpers as wh

from domains.mab.experiment import MABExperimentBackend
from domains.mab.spec import BoundSpec, default_spec
from eurekaclaw.agents.experiment.checks import run_checks
from eurekaclaw.agents.experiment.designer import bound_sources
from eurekaclaw.agents.experiment.expr import compile_expression
from eurekaclaw.agents.experiment.report import SimulationReport, csv_rows, render_csv
from eurekaclaw.agents.experiment.violations import checked_metadata, violation_lines
from eurekaclaw.agents.writer.bibtex import plan_citations
from eurekaclaw.agents.writer.doc import build_doc
from eurekaclaw.agents.writer.experiments import experiment_view
from eurekaclaw.agents.writer.markdown import render_markdown
from eurekaclaw.agents.writer.prose import fallback_prose, prose_prompt
from eurekaclaw.agents.writer.render import render_tex
from eurekaclaw.agents.writer.results_brief import brief_facts, experiment_brief
from eurekaclaw.agents.writer.title_math import GENERIC_TITLE, fallback_title, plain_to_tex
from eurekaclaw.types.artifacts import BoundCheck, ExperimentResult

DIAGNOSTICS = (
    "default spec used: spec still invalid after one repair: horizons [0, 2]: each must lie in [10, 10000000]; "
    "instance ,1},: bad means"
)
INTERNALS = ("default spec used", "horizons [0, 2]", "instance ,1}", "cost-weighted", "1.5e+09", "spec still invalid")


def _simulate(tmp_path: Path, spec=None, source: str = "default") -> ExperimentResult:
    """A real run of the MAB backend (the default spec: about 1e7 work units) through the
    Experiment stage's own checks, with the designer's diagnostics in the notes."""
    backend = MABExperimentBackend()
    spec = spec or default_spec()
    raw = backend.run(spec)
    report = SimulationReport.model_validate(raw)
    names = {"T"} | {k for s in report.series for k in report.variables_for(s)}
    found = run_checks(report, {b.name: compile_expression(b.expression, names, relation=False) for b in report.bounds})
    (tmp_path / "regret_curves.csv").write_text(render_csv(csv_rows(report, found["curves"])))
    result = ExperimentResult(
        status="completed",
        domain="mab",
        plot_csv="regret_curves.csv",
        spec={
            "source": source,
            **raw["spec"],
            "checked": checked_metadata(report),
            "bound_sources": bound_sources(backend, spec),
        },
        bound_checks=found["bound_checks"],
        rate_fits=found["rate_fits"],
        notes=[DIAGNOSTICS, *raw["notes"]],
    )
    known = {b.name for b in spec.bounds if b.known and not b.lemma_id}
    for c in result.bound_checks:  # as the stage decides it
        c.from_theorem = source != "default" and c.name.split("@", 1)[0] not in known
    result.violations = violation_lines(result)
    return result


def _papers(result: ExperimentResult, tmp_path: Path, theory=None) -> tuple[str, str]:
    view = experiment_view(result, tmp_path)
    doc = build_doc(theory or wh.theory(), plan_citations(wh.bibliography()), view, dict(wh.GOOD_PROSE))
    return render_tex(doc)[0], render_markdown(doc, [])


def _section(text: str, start: str, end: str) -> str:
    return " ".join(text.split(start, 1)[1].split(end, 1)[0].split())


def test_the_default_instance_is_stated_and_each_curve_named_upper_or_lower(tmp_path: Path) -> None:
    result = _simulate(tmp_path)
    tex, md = _papers(result, tmp_path)
    section = _section(md, "## 5. Experiments", "## Related work")
    # the instance: K, every mean, horizons, runs, seed
    assert "Instance level1: K = 10 Bernoulli arms with means 0.9, 0.82, 0.74, 0.66, 0.58, 0.5, 0.42" in section
    assert "Horizons T = 1000, 3000, 10000; 100 independent runs" in section and "random seed 0" in section
    # the designer's invalid spec in plain words, not its diagnostics
    assert "The experiment designed for this theorem was invalid; the domain's default experiment below" in section
    # Lai-Robbins is a lower bound (asymptotic, instance-dependent), the UCB1 bound an upper bound
    assert "lai_robbins: an instance-dependent asymptotic lower bound" in section
    assert "Lai & Robbins (1985)" in section
    assert "ucb1_auer2002: an instance-dependent upper bound" in section and "Auer, Cesa-Bianchi & Fischer" in section
    assert "the domain's reference bound (not this theorem's)" in section
    assert "\\addlegendentry{lai\\_robbins (asymptotic lower bound)}" in tex
    assert "\\addlegendentry{ucb1\\_auer2002 (upper bound)}" in tex
    # what held, in sentences
    assert "ucb1_auer2002 on ucb1: held at all 3 horizons (at T = 10000: measured" in section
    assert "lai_robbins on ucb1: the measured growth over T = 1000 to 10000 is" in section
    tex_section = _section(tex, "\\section{Experiments}", "\\section{Related work}")
    assert "\\paragraph{The bounds drawn.}" in tex_section and "\\paragraph{What held.}" in tex_section
    assert "K = 10 Bernoulli arms" in tex_section


def test_no_internal_diagnostic_reaches_the_paper_or_the_prompt(tmp_path: Path) -> None:
    result = _simulate(tmp_path)
    assert any("cost-weighted" in n for n in result.notes)  # the record keeps them
    tex, md = _papers(result, tmp_path)
    view = experiment_view(result, tmp_path)
    prompt = prose_prompt(wh.theory(), plan_citations(wh.bibliography()), view, None, result)
    for text in (tex, md, experiment_brief(view, result), prompt):
        for internal in INTERNALS:
            assert internal not in text, internal
    # ... marked as internal facts of the brief, never shown to the model
    facts = brief_facts(view, result)
    assert any(f.internal and "cost-weighted" in f.text for f in facts)
    assert all(not f.internal for f in facts if "K = 10" in f.text)
    assert "K = 10 Bernoulli arms" in prompt and "asymptotic lower bound" in prompt


def test_a_violated_theorem_bound_is_said_plainly(tmp_path: Path) -> None:
    """The designer's own bound (too small: 10 ln T) fails and says so; the literature bound
    beside it held and is named as not this theorem's."""
    spec = default_spec().model_copy(deep=True)
    spec.bounds = [
        BoundSpec(name="ucb1_auer2002", known="ucb1_auer2002"),
        BoundSpec(name="claimed", expression="10*log(T)", policies=["ucb1"], lemma_id="L2"),
    ]
    result = _simulate(tmp_path, spec.normalised(), source="designer")
    _, md = _papers(result, tmp_path)
    section = _section(md, "## 5. Experiments", "## Related work")
    assert "The experiment below was designed for this theorem" in section
    assert "claimed: an upper bound on the expected regret of ucb1, this theorem's bound (it tests lemma L2)" in section
    assert "claimed on ucb1: did NOT hold at 3 of 3 horizons" in section
    assert "evidence against this theorem's bound" in section
    assert "a known bound from the literature, shown for comparison (not this theorem's)" in section
    assert "1 of this theorem's bounds was violated beyond statistical tolerance" in section


def _deterministic_result(tmp_path: Path) -> ExperimentResult:
    """A sandboxed program's deterministic sequence a_n = 1/n^2 (one run, no noise) against a
    bound tied to a lemma: no policies, no arms, no horizons."""
    ts = [1, 2, 5, 10, 20, 50, 100]
    rows = ["series,t,mean,stderr,q10,q50,q90"]
    partial = [sum(1 / k**2 for k in range(1, t + 1)) for t in ts]
    rows += [f"partial_sum,{t},{v},0,{v},{v},{v}" for t, v in zip(ts, partial, strict=True)]
    rows += [f"bound:two,{t},2,0,2,2,2" for t in ts]
    (tmp_path / "curves.csv").write_text("\n".join(rows) + "\n")
    checks = [
        BoundCheck(name="two@partial_sum", horizon=t, empirical_mean=v, std_error=0.0, theoretical=2.0, held=True)
        for t, v in zip(ts, partial, strict=True)
    ]
    for c in checks:
        c.margin, c.from_theorem = 2.0 - c.empirical_mean, True
    return ExperimentResult(
        status="completed",
        domain="analysis",
        plot_csv="curves.csv",
        spec={
            "source": "code",
            "rationale": "partial sums",
            "code": "print(1)",
            "variables": {},
            "bounds": [{"name": "two", "expression": "2", "direction": "upper", "series": [], "lemma_id": "L2"}],
            "checked": {
                "series": {"partial_sum": {"policy": "", "instance": "", "runs": 1}},
                "variables": {"": {}},
                "bounds": {"two": {"expression": "2", "direction": "upper", "asymptotic": False, "lemma_id": "L2"}},
            },
        },
        bound_checks=checks,
        notes=["sandbox: bubblewrap, cgroup v2 memory limit 2048 MiB"],
    )


def test_a_deterministic_sequence_is_not_described_with_bandit_words(tmp_path: Path) -> None:
    result = _deterministic_result(tmp_path)
    tex, md = _papers(result, tmp_path)
    view = experiment_view(result, tmp_path)
    brief = experiment_brief(view, result)
    for text in (
        _section(tex, "\\section{Experiments}", "\\section{Related work}"),
        _section(md, "## 5. Experiments", "## Related work"),
        brief,
    ):
        assert not re.search(r"\b(polic(y|ies)|horizons?|regret|arms?|T=|T = )\b", text), text
        assert "deterministic (one run, no random draws)" in text or "series computed" in text
    assert "xlabel={$t$}" in tex and "Bound & t & Empirical" in tex
    assert "two: an upper bound on the computed values of partial_sum, this theorem's bound (it tests lemma L2)" in md
    assert "two on partial_sum: held at all 7 values of t checked" in md
    assert "Measured value for each series" in tex  # no "mean over runs" of a single run
    assert "bubblewrap" not in tex and "bubblewrap" not in md


def test_follow_is_said_only_when_something_follows(tmp_path: Path) -> None:
    state = wh.unproved_theory()
    nothing = state.model_copy(deep=True)
    nothing.proven_lemmas.clear()
    for theory, established in ((state, True), (nothing, False)):
        doc = build_doc(theory, plan_citations(wh.bibliography()), None, dict(wh.GOOD_PROSE))
        for text in (render_tex(doc)[0], render_markdown(doc, [])):
            flat = " ".join(text.split())
            assert ("what was established towards it is listed below" in flat) is established
            assert ("no result towards it was established" in flat) is not established


def test_offline_by_choice_is_not_called_unreachable() -> None:
    bib = wh.bibliography().model_copy(update={"checks_ran": False})
    for offline in (True, False):
        plan = plan_citations(bib)
        plan.offline = offline
        doc = build_doc(wh.theory(), plan, None, dict(wh.GOOD_PROSE))
        for text in (render_tex(doc)[0], render_markdown(doc, [])):
            flat = " ".join(text.split())
            assert ("offline by choice" in flat) is offline
            assert ("were not reachable" in flat) is not offline


README = (
    "For K-armed stochastic bandits with rewards in [0,1], UCB1 has expected regret at most "
    "sum_i 8 ln T / Delta_i + (1 + pi^2/3) sum_i Delta_i"
)


def test_the_fallback_title_is_typeset_and_never_cut() -> None:
    title = fallback_title(README)
    assert title.endswith(r"$\sum_i 8 \ln T / \Delta_i + (1 + \pi^{2}/3) \sum_i \Delta_i$")
    assert title.startswith("For $K$-armed stochastic bandits with rewards in $[0,1]$, UCB1")
    assert "..." not in title and "…" not in title
    assert fallback_title("x_n <= 1/n for all n >= 1. More text.") == r"$x_n \le 1/n$ for all $n \ge 1$"
    assert fallback_title("The regret is O(sqrt(K T)), e.g. for Bernoulli arms.") == (
        r"The regret is $O(\sqrt{K T})$, e.g. for Bernoulli arms"
    )
    # English words stay words; a formula written by the user in $...$ stays as written
    assert plain_to_tex("the sum of 1/k^2 is at most 2") == r"the sum of $1/k^{2}$ is at most 2"
    assert plain_to_tex(r"Let $f(x) = x^2$ and a > 0") == r"Let $f(x) = x^2$ and $a > 0$"
    # LaTeX code in the statement is shown as text, never run
    assert plain_to_tex(r"\input{/etc/passwd} x <= 1").startswith(r"\textbackslash{}input")
    assert fallback_title("x " * 200) == GENERIC_TITLE and fallback_title("") == GENERIC_TITLE
    # a coefficient times a variable is part of the formula; ordinals and "3D" stay words
    assert fallback_title("For all real x, x^2 - 2x + 1 >= 0") == r"For all real $x$, $x^{2} - 2x + 1 \ge 0$"
    assert plain_to_tex("the 2nd moment of a 3D walk") == "the 2nd moment of a 3D walk"


def test_the_fallback_title_reaches_the_paper_typeset() -> None:
    state = wh.theory()
    state.informal_statement = README
    prose = fallback_prose(state, plan_citations(wh.bibliography()), None)
    doc = build_doc(state, plan_citations(wh.bibliography()), None, prose)
    tex = render_tex(doc)[0]
    title = tex.split("\\title{", 1)[1].split("}\n", 1)[0]
    assert r"\sum_i 8 \ln T / \Delta_i" in title and "sum\\_i" not in title and "..." not in title
    assert render_markdown(doc, []).startswith("# For $K$-armed")
