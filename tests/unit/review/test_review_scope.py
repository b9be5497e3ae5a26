"""How far a revision reaches: the model's scope validated against the records, the rules'
fallback, and the checks that decide whether a theory re-run may be kept."""

from __future__ import annotations

from pathlib import Path

from test_review_parts import facts

from eurekaclaw.config import load_settings
from eurekaclaw.orchestrator.rerun import reopen_lemmas
from eurekaclaw.review.restage import level_view, lost_work, record_changes
from eurekaclaw.review.scope import ScopeReply, named_lemmas, rule_scope, validated


def test_unknown_lemmas_are_dropped_and_stages_follow_the_pipeline(tmp_path: Path) -> None:
    f = facts(tmp_path)
    scope = validated(
        f, "fix L2", ScopeReply(scope="theory", lemmas=["L2", "nope", "L2"], experiment=True), load_settings(), "model"
    )
    assert scope.stages == ["theory", "experiment", "write"] and scope.lemmas == ["L2"]
    assert scope.notes == ["lemma id(s) not in the records ignored: nope"]
    assert scope.line().startswith(
        "revision re-runs theory (L2) -> experiment -> writer -> evaluation (decided by model)"
    )
    # every id unknown: the lemmas the feedback names, else the whole proof
    only_bad = validated(
        f, "the proof of L3 is wrong", ScopeReply(scope="theory", lemmas=["X"]), load_settings(), "model"
    )
    assert only_bad.lemmas == ["L3"]
    whole = validated(f, "redo everything", ScopeReply(scope="theory", lemmas=["X"]), load_settings(), "model")
    assert whole.lemmas == [] and "the whole proof" in whole.line()


def test_an_experiment_the_settings_turn_off_is_not_rerun(tmp_path: Path) -> None:
    scope = validated(
        facts(tmp_path), "more seeds", ScopeReply(scope="experiment"), load_settings(experiment_mode="false"), "model"
    )
    assert scope.scope == "prose" and scope.stages == ["write"] and "EXPERIMENT_MODE=false" in scope.notes[0]


def test_rules_name_lemmas_by_word_boundary(tmp_path: Path) -> None:
    f = facts(tmp_path)
    assert named_lemmas(f, "lem:L2 and L3, not L23, L1.5 or xL1") == ["L2", "L3"]
    assert rule_scope(f, "The step after (3) in the proof of L2 does not follow.").lemmas == ["L2"]
    assert rule_scope(f, "Re-run the simulation with longer horizons.").scope == "experiment"
    assert rule_scope(f, "Explain Lemma L2 more gently.").scope == "prose"


def test_a_theory_rerun_that_loses_a_proof_is_not_kept(tmp_path: Path) -> None:
    before = facts(tmp_path).theory
    after = before.model_copy(deep=True)
    reopen_lemmas(after, ["L2"])
    assert "L2" not in after.proven_lemmas and after.lemma_dag["L2"].status == "pending"
    assert after.status == "in_progress" and after.assembled_proof is None
    assert "L3" in after.proven_lemmas  # untouched
    scope = validated(facts(tmp_path), "fix L2", ScopeReply(scope="theory", lemmas=["L2"]), load_settings(), "model")
    assert lost_work(before, after, scope).startswith("the theory re-run did not prove L2")
    again = before.model_copy(deep=True)
    assert lost_work(before, again, scope) == ""
    again.proven_lemmas["L3"].verification_level = "reviewed"
    assert lost_work(before, again, scope) == "the theory re-run left L3 at reviewed, below its earlier smt"
    again.proven_lemmas["L3"].verification_level = "smt"
    again.status = "abandoned"
    assert lost_work(before, again, scope).startswith("the theorem was proved before and is abandoned")
    changes = record_changes(level_view(before), level_view(after))
    assert "Lemma L2: reviewed -> pending" in changes and changes[-1] == "theorem: proved -> in_progress"
