"""Revisions that reach beyond prose: the scope is decided and shown first, theory/experiment
re-run through the orchestrator's stage code on a copy of the session, the paper_v<n> levels are
the checkers', and a failed re-run leaves the session as it was."""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
from pathlib import Path

import pytest
from reviewkit import cli, copy_session, finished_session, read_history

from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.config import load_settings
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.review.runner import ReviewRunner
from eurekaclaw.store.files import read_json
from eurekaclaw.store.session import SessionDir
from eurekaclaw.types.artifacts import ExperimentResult, TheoryState

HERE = Path(__file__).resolve().parent
RESPONDER = HERE / "restage_responder.py"
_spec = importlib.util.spec_from_file_location("restage_responder", RESPONDER)
assert _spec and _spec.loader
responder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(responder)

FIX_L2 = "THEORY: the proof of Lemma L2 skips the union bound; fix it."


@pytest.fixture(scope="module")
def unproved(tmp_path_factory: pytest.TempPathFactory) -> SessionDir:
    """L2 failed review, so the theorem is not proved (L1 cited, L3 smt)."""
    return finished_session(tmp_path_factory.mktemp("unproved"), proved=False)


@pytest.fixture
def session(unproved: SessionDir, isolated_home: Path) -> SessionDir:
    return copy_session(unproved, isolated_home)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(session: SessionDir) -> dict[str, str]:
    return {
        p.name: digest(p)
        for p in sorted(session.path.iterdir())
        if p.is_file()
        and p.name not in (SessionDir.LLM_LOG, SessionDir.USAGE, SessionDir.EVENTS)
        and not p.name.endswith(".lock")
    }


def runner(session: SessionDir) -> tuple[ReviewRunner, ScriptedBackend, list]:
    backend = ScriptedBackend(responder=responder.respond, model="restage")
    run = ReviewRunner(load_settings(), session, backend=backend)
    shown: list = []
    run.on_scope = shown.append
    return run, backend, shown


def roles(backend: ScriptedBackend) -> list[tuple[str, str | None]]:
    return [(c.role, c.lemma_id) for c in backend.calls]


def test_prose_feedback_runs_the_writer_only(session: SessionDir) -> None:
    before = snapshot(session)
    run, backend, shown = runner(session)
    outcome = asyncio.run(run.revise("PROSE: explain the union bound in the introduction."))
    assert outcome.ok and outcome.version == 2, outcome.text()
    assert [s.stages for s in shown] == [["write"]] and shown[0].scope == "prose"
    assert {r for r, _ in roles(backend)} == {"revision_scope", "reviser"}  # no stage code ran
    after = snapshot(session)
    assert {k: v for k, v in after.items() if k in before} == before  # records and version 1 untouched
    assert outcome.as_json()["rerun_stages"] == ["write"]


def test_fixing_a_lemma_reruns_theory_for_it_and_levels_come_from_the_checkers(session: SessionDir) -> None:
    old_state = (session.path / "theory_state.json").read_bytes()
    run, backend, shown = runner(session)
    outcome = asyncio.run(run.revise(FIX_L2))
    assert outcome.ok and outcome.version == 2, outcome.text()
    # shown before the run: theory for L2 only (the unknown L9 dropped), then the writer
    assert shown[0].stages == ["theory", "write"] and shown[0].lemmas == ["L2"]
    assert "L9" in shown[0].notes[0]
    # the careless reason ("it is now formally verified") is not shown as a fact before the run
    assert "formally verified" not in shown[0].line() and "claimed more than the records" in shown[0].notes[1]
    assert outcome.as_json()["rerun_stages"] == ["theory", "write", "evaluate"]
    # only the reopened lemmas were proved again; L1 (cited) and L3 (smt) kept their records
    proved = {lid for role, lid in roles(backend) if role == "prover"}
    assert proved == {"L2", "main"}
    # the feedback reached the prover as guidance, never the reviewer
    prover = next(c for c in backend.calls if c.role == "prover")
    verifier = next(c for c in backend.calls if c.role == "verifier")
    assert "skips the union bound" in prover.system_text()
    assert "skips the union bound" not in verifier.system_text()
    # the careless prover said "formally verified in Coq": the level is the reviewer's
    state = TheoryState.model_validate_json((session.path / "theory_state.json").read_text())
    # one scripted model proved and reviewed L2: the theorem is self-reviewed, never "proved"
    assert state.status == "self_reviewed"
    assert state.proven_lemmas["L2"].verification_level == "reviewed"
    assert state.proven_lemmas["L3"].verification_level == "smt"
    assert outcome.levels["L2"] == "reviewed" and outcome.levels["theorem"] == "self_reviewed"
    assert "Lemma L2: failed -> reviewed" in outcome.changes
    assert "theorem: in_progress -> self_reviewed" in outcome.changes
    tex = (session.path / "paper_v2.tex").read_text()
    l2 = next(line for line in tex.splitlines() if "\\label{lem:L2}" in line)
    assert "\\eclevel{self-reviewed: reviewed (self-review" in l2 and "verified: formal" not in tex
    # ... and the proof's own "formally verified in Coq" is replaced by a note (the writer's check)
    assert "formally verified in Coq" not in tex
    assert "[a sentence of the model about how this was checked was removed" in tex
    assert any(n.startswith("removed claim(s) of machine verification") for n in outcome.notes)
    # version 1 and its records are kept
    assert (session.path / "paper.tex").is_file()
    assert (session.path / "review" / "v1" / "theory_state.json").read_bytes() == old_state
    versions = read_json(session.path / "review" / "versions.json")["versions"]
    assert versions[0]["reran"] == ["theory", "write", "evaluate"] and versions[0]["levels"]["L2"] == "reviewed"
    assert read_history(session)[-1]["rerun_stages"] == ["theory", "write", "evaluate"]
    assert "revision (written; re-ran theory, write, evaluate)" in run.history_text()
    assert session.load_meta().theory_status == "self_reviewed"
    assert not (session.path / "review" / "work-v2").exists()
    # the revision's calls are the review's spending, in the session's own log
    log = [json.loads(line) for line in session.file(SessionDir.LLM_LOG).read_text().splitlines()]
    booked = {(e["request"]["role"], e["request"]["stage"]) for e in log if e["seq"] > 1}
    assert {("prover", "review"), ("verifier", "review"), ("writer", "review")} <= booked


def test_a_rejected_reproof_rolls_back_and_cannot_raise_a_level(
    session: SessionDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESTAGE_VERIFIER", "fail")
    before = snapshot(session)
    run, backend, _ = runner(session)
    outcome = asyncio.run(run.revise(FIX_L2))
    assert not outcome.ok and outcome.version is None
    assert "did not prove L2" in outcome.error and "version 1 stays current" in outcome.error
    assert "\n" not in outcome.error
    assert snapshot(session) == before  # theory_state.json, paper files: all as they were
    assert not list(session.path.glob("paper_v*")) and not (session.path / "review" / "versions.json").exists()
    assert not (session.path / "review" / "work-v2").exists()
    assert read_history(session)[-1]["ok"] is False
    assert any(r == "verifier" for r, _ in roles(backend))  # the checks did run


def test_experiment_feedback_reruns_the_experiment_and_the_writer(session: SessionDir) -> None:
    old_state = (session.path / "theory_state.json").read_bytes()
    run, backend, shown = runner(session)
    outcome = asyncio.run(run.revise("EXPERIMENT: run the claims with more samples."))
    assert shown[0].stages == ["experiment", "write"], outcome.text()
    assert outcome.ok and [r["stage"] for r in outcome.reran] == ["experiment", "write", "evaluate"], outcome.text()
    assert not {"prover", "verifier", "consistency_checker"} & {r for r, _ in roles(backend)}
    assert (session.path / "experiment_result.json").is_file()  # the new result is the session's
    state = TheoryState.model_validate_json((session.path / "theory_state.json").read_text())
    assert state.proven_lemmas.keys() == TheoryState.model_validate_json(old_state).proven_lemmas.keys()
    assert "experiment: " in outcome.text()


def test_a_whole_proof_rerun_that_weakens_a_level_is_not_kept(session: SessionDir) -> None:
    """The whole proof again from the formalized DAG: every lemma is re-proved, and L3, proved by
    Z3 in the session (level smt), is now only reviewed, so the re-run is not kept."""
    before = snapshot(session)
    run, backend, shown = runner(session)
    outcome = asyncio.run(run.revise("WHOLE: redo the whole proof, the argument is shaky."))
    assert shown[0].stages == ["theory", "write"] and shown[0].lemmas == []
    assert "theory (the whole proof)" in shown[0].line()
    assert {lid for role, lid in roles(backend) if role == "prover"} >= {"L2", "L3", "main"}
    assert not outcome.ok and "left L3 at reviewed, below its earlier smt" in outcome.error
    assert snapshot(session) == before


class BrokenExperiment(Stage):
    name = "experiment"

    async def run(self, ctx, spec, *, resume: bool = False) -> StageOutcome:  # type: ignore[no-untyped-def]
        # written to the copy's bus: it must not reach the session
        ctx.bus.put_experiment_result(ExperimentResult(status="failed", reason="crashed"))
        return StageOutcome(status="failed", reason="the simulator crashed")


def test_a_failed_experiment_rerun_changes_nothing(session: SessionDir) -> None:
    before = snapshot(session)
    run, backend, shown = runner(session)
    run.stage_impls = {"experiment": BrokenExperiment()}
    outcome = asyncio.run(run.revise("EXPERIMENT: run longer horizons."))
    assert shown[0].stages == ["experiment", "write"]
    assert not outcome.ok and "the experiment stage failed: the simulator crashed" in outcome.error
    assert snapshot(session) == before
    assert "writer" not in {r for r, _ in roles(backend)}


def test_unusable_scope_reply_falls_back_to_rules() -> None:
    from eurekaclaw.review.scope import ScopeReply, rule_scope

    class Lem:
        def __init__(self, lid: str) -> None:
            self.id = lid

    class Facts:
        class doc:  # noqa: N801
            lemmas = [Lem("L1"), Lem("L2"), Lem("main")]

    facts = Facts()
    assert rule_scope(facts, "The proof of L2 is wrong: the step after (3) does not follow.") == ScopeReply(
        scope="theory", lemmas=["L2"], reason="the feedback points at a flaw in a proof"
    )
    assert rule_scope(facts, "Please run the experiment with more seeds.").scope == "experiment"
    assert rule_scope(facts, "Shorten the abstract and explain Lemma L2 better.").scope == "prose"
    assert rule_scope(facts, "Fix the typo in the title.").scope == "prose"


def test_the_command_shows_and_lists_the_rerun_stages(
    session: SessionDir, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc = cli(session.session_id, "--revise", FIX_L2, "--json", "--llm", f"scripted:{RESPONDER}", home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert (
        "revision re-runs theory (L2) -> writer -> evaluation (decided by model)" in proc.stderr
    )  # shown before it runs
    revision = json.loads(proc.stdout)["revision"]
    assert revision["rerun_stages"] == ["theory", "write", "evaluate"] and revision["scope"]["lemmas"] == ["L2"]
    assert revision["version"] == 2 and revision["levels"]["L2"] == "reviewed"
    # a failed re-run: one line, exit 1, nothing written
    monkeypatch.setenv("RESTAGE_VERIFIER", "fail")
    before = snapshot(session)
    proc = cli(session.session_id, "--revise", FIX_L2, "--llm", f"scripted:{RESPONDER}", home=isolated_home)
    assert proc.returncode == 1
    first = proc.stdout.splitlines()[0]
    assert first.startswith("no new version: the theory re-run did not prove L2") and "version 2 stays current" in first
    assert "Traceback" not in proc.stderr + proc.stdout
    assert snapshot(session) == before


def test_a_budget_stop_inside_the_rerun_changes_nothing(session: SessionDir) -> None:
    from eurekaclaw.errors import BudgetExceededError

    def respond(request):  # type: ignore[no-untyped-def]
        if request.role == "verifier":  # the ledger refuses the call after the new proof
            raise BudgetExceededError("token budget of 5,000 reached")
        return responder.respond(request)

    before = snapshot(session)
    backend = ScriptedBackend(responder=respond, model="restage")
    run = ReviewRunner(load_settings(), session, backend=backend, budget_tokens=100_000)
    with pytest.raises(BudgetExceededError):
        asyncio.run(run.revise(FIX_L2))
    assert [c.role for c in backend.calls][:2] == ["revision_scope", "prover"]
    assert snapshot(session) == before and not (session.path / "review" / "work-v2").exists()
    last = read_history(session)[-1]
    assert last["ok"] is False and "budget" in last["error"]


def old_report(session: SessionDir) -> bytes:
    """Version 1's evaluation, as the session's Evaluate stage left it."""
    from eurekaclaw.types.artifacts import EvalReport

    report = EvalReport(session_id=session.session_id, total=0.111, notes=["version 1", "self-referential"])
    (session.path / "eval_report.json").write_text(report.model_dump_json())
    return (session.path / "eval_report.json").read_bytes()


def test_a_revision_scores_the_new_version_and_keeps_the_old_report(session: SessionDir) -> None:
    before = old_report(session)
    run, backend, _ = runner(session)
    outcome = asyncio.run(run.revise(FIX_L2))
    assert outcome.ok and outcome.reran[-1]["stage"] == "evaluate", outcome.text()
    report = read_json(session.path / "eval_report.json")
    assert report["notes"][0] == "scores paper version 2 (a review --revise of version 1)"
    assert report["total"] != 0.111 and {d["name"] for d in report["dimensions"]} >= {"formal_correctness"}
    # the theory re-run proved the theorem: the new score sees it (version 1 was not proved)
    correctness = next(d for d in report["dimensions"] if d["name"] == "formal_correctness")
    assert correctness["score"] and correctness["score"] > 0
    assert (session.path / "review" / "v1" / "eval_report.json").read_bytes() == before
    versions = read_json(session.path / "review" / "versions.json")["versions"]
    assert versions[0]["version"] == 2 and versions[0]["eval_total"] == report["total"]
    assert any(n.startswith("evaluation of version 2: total") for n in outcome.notes)
    # Learn does not run for a revision: nothing is stored a second time
    assert "learn" not in outcome.as_json()["rerun_stages"]


class BrokenEvaluate(Stage):
    name = "evaluate"
    runs = 0

    async def run(self, ctx, spec, *, resume: bool = False) -> StageOutcome:  # type: ignore[no-untyped-def]
        BrokenEvaluate.runs += 1
        raise RuntimeError("the scorer crashed")


def test_a_failed_evaluation_rolls_the_revision_back_after_its_retries(session: SessionDir) -> None:
    old_report(session)
    before = snapshot(session)
    run, _, _ = runner(session)
    run.stage_impls = {"evaluate": BrokenEvaluate()}
    outcome = asyncio.run(run.revise(FIX_L2))
    assert not outcome.ok and "the evaluate stage failed: RuntimeError: the scorer crashed" in outcome.error
    assert "version 1 stays current" in outcome.error
    assert BrokenEvaluate.runs == 1 + load_settings().stage_max_retries  # the stage runner's retries
    assert snapshot(session) == before  # theory_state.json, eval_report.json, papers: as they were
    assert not list(session.path.glob("paper_v*")) and not (session.path / "review" / "v1").exists()
    assert not (session.path / "review" / "work-v2").exists()


class PausedEvaluate(Stage):
    """A pause reaches the re-run's stage at its next checkpoint (the stage runner's watch)."""

    name = "evaluate"

    async def run(self, ctx, spec, *, resume: bool = False) -> StageOutcome:  # type: ignore[no-untyped-def]
        ctx.session.request_pause()
        await asyncio.sleep(30)
        return StageOutcome(status="completed")


def test_a_paused_rerun_stage_rolls_the_revision_back(session: SessionDir) -> None:
    before = snapshot(session)
    run, _, _ = runner(session)
    run.stage_impls = {"evaluate": PausedEvaluate()}
    outcome = asyncio.run(run.revise(FIX_L2))
    assert not outcome.ok and "the evaluate stage was stopped before it finished" in outcome.error
    assert snapshot(session) == before and not list(session.path.glob("paper_v*"))
