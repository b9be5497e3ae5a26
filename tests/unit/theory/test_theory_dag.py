"""DAG validation and surgery, stagnation, citation matching, lenient model parsing."""

from __future__ import annotations

from theory_script import lemma

from eurekaclaw.agents.formalize.dag import (
    active_ids,
    dependants,
    find_cycle,
    heights,
    structural_problems,
    topological,
)
from eurekaclaw.agents.formalize.models import LemmaOut
from eurekaclaw.agents.formalize.surgery import insert_split, merge_replan
from eurekaclaw.agents.theory.citations import verified_paper
from eurekaclaw.agents.theory.lemma_loop import stagnant
from eurekaclaw.agents.theory.models import BroadRepair, ReviewVerdict
from eurekaclaw.agents.theory.verifier import review_passed
from eurekaclaw.types.artifacts import Bibliography, FailedAttempt, Paper


def dag(*nodes):
    return {n.id: n for n in nodes}


def test_valid_dag_has_no_problems_and_orders_dependencies_first():
    d = dag(lemma("B", "A"), lemma("A"), lemma("C", "A"), lemma("T", "B", "C", root=True))
    assert structural_problems(list(d.values())) == []
    order = topological(d)
    assert order.index("A") < order.index("B") < order.index("T") and order.index("C") < order.index("T")
    assert dependants(d, "A") == {"B", "C", "T"} and active_ids(d) == {"A", "B", "C", "T"}
    assert heights(d)["A"] == 3 and heights(d)["T"] == 1


def test_cycle_is_named_as_a_closed_path():
    d = dag(lemma("A", "B"), lemma("B", "C"), lemma("C", "A"), lemma("T", "A", root=True))
    cycle = find_cycle(d)
    assert cycle[0] == cycle[-1] and set(cycle) == {"A", "B", "C"}
    problems = structural_problems(list(d.values()))
    assert len(problems) == 1 and problems[0].startswith("dependency cycle: ")


def test_each_structural_defect_is_reported():
    nodes = [lemma("A", "A"), lemma("bad id!"), lemma("T", "ghost", root=True), lemma("U", "T", root=True)]
    text = " | ".join(structural_problems(nodes))
    assert "'A' depends on itself" in text
    assert "'bad id!' is not a valid label" in text
    assert "'ghost', which is not in the plan" in text
    assert "found 2: T, U" in text
    assert structural_problems([lemma("A"), lemma("T", "A")])[0].startswith("exactly one lemma")
    assert "must not be a dependency" in structural_problems([lemma("T", root=True), lemma("A", "T")])[0]


def test_merge_replan_rules():
    d = dag(lemma("A"), lemma("B", "A", status="refuted"), lemma("C", "B"), lemma("T", "C", root=True))
    d["A"].status = "proved"
    ok = merge_replan(
        d,
        [
            LemmaOut(id="B2", statement="weaker B", dependencies=["A"]),
            LemmaOut(id="C", statement="C restated", dependencies=["B2"]),
            LemmaOut(id="T", statement="a different theorem!", dependencies=["C"], is_root=True),
            LemmaOut(id="A", statement="A restated"),
        ],
        editable={"C", "T"},
    )
    assert ok.problems == []
    assert ok.dag["T"].statement == "Statement of T."  # the main theorem never changes
    assert ok.dag["A"].statement == "Statement of A."  # not affected: ignored with a note
    assert any("A" in n and "ignored" in n for n in ok.notes)
    assert ok.dag["C"].dependencies == ["B2"] and ok.dag["B2"].status == "pending"
    assert d["C"].dependencies == ["B"]  # the input DAG is untouched

    reused = merge_replan(d, [LemmaOut(id="B", statement="B again")], editable={"C", "T"})
    assert any("refuted lemma" in p for p in reused.problems)
    still = merge_replan(d, [LemmaOut(id="B3", statement="x")], editable={"C", "T"})
    assert any("still depends on the refuted lemma 'B'" in p for p in still.problems)


def test_insert_split_rules():
    d = dag(lemma("A"), lemma("B", "A"), lemma("T", "B", root=True))
    ok = insert_split(
        d,
        "B",
        [LemmaOut(id="B1", statement="x", dependencies=["A"]), LemmaOut(id="B2", statement="y", dependencies=["B1"])],
    )
    assert ok.problems == [] and ok.dag["B"].dependencies == ["A", "B1", "B2"]
    assert ok.dag["B1"].parent == "B" and not ok.dag["B1"].is_root
    cyc = insert_split(d, "B", [LemmaOut(id="B1", statement="x", dependencies=["T"]), LemmaOut(id="B2", statement="y")])
    assert any("relies on B" in p for p in cyc.problems)
    one = insert_split(d, "B", [LemmaOut(id="B1", statement="x")])
    assert any("at least two" in p for p in one.problems)
    taken = insert_split(d, "B", [LemmaOut(id="A", statement="x"), LemmaOut(id="B9", statement="y")])
    assert any("already taken" in p for p in taken.problems)


def test_stagnation_window():
    def fa(cat):
        return FailedAttempt(lemma_id="L", attempt=1, error_category=cat)

    assert not stagnant([fa("gap"), fa("gap")], 3)
    assert stagnant([fa("invalid_step"), fa("gap"), fa("gap"), fa("gap")], 3)
    assert not stagnant([fa("gap"), fa("gap"), fa("gap"), fa("gap")], 3)  # after the broad repair
    assert stagnant([fa("gap")] * 6, 3)
    assert not stagnant([fa("gap"), fa("invalid_step"), fa("gap")], 3)
    assert not stagnant([fa("unparseable")] * 3, 3)


def test_citation_matching_needs_a_verified_paper():
    bib = Bibliography(
        papers=[
            Paper(
                paper_id="arxiv:2101.00001",
                title="A",
                arxiv_id="2101.00001v2",
                cite_key="auer2002",
                verification="verified",
            ),
            Paper(paper_id="doi:10.1/x", title="B", doi="10.1/X", verification="not_found"),
        ]
    )
    for ref in ("arXiv:2101.00001v1", "\\cite{auer2002}", "2101.00001", "https://arxiv.org/abs/2101.00001"):
        assert verified_paper(bib, ref).title == "A", ref
    for ref in ("doi:10.1/x", "auer2003", "", None):
        assert verified_paper(bib, ref) is None, ref
    assert verified_paper(None, "auer2002") is None


def test_review_model_is_lenient_in_and_strict_out():
    v = ReviewVerdict.model_validate(
        {"verdict": "Accepted", "confidence": "90", "errors": [{"category": "Missing Case", "severity": "minor"}]}
    )
    assert v.verdict == "pass" and v.confidence == 0.9 and v.errors[0].category == "missing_case"
    assert review_passed(v)  # a minor remark does not fail a proof
    v2 = v.model_copy(update={"errors": [v.errors[0].model_copy(update={"severity": "major"})]})
    assert not review_passed(v2)
    weird = ReviewVerdict.model_validate({"verdict": "fail", "confidence": 0.5, "errors": [{"category": "vibes"}]})
    assert weird.errors[0].category == "other" and not review_passed(weird)
    assert BroadRepair.model_validate({"strategy": "Split into sub-lemmas"}).strategy == "split"


def test_a_split_with_self_and_dangling_dependencies_is_mended_not_rejected():
    from eurekaclaw.agents.formalize.models import LemmaOut
    from eurekaclaw.agents.formalize.surgery import insert_split
    from eurekaclaw.types.artifacts import LemmaNode

    dag = {
        "A": LemmaNode(id="A", statement="a"),
        "T": LemmaNode(id="T", statement="t", dependencies=["A"], is_root=True),
    }
    subs = [
        LemmaOut(id="A1", statement="first half", dependencies=["A1", "ghost"]),
        LemmaOut(id="A2", statement="second half", dependencies=["A1"]),
    ]
    result = insert_split(dag, "A", subs)
    assert not result.problems
    assert result.dag["A1"].dependencies == [] and result.dag["A2"].dependencies == ["A1"]
    assert any("itself" in n for n in result.notes) and any("'ghost'" in n for n in result.notes)


def test_repair_structure_renames_garbled_ids_consistently():
    from eurekaclaw.agents.formalize.dag import repair_structure, structural_problems
    from eurekaclaw.agents.formalize.models import LemmaOut

    plan = [
        LemmaOut(id=",", statement="one"),
        LemmaOut(id=",", statement="two", dependencies=[","]),
        LemmaOut(id=";", statement="three", dependencies=[";", ",", "nowhere"]),
        LemmaOut(id="T", statement="main", dependencies=[";", "T"], is_root=True),
    ]
    notes = repair_structure(plan)
    assert [lo.id for lo in plan] == ["L1", "L2", "L3", "L4"]
    assert [lo.dependencies for lo in plan] == [[], ["L1"], ["L2"], ["L3"]]
    assert not structural_problems([lo.to_node() for lo in plan])
    assert len(notes) == 4  # the renaming, ';' on itself, 'nowhere', T on itself


def test_valid_ids_are_left_alone():
    from eurekaclaw.agents.formalize.dag import repair_structure
    from eurekaclaw.agents.formalize.models import LemmaOut

    plan = [
        LemmaOut(id="radius_small", statement="s"),
        LemmaOut(id="main", statement="m", dependencies=["lem:radius_small"], is_root=True),
    ]
    notes = repair_structure(plan)
    assert [lo.id for lo in plan] == ["radius_small", "main"] and plan[1].dependencies == ["radius_small"]
    assert notes == ["lemma main: dependency 'lem:radius_small' read as radius_small"]
