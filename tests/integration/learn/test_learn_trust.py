"""Memory is not poisoned: what a session that did not establish its result stores is never
handed to a later session as known, and a later refutation retracts what was stored before."""

from __future__ import annotations

from learnkit import DISTILLED, REVIEWER, make_ctx, record_session, responder, theory_state

from eurekaclaw.agents.formalize.memory_hints import memory_hints
from eurekaclaw.agents.learn.services import build_memory_services, memories_block_for
from eurekaclaw.agents.learn.stage import LearnStage
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.memory.embeddings import HashingEmbedder
from eurekaclaw.memory.manager import MemoryManager
from eurekaclaw.skills.registry import SkillRegistry
from eurekaclaw.types.artifacts import (
    Counterexample,
    FailedAttempt,
    LemmaNode,
    ProofRecord,
    TheoryState,
)
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="UCB1 with a small exploration constant")
CLAIM = r"UCB1 with exploration constant c = 1/100 has regret R_T \le 3\sum_i \log T/\Delta_i"
CARELESS = "scripted:careless-main"

FALSE_INSIGHTS = {
    "insights": [
        {
            "category": "domain_knowledge",
            "title": "The UCB1 constant is 1/100",
            "content": "UCB1 keeps logarithmic regret with exploration constant 1/100.",
            "confidence": 0.9,
        },
        {
            "category": "pitfalls",
            "title": "Self-reviewed constants",
            "content": "A constant checked only by the model that chose it was violated by simulation.",
            "confidence": 0.8,
        },
    ]
}
TRUE_INSIGHTS = {
    "insights": [
        {
            "category": "domain_knowledge",
            "title": "UCB1 regret via Hoeffding",
            "content": "Hoeffding's confidence radius gives UCB1 logarithmic regret with constant 8.",
            "confidence": 0.9,
        },
    ]
}


def careless_state() -> TheoryState:
    """The false run as it looks after the fixes: contradicted, every lemma self-reviewed, the
    theorem itself recorded at formal by the careless model's pipeline."""
    dag = {
        "L1": LemmaNode(id="L1", statement=r"N_i(T) \le \log T/(100\Delta_i^2)", status="proved"),
        "L2": LemmaNode(id="L2", statement=r"R_T = \sum_i \Delta_i \mathbb{E}[N_i(T)]", status="proved"),
        "T": LemmaNode(id="T", statement=CLAIM, dependencies=["L1", "L2"], is_root=True, status="proved"),
    }
    review = {"reviewer": CARELESS, "self_review": True}
    return TheoryState(
        informal_statement="UCB1 with constant 1/100",
        formal_statement=CLAIM,
        lemma_dag=dag,
        proven_lemmas={
            "L1": ProofRecord(
                lemma_id="L1", proof="PROOF-L1 by a loose union bound.", verification_level="reviewed", **review
            ),
            "L2": ProofRecord(
                lemma_id="L2", proof="PROOF-L2 by the regret decomposition.", verification_level="reviewed", **review
            ),
            "T": ProofRecord(lemma_id="T", proof="PROOF-T combine L1 and L2.", verification_level="formal", **review),
        },
        failed_attempts=[
            FailedAttempt(
                lemma_id="L1",
                attempt=1,
                error_category="bound_too_loose",
                verifier_text="the constant 1/100 is not justified by the union bound",
            )
        ],
        status="contradicted",
        contradictions=["regret at T=10000: empirical 812.4 > bound 95.1 (beyond the 99% limit)"],
    )


def _memory_ctx(tmp_path, session_id):
    services = build_memory_services(tmp_path, session_id, "mab", [], embedder=HashingEmbedder())
    ctx = make_ctx(tmp_path, session_id, ScriptedBackend(default="x"), services=services)
    ctx.settings = ctx.settings.model_copy(update={"theory_pipeline": "memory_guided"})
    return ctx


async def test_a_contradicted_session_stores_nothing_as_established(tmp_path):
    backend = ScriptedBackend(responder=responder({"InsightBatch": FALSE_INSIGHTS, "DistilledSkills": DISTILLED}))
    ctx = make_ctx(tmp_path, "bad", backend)
    record_session(ctx, careless_state())
    ctx.bus.put("injected_skills", {"L1": ["concentration-inequalities"]})
    outcome = await LearnStage().run(ctx, SPEC)
    assert outcome.status == "completed", outcome.reason
    report = ctx.bus.get("learn_report")
    assert report["established"] == [] and "NOT established" in report["trust"]

    mm = MemoryManager(tmp_path, "check", HashingEmbedder())
    results = [n for n in mm.graph.nodes() if n.kind == "result"]
    assert results and not any(n.established for n in results)
    assert all(n.verification_level == "unverified" for n in results)
    theorem = mm.graph.find(CLAIM)
    assert theorem.claimed_level == "formal" and theorem.retracted and "812.4" in theorem.retraction
    assert mm.search_theorems("UCB1 exploration constant regret", k=5, min_level="unverified") == []
    # the violated bound is remembered as a counterexample of the theorem
    assert "contradicted by the experiment" in mm.recall("theory.counterexamples.mab")[0]

    # the model was told, and its "knowledge" is stored unverified and never injected
    call = next(c for c in backend.calls if c.output_name() == "InsightBatch")
    assert "NOT established" in call.prompt_text() and "812.4" in call.prompt_text()
    assert "self-review" in call.prompt_text()
    saved = {i.title: i for i in mm.list_insights("mab")}
    assert set(saved) == {"The UCB1 constant is 1/100", "Self-reviewed constants"}
    assert not any(i.established for i in saved.values())
    assert all(i.session_status == "contradicted" and i.self_reviewed for i in saved.values())
    block = memories_block_for(mm, "mab", "UCB1 exploration constant 1/100")
    assert "Self-reviewed constants" in block and "1/100" not in block
    assert 'status="unverified: self-reviewed; the session ended contradicted"' in block

    # the distiller never saw the proofs of the false theorem, only what failed; what it wrote
    # is labelled
    distill = next(c for c in backend.calls if c.output_name() == "DistilledSkills")
    assert "PROOF-" not in distill.prompt_text() and "did NOT establish" in distill.prompt_text()
    assert "not justified by the union bound" in distill.prompt_text()
    skill = SkillRegistry(tmp_path / "skills").get("bernstein-variance-pull-counts")
    assert not skill.meta.established and skill.meta.session_status == "contradicted"
    assert skill.meta.source_session == "bad" and skill.meta.verification_level == "unverified"
    assert skill.body.startswith("> **Unverified.**")
    # a "proof" of a false theorem is no success for the skills it used
    assert SkillRegistry(tmp_path / "skills").get("concentration-inequalities").meta.usage_count == 0


async def test_a_proved_session_stores_established_at_its_weakest_level(tmp_path):
    backend = ScriptedBackend(responder=responder({"InsightBatch": TRUE_INSIGHTS, "DistilledSkills": DISTILLED}))
    ctx = make_ctx(tmp_path, "good", backend)
    state = theory_state("proved", reviewer=REVIEWER)
    record_session(ctx, state)
    assert (await LearnStage().run(ctx, SPEC)).status == "completed"
    mm = MemoryManager(tmp_path, "check", HashingEmbedder())
    results = {n.claimed_level: n for n in mm.graph.nodes() if n.kind == "result" and not n.retracted}
    assert all(n.established and n.verification_level == n.claimed_level for n in results.values())
    assert ctx.bus.get("learn_report")["established"] == sorted(n.node_id for n in mm.graph.nodes() if n.established)
    (ins,) = mm.list_insights("mab")
    assert ins.established and ins.verification_level == state.weakest_level() == "cited"
    skill = SkillRegistry(tmp_path / "skills").get("bernstein-variance-pull-counts")
    assert skill.meta.established and skill.meta.verification_level == "cited"
    assert not skill.body.startswith(">")
    call = next(c for c in backend.calls if c.output_name() == "InsightBatch")
    assert "weakest level is cited" in call.prompt_text() and "NOT established" not in call.prompt_text()


async def test_self_reviewed_proofs_are_not_established(tmp_path):
    ctx = make_ctx(
        tmp_path,
        "selfrev",
        ScriptedBackend(responder=responder({"InsightBatch": TRUE_INSIGHTS, "DistilledSkills": {"skills": []}})),
    )
    record_session(ctx, theory_state("proved", reviewer=CARELESS, self_review=True))
    await LearnStage().run(ctx, SPEC)
    mm = MemoryManager(tmp_path, "check", HashingEmbedder())
    by_level = {n.claimed_level: n for n in mm.graph.nodes() if n.kind == "result" and not n.retracted}
    # the cited lemma (verified citation) stands; the self-reviewed ones do not
    assert by_level["cited"].established
    assert not by_level["reviewed"].established and by_level["reviewed"].self_reviewed
    assert "self-reviewed" in by_level["reviewed"].note
    (ins,) = mm.list_insights("mab")
    assert not ins.established and ins.self_reviewed
    # still offered to the next session, but labelled
    assert 'status="unverified: self-reviewed; the session ended proved"' in memories_block_for(
        mm, "mab", "UCB1 regret Hoeffding"
    )


async def test_a_later_refutation_retracts_what_an_earlier_session_stored(tmp_path):
    # session A "proves" the claim with independent reviews and learns from it
    a = make_ctx(
        tmp_path,
        "A",
        ScriptedBackend(responder=responder({"InsightBatch": FALSE_INSIGHTS, "DistilledSkills": DISTILLED})),
    )
    proved = careless_state().model_copy(update={"status": "proved", "contradictions": [], "failed_attempts": []})
    for rec in proved.proven_lemmas.values():
        rec.reviewer, rec.self_review = REVIEWER, False
    record_session(a, proved)
    await LearnStage().run(a, SPEC)
    mm = MemoryManager(tmp_path, "check", HashingEmbedder())
    assert mm.graph.find(CLAIM).established
    assert "UCB1 with exploration constant" in await memory_hints(_memory_ctx(tmp_path, "probe1"), CLAIM)

    # session B refutes the same statement (written differently) with a confirmed counterexample
    b_state = TheoryState(
        formal_statement="$" + CLAIM.replace(" ", "  ") + "$.",
        lemma_dag={"T": LemmaNode(id="T", statement="$" + CLAIM + "$", is_root=True, status="refuted")},
        counterexamples=[
            Counterexample(
                lemma_id="T",
                assignment={"Delta": 0.05, "T": 10000},
                confirmed=True,
                checker="falsifier",
                description="regret 812 exceeds the bound 95",
            )
        ],
        status="refuted",
    )
    b = make_ctx(
        tmp_path,
        "B",
        ScriptedBackend(responder=responder({"InsightBatch": {"insights": []}, "DistilledSkills": {"skills": []}})),
    )
    record_session(b, b_state)
    assert (await LearnStage().run(b, SPEC)).status == "completed"
    assert mm.graph.find(CLAIM).node_id in b.bus.get("learn_report")["retracted"]

    node = mm.graph.find(CLAIM)
    assert node.retracted and not node.established and "refuted in session B" in node.retraction
    assert any(e.relation == "contradicts" and e.target == node.node_id for e in mm.graph.edges())
    # A's knowledge insight is retracted, its pitfall kept; A's distilled skill is flagged
    saved = {i.title: i for i in mm.list_insights("mab")}
    assert saved["The UCB1 constant is 1/100"].retracted and not saved["Self-reviewed constants"].retracted
    registry = SkillRegistry(tmp_path / "skills")
    skill = registry.get("bernstein-variance-pull-counts")
    assert skill.meta.retracted and "refuted in session B" in skill.meta.retraction
    assert skill.body.startswith("> **Retracted.**")
    assert skill.meta.name not in {s.meta.name for s in registry.get_by_role("prover")}
    assert b.bus.get("learn_report")["flagged_skills"] == ["bernstein-variance-pull-counts"]

    # the next session is warned, never offered the statement as a result
    hints = await memory_hints(_memory_ctx(tmp_path, "C"), CLAIM)
    assert "Results established" not in hints
    false_section = hints.split("found to be FALSE")[1]
    assert "UCB1 with exploration constant" in false_section and "refuted in session B" in false_section


async def test_memory_hints_never_present_unverified_or_retracted_results_as_established(tmp_path):
    mm = MemoryManager(tmp_path, "seed", HashingEmbedder())
    mm.add_theorem(
        "Hoeffding bound for the UCB1 confidence radius",
        "mab",
        "formal",
        session_id="s1",
        established=True,
        session_status="proved",
    )
    mm.add_theorem(
        "Peeling bound for the UCB1 confidence radius",
        "mab",
        "reviewed",
        session_id="s2",
        session_status="proved",
        self_reviewed=True,
        note="only self-reviewed",
    )
    mm.add_theorem(
        "Tiny-constant bound for the UCB1 confidence radius",
        "mab",
        "formal",
        session_id="s3",
        session_status="contradicted",
        self_reviewed=True,
    )
    mm.add_theorem(
        "Constant-regret bound for the UCB1 confidence radius",
        "mab",
        "smt",
        session_id="s4",
        established=True,
        session_status="proved",
    )
    mm.retract_theorem("Constant-regret bound for the UCB1 confidence radius", "mab", "refuted in session s5")
    hints = await memory_hints(_memory_ctx(tmp_path, "probe"), "UCB1 confidence radius bound")
    established, rest = hints.split("Unverified results from earlier sessions")
    assert "[formal] Hoeffding bound" in established
    for other in ("Peeling", "Tiny-constant", "Constant-regret"):
        assert other not in established
    unverified, false = rest.split("found to be FALSE")
    assert "claimed reviewed by self-review; the session ended proved" in unverified and "Peeling" in unverified
    assert "Tiny-constant" not in hints  # a contradicted session's lemma is not even a candidate
    assert "Constant-regret" in false and "retracted: refuted in session s5" in false
