"""SkillEvolver: dedupe, compress, one fast structured call, upsert as distilled."""

from __future__ import annotations

import pytest
from skillkit import write_skill

from eurekaclaw.errors import LLMOutputError
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.skills.evolver import MAX_TOKENS, SkillEvolver, compress, dedupe
from eurekaclaw.skills.registry import SkillRegistry

GOOD = {
    "skills": [
        {
            "name": "Bernstein for small variance",
            "description": "Use Bernstein instead of Hoeffding when the variance is much smaller than the range.",
            "tags": ["Bernstein", "variance", "concentration"],
            "when_to_use": "Rewards with small variance.",
            "steps": ["Bound the variance", "Apply Bernstein", "Union bound over arms"],
            "pitfalls": "Forgetting the range term; using the empirical variance without a bound",
        },
        {"name": "thin", "description": "", "steps": ["only one step"]},
        {"name": "induction", "description": "Collides with a user skill", "steps": ["a", "b"]},
    ]
}


def make(tmp_path, reply):
    backend = ScriptedBackend(default=reply)
    user = tmp_path / "user"
    write_skill(user, "induction", body="the user's own induction skill", source="manual")
    reg = SkillRegistry(user, builtin_dir=tmp_path / "none")
    return backend, reg, SkillEvolver(SessionLLM(backend, UsageLedger(None)), reg, domain="mab")


def test_compress_and_dedupe():
    long = "word " * 200
    short = compress(long)
    assert len(short) <= 300 and short.endswith("…")
    assert compress("  a   b  ") == "a b"
    assert dedupe(["Gap in step 2", "gap in  step 2", "other"]) == ["Gap in step 2", "other"]


async def test_distill_upserts_distilled_skills(tmp_path):
    backend, reg, evolver = make(tmp_path, GOOD)
    failures = ["L4: bound_too_loose: Hoeffding ignores the variance"] * 3 + ["L4: gap: missing union bound"]
    successes = ["L1 proof: " + "we apply Hoeffding's inequality " * 40]
    created = await evolver.distill_from_session(failures, successes)
    assert [r.meta.name for r in created] == ["bernstein-for-small-variance", "induction-distilled"]
    (call,) = backend.calls
    assert call.tier == "fast" and call.max_tokens == MAX_TOKENS and call.output_name() == "DistilledSkills"
    prompt = call.prompt_text()
    assert prompt.count("Hoeffding ignores the variance") == 1
    assert "missing union bound" in prompt
    success_line = next(line for line in prompt.splitlines() if line.startswith("- L1 proof"))
    assert len(success_line) <= 2 + 300
    skill = reg.get("bernstein-for-small-variance")
    assert skill.meta.source == "distilled" and skill.origin == "user"
    assert "distilled" in skill.meta.tags and "bernstein" in skill.meta.tags
    assert "prover" in skill.meta.agent_roles
    assert "1. Bound the variance" in skill.body and "- Forgetting the range term" in skill.body
    assert (tmp_path / "user" / "bernstein-for-small-variance" / "SKILL.md").exists()
    assert reg.get("induction").body == "the user's own induction skill"
    assert [n for n, _ in evolver.skipped] == ["thin"]
    # distilling the same skill again bumps its version instead of duplicating it
    again = await evolver.distill_from_session(failures, successes)
    assert again[0].meta.version == "1.1"


async def test_nothing_to_learn_means_no_call(tmp_path):
    backend, _, evolver = make(tmp_path, GOOD)
    assert await evolver.distill_from_session([], []) == []
    assert backend.calls == []


async def test_garbage_reply_raises_output_error(tmp_path):
    backend, reg, evolver = make(tmp_path, "Sorry, I can only answer in prose.")
    with pytest.raises(LLMOutputError):
        await evolver.distill_from_session(["a failure"], [])
    assert len(backend.calls) == 2  # one repair round, then a typed failure
    assert [s.meta.name for s in reg.list()] == ["induction"]


async def test_skills_from_an_unestablished_session_are_labelled(tmp_path):
    from eurekaclaw.skills.evolver import SkillProvenance

    backend, reg, _ = make(tmp_path, GOOD)
    prov = SkillProvenance(
        source_session="s7",
        session_status="contradicted",
        established=False,
        verification_level="reviewed",
        self_reviewed=True,
        note="an experiment violated a bound",
        shown_false=True,
    )
    evolver = SkillEvolver(SessionLLM(backend, UsageLedger(None)), reg, domain="mab", provenance=prov)
    created = await evolver.distill_from_session(["L4: gap: the constant is not justified"], ["L1 proof: PROOF-TEXT"])
    skill = reg.get(created[0].meta.name)
    assert not skill.meta.established and skill.meta.verification_level == "unverified"
    assert skill.meta.source_session == "s7" and skill.meta.self_reviewed
    assert skill.body.startswith("> **Unverified.** Distilled from session s7")
    prompt = backend.calls[0].prompt_text()
    # a false session's proofs are not strategies: the model sees only the failures
    assert "PROOF-TEXT" not in prompt and "not justified" in prompt and "did NOT establish" in prompt
    # the provenance survives a reload from disk
    again = SkillRegistry(tmp_path / "user", builtin_dir=tmp_path / "none").get(skill.meta.name)
    assert again.meta.session_status == "contradicted" and not again.meta.established


async def test_flag_retracted_skills_stops_offering_them(tmp_path):
    from eurekaclaw.skills.evolver import SkillProvenance, flag_retracted_skills

    backend, reg, _ = make(tmp_path, GOOD)
    evolver = SkillEvolver(
        SessionLLM(backend, UsageLedger(None)),
        reg,
        domain="mab",
        provenance=SkillProvenance(source_session="s1", session_status="proved"),
    )
    await evolver.distill_from_session(["a failure"], [])
    assert "bernstein-for-small-variance" in {s.meta.name for s in reg.get_by_role("prover")}
    assert flag_retracted_skills(reg, {"other"}, "why") == []
    flagged = flag_retracted_skills(reg, {"s1"}, "refuted in session s2")
    # the user's own skill of the same session-less kind is never touched
    assert flagged == ["bernstein-for-small-variance", "induction-distilled"]
    reloaded = SkillRegistry(tmp_path / "user", builtin_dir=tmp_path / "none")
    skill = reloaded.get("bernstein-for-small-variance")
    assert skill.meta.retracted and skill.meta.retraction == "refuted in session s2"
    assert skill.body.startswith("> **Retracted.**")
    offered = {s.meta.name for s in reloaded.get_by_role("prover")}
    assert "bernstein-for-small-variance" not in offered and "induction" in offered
    assert len(reloaded.list()) == 3  # still listed, so the user sees why it is gone
    assert flag_retracted_skills(reloaded, {"s1"}, "refuted in session s2") == []  # idempotent


# --- issue 18: name clashes, counterexamples, reply limit ----------------------------------------

LONG_NAME = "variance-aware-bernstein-confidence-radius-for-heavy-tailed-arm-rewards"  # > 64


def _skill(name: str) -> dict:
    return {
        "name": name,
        "description": "Use Bernstein when the variance is small.",
        "tags": ["bernstein"],
        "steps": ["Bound the variance", "Apply Bernstein", "Union bound"],
    }


async def test_a_long_name_clashing_with_a_user_skill_stays_within_the_limit(tmp_path):
    from eurekaclaw.memory.text import slugify
    from eurekaclaw.skills.format import valid_name

    base = slugify(LONG_NAME, max_len=64, fallback="")
    assert len(base) + len("-distilled") > 64  # the old rule made an invalid name and aborted
    user = tmp_path / "user"
    write_skill(user, base, body="the user's own skill", source="manual")
    # the first "-distilled" variant is held by an installed skill too
    write_skill(user, base[:54].rstrip("-") + "-distilled", body="installed", source="manual")
    backend = ScriptedBackend(default={"skills": [_skill(LONG_NAME), _skill("second-good-skill")]})
    reg = SkillRegistry(user, builtin_dir=tmp_path / "none")
    evolver = SkillEvolver(SessionLLM(backend, UsageLedger(None)), reg, domain="mab")
    created = await evolver.distill_from_session(["L4: gap: missing variance term"], [])
    names = [r.meta.name for r in created]
    assert len(names) == 2 and names[1] == "second-good-skill"
    assert names[0] == base[:52].rstrip("-") + "-distilled-2"
    assert all(valid_name(n) and len(n) <= 64 for n in names)
    assert reg.get(base).body == "the user's own skill"
    # deterministic: the same reply lands on the same name (a version bump, not a new skill)
    again = await evolver.distill_from_session(["L4: gap: missing variance term"], [])
    assert [r.meta.name for r in again] == names and again[0].meta.version == "1.1"


async def test_one_skill_that_cannot_be_stored_is_skipped_and_the_others_kept(tmp_path, monkeypatch):
    backend = ScriptedBackend(default={"skills": [_skill("first-skill"), _skill("second-skill")]})
    reg = SkillRegistry(tmp_path / "user", builtin_dir=tmp_path / "none")
    real = reg.upsert

    def failing(record):
        if record.meta.name == "first-skill":
            raise OSError("disk full")
        return real(record)

    monkeypatch.setattr(reg, "upsert", failing)
    evolver = SkillEvolver(SessionLLM(backend, UsageLedger(None)), reg, domain="mab")
    created = await evolver.distill_from_session(["a failure"], [])
    assert [r.meta.name for r in created] == ["second-skill"]
    assert evolver.skipped == [("first-skill", "could not be stored: disk full")]


async def test_counterexamples_and_violations_reach_the_distiller(tmp_path):
    backend, _, evolver = make(tmp_path, {"skills": []})
    created = await evolver.distill_from_session(
        [],
        [],
        ["UCB1 constant regret — confirmed at {'Delta': 0.01, 'T': 100000}: regret grows like log T"],
        ["R_T <= 3 sqrt(T): measured 41.2 > bound 30.0 at T=100"],
    )
    assert created == []
    prompt = backend.calls[0].prompt_text()
    assert "'Delta': 0.01" in prompt and "Counterexamples" in prompt
    assert "measured 41.2 > bound 30.0" in prompt and "experiment violated" in prompt


async def test_a_reply_cut_off_at_the_limit_stores_nothing(tmp_path):
    from eurekaclaw.llm.types import LLMResponse

    def truncated(request):
        return LLMResponse(
            text='{"skills": [{"name": "half-a-skill", "description": "Use',
            stop_reason="max_tokens",
            structured={"skills": [_skill("half-a-skill")]},
        )

    backend = ScriptedBackend(responder=truncated)
    reg = SkillRegistry(tmp_path / "user", builtin_dir=tmp_path / "none")
    evolver = SkillEvolver(SessionLLM(backend, UsageLedger(None)), reg, domain="mab", max_tokens=2048)
    with pytest.raises(LLMOutputError) as info:
        await evolver.distill_from_session(["a failure"], [])
    assert info.value.kind == "truncated"
    assert backend.calls[0].max_tokens == 2048 and len(backend.calls) == 1  # no repair of a cut reply
    assert reg.get("half-a-skill") is None
