"""theory_view: the one function from the records to the displayed status, level and colour."""

from __future__ import annotations

import pytest

from eurekaclaw import theory_view as tv
from eurekaclaw.types.artifacts import (
    CheckResult,
    Claim,
    ClaimVariable,
    Counterexample,
    LemmaNode,
    ProofRecord,
    StatementScope,
    TheoryState,
)

INDEPENDENT = ("reviewed", False, "openai_compat:other-model")
SELF = ("reviewed", True, "scripted:prover")
UNKNOWN = ("reviewed", False, "")


def record(
    lid: str, level: str, self_review: bool = False, reviewer: str = "", proof: str = "By algebra."
) -> ProofRecord:
    checks = []
    if level == "smt":
        checks = [CheckResult(checker="z3", verdict="passed", version="4.13.0")]
    if level == "formal":
        checks = [CheckResult(checker="coq", verdict="passed", version="8.16.1")]
    return ProofRecord(
        lemma_id=lid,
        proof=proof,
        verification_level=level,  # type: ignore[arg-type]
        checks=checks,
        self_review=self_review,
        reviewer=reviewer,
    )


def theory(
    support: dict[str, tuple[str, bool, str]],
    status: str = "proved",
    **extra: object,
) -> TheoryState:
    """Root T relies on every other lemma named in `support` (T itself included there)."""
    deps = [lid for lid in support if lid != "T"]
    dag = {lid: LemmaNode(id=lid, statement=f"Lemma {lid}.") for lid in deps}
    dag["T"] = LemmaNode(
        id="T",
        statement="For every real x, x^2 >= x.",
        is_root=True,
        dependencies=deps,
        claim=Claim(variables=[ClaimVariable(name="x", domain="real")], assumptions=["x >= 1"], conclusion="x^2 >= x"),
    )
    proven = {lid: record(lid, *spec) for lid, spec in support.items()}
    return TheoryState(
        informal_statement="every real x has x^2 >= x",
        formal_statement="For every real number $x$, $x^2 \\ge x$.",
        lemma_dag=dag,
        proven_lemmas=proven,
        status=status,  # type: ignore[arg-type]
        consistency_check=CheckResult(checker="consistency", verdict="passed"),
        **extra,  # type: ignore[arg-type]
    )


def render(claim: Claim) -> tuple[str, str]:
    return (
        f"For all $x$ with ${claim.assumptions[0]}$: ${claim.conclusion}$.",
        f"for all x, {claim.assumptions[0]}: {claim.conclusion}",
    )


CASES = [
    # (name, support, status, extra, expected token, colour)
    ("smt", {"T": ("smt", False, ""), "L1": ("smt", False, "")}, "proved", {}, "proved", "green"),
    ("formal", {"T": ("formal", False, ""), "L1": ("formal", False, "")}, "proved", {}, "proved", "green"),
    ("cited", {"T": ("smt", False, ""), "L1": ("cited", False, "")}, "proved", {}, "proved", "green"),
    ("independent-reviewed", {"T": INDEPENDENT, "L1": ("smt", False, "")}, "proved", {}, "proved", "green"),
    ("self-reviewed", {"T": ("smt", False, ""), "L1": SELF}, "proved", {}, "self_reviewed", "amber"),
    ("stored self_reviewed", {"T": ("smt", False, ""), "L1": SELF}, "self_reviewed", {}, "self_reviewed", "amber"),
    ("reviewer unknown", {"T": ("smt", False, ""), "L1": UNKNOWN}, "proved", {}, "self_reviewed", "amber"),
    (
        "never upgraded",
        {"T": ("smt", False, ""), "L1": ("smt", False, "")},
        "self_reviewed",
        {},
        "self_reviewed",
        "amber",
    ),
    (
        "mixed",
        {"T": ("formal", False, ""), "L1": ("smt", False, ""), "L2": ("cited", False, ""), "L3": INDEPENDENT},
        "proved",
        {},
        "proved",
        "green",
    ),
    (
        "mixed with a self-review",
        {"T": ("formal", False, ""), "L1": ("smt", False, ""), "L2": SELF, "L3": INDEPENDENT},
        "proved",
        {},
        "self_reviewed",
        "amber",
    ),
    ("contradicted", {"T": ("smt", False, ""), "L1": ("smt", False, "")}, "contradicted", {}, "contradicted", "red"),
    (
        "proved but contradictions recorded",
        {"T": ("smt", False, ""), "L1": ("smt", False, "")},
        "proved",
        {"contradictions": ["regret bound violated at t=1000"]},
        "contradicted",
        "red",
    ),
    ("refuted", {"L1": ("smt", False, "")}, "refuted", {}, "refuted", "red"),
    (
        "capped (stage)",
        {"T": ("smt", False, ""), "L1": ("smt", False, "")},
        "abandoned",
        {"level_cap_reasons": ["L9 refuted and replaced by a lemma without a claim"]},
        "capped",
        "red",
    ),
    (
        "capped (stored proved)",
        {"T": ("smt", False, ""), "L1": ("smt", False, "")},
        "proved",
        {"level_cap_reasons": ["replacement claim is trivial"]},
        "capped",
        "red",
    ),
    ("abandoned", {"L1": ("smt", False, "")}, "abandoned", {}, "abandoned", "red"),
    ("proved with a lemma missing", {"T": ("smt", False, "")}, "proved", {}, "proved", "green"),
    ("in progress", {"L1": ("smt", False, "")}, "in_progress", {}, "in_progress", "grey"),
    (
        "narrower",
        {"T": ("smt", False, ""), "L1": ("smt", False, "")},
        "proved",
        {
            "statement_scope": StatementScope(
                relation="narrower", sentence="proved for x ≥ 1; the statement asked for every real x"
            )
        },
        "narrower_claim",
        "amber",
    ),
    (
        "differs",
        {"T": ("smt", False, ""), "L1": ("smt", False, "")},
        "proved",
        {
            "statement_scope": StatementScope(
                relation="differs", sentence="the claim bounds by 1.7, the statement by 1.6"
            )
        },
        "different_claim",
        "amber",
    ),
    (
        "same scope",
        {"T": ("smt", False, ""), "L1": ("smt", False, "")},
        "proved",
        {"statement_scope": StatementScope(relation="same", sentence="")},
        "proved",
        "green",
    ),
]


@pytest.mark.parametrize(("name", "support", "status", "extra", "token", "col"), CASES, ids=[c[0] for c in CASES])
def test_theorem_status_table(
    name: str, support: dict[str, tuple[str, bool, str]], status: str, extra: dict[str, object], token: str, col: str
) -> None:
    view = tv.theorem_view(theory(support, status, **extra), render=render)
    assert (view.status, view.colour) == (token, col)
    assert view.word == tv.THEOREM_STATUSES[token][0] or token == "self_reviewed"
    # only a plain proof is green, and only it says plain "proved"
    assert (view.colour == "green") == (token == "proved")
    assert (view.word == "proved") == (token == "proved")
    assert view.proved == (token == "proved")
    assert view.statement_not_proved == (token != "proved")
    assert view.how.endswith(".")


def test_proved_with_a_lemma_missing_in_dag_is_not_proved() -> None:
    """L1 is in the DAG but has no record: the stage's "proved" is not believed."""
    state = theory({"T": ("smt", False, ""), "L1": ("smt", False, "")})
    del state.proven_lemmas["L1"]
    view = tv.theorem_view(state)
    assert view.status == "abandoned" and view.colour == "red"
    assert "L1" in view.how


def test_self_reviewed_says_how_to_get_proved() -> None:
    view = tv.theorem_view(theory({"T": ("smt", False, ""), "L1": SELF}))
    assert view.self_reviewed == ("L1",)
    assert "--review-llm" in view.hint and "claims" in view.hint
    assert "self-review" in view.how and "L1" in view.how
    assert view.level == "reviewed" and view.level_label == "reviewed (self-review: scripted:prover)"


def test_narrower_and_self_reviewed_keep_both() -> None:
    scope = StatementScope(relation="narrower", sentence="proved for x ≥ 1; the statement asked for every real x")
    view = tv.theorem_view(theory({"T": SELF, "L1": ("smt", False, "")}, statement_scope=scope))
    assert view.status == "self_reviewed" and view.word == "self-reviewed (narrower claim)"
    assert view.scope_sentence == scope.sentence


def test_level_labels_name_the_checker_and_reviewer() -> None:
    state = theory(
        {"T": ("formal", False, ""), "L1": ("smt", False, ""), "L2": INDEPENDENT, "L3": ("cited", False, "")}
    )
    views = tv.lemma_views(state)
    assert views["T"].level_label == "formal (coq 8.16.1)"
    assert views["L1"].level_label == "smt (z3 4.13.0)"
    assert views["L2"].level_label == "reviewed by openai_compat:other-model (independent)"
    assert views["L3"].level_label == "cited"
    assert "Coq" not in views["L1"].how and "SMT solver" in views["L1"].how
    weakest = tv.theorem_view(state)
    # strongest first: formal > smt > reviewed > cited > unverified
    assert weakest.level == "cited" and "L3" in weakest.how and weakest.level_label == "cited"


def test_lemma_statuses() -> None:
    state = theory({"T": ("smt", False, "")}, status="in_progress")
    state.lemma_dag["A"] = LemmaNode(id="A", statement="a", status="failed")
    state.lemma_dag["B"] = LemmaNode(id="B", statement="b", status="in_progress")
    state.lemma_dag["C"] = LemmaNode(id="C", statement="c")
    state.lemma_dag["D"] = LemmaNode(id="D", statement="d")
    state.counterexamples.append(Counterexample(lemma_id="D", assignment={"x": 0.5}, confirmed=True))
    state.proven_lemmas["E"] = record("E", "unverified")
    views = tv.lemma_views(state)
    got = {lid: (v.status, v.colour) for lid, v in views.items()}
    assert got["A"] == ("failed", "red")
    assert got["B"] == ("in_progress", "grey")
    assert got["C"] == ("pending", "grey")
    assert got["D"] == ("refuted", "red") and "0.5" in views["D"].how
    assert got["E"] == ("unverified", "amber")  # a proof record nothing checked: never green
    assert got["T"] == ("proved", "green")


@pytest.mark.parametrize("cite", ["\\ref{thm:main}", "Lemma~\\ref{lem:T}", "\\cref{lem:U}"])
def test_circular_proof_is_failed(cite: str) -> None:
    """A lemma whose proof cites the theorem it serves (or a lemma relying on it) failed."""
    state = theory({"T": ("smt", False, ""), "L1": ("smt", False, ""), "U": ("smt", False, "")})
    state.lemma_dag["U"].dependencies = ["L1"]
    state.proven_lemmas["L1"].proof = f"By {cite}, the bound holds."
    view = tv.lemma_view(state, "L1")
    assert view.status == "circular" and view.colour == "red" and "circular" in view.how
    assert tv.theorem_view(state).status == "abandoned"


def test_theorem_shown_is_the_rendered_claim() -> None:
    state = theory({"T": ("smt", False, ""), "L1": ("smt", False, "")})
    view = tv.theorem_view(state, render=render)
    assert view.from_claim
    assert view.statement == "For all $x$ with $x >= 1$: $x^2 >= x$."
    assert view.statement_plain == "for all x, x >= 1: x^2 >= x"
    assert view.in_words == state.formal_statement


def test_render_failure_falls_back_to_the_claim_text() -> None:
    def broken(claim: Claim) -> tuple[str, str]:
        raise ValueError("no")

    view = tv.theorem_view(theory({"T": ("smt", False, "")}), render=broken)
    assert view.from_claim and "x >= 1" in view.statement and "x^2 >= x" in view.statement


def test_no_claim_shows_the_prose_statement() -> None:
    state = theory({"T": ("smt", False, "")})
    state.lemma_dag["T"].claim = None
    view = tv.theorem_view(state, render=render)
    assert not view.from_claim and view.statement == state.formal_statement and view.in_words == ""


def test_colour_map_has_one_green() -> None:
    assert [k for k, c in tv.COLOURS.items() if c == "green"] == ["proved"]
    assert tv.colour("something new") == "grey"


def test_old_session_file_still_loads() -> None:
    """A theory_state.json written before self_reviewed and statement_scope existed."""
    raw = theory({"T": SELF}).model_dump(mode="json")
    raw.pop("statement_scope")
    raw["status"] = "proved"
    state = TheoryState.model_validate(raw)
    assert state.statement_scope is None
    assert tv.theorem_view(state).status == "self_reviewed"


def test_a_version_string_that_names_its_tool_is_not_doubled() -> None:
    from eurekaclaw.theory_view import level_label
    from eurekaclaw.types.artifacts import CheckResult, ProofRecord

    record = ProofRecord(
        lemma_id="L1",
        proof="...",
        verification_level="smt",
        checks=[CheckResult(checker="z3", verdict="passed", version="z3 5.4.1")],
    )
    assert level_label(record) == "smt (z3 5.4.1)"
