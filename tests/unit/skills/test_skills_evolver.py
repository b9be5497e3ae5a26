"""SkillEvolver: dedupe, compress, one fast structured call, upsert as distilled."""

from __future__ import annotations

import pytest
from skillkit import write_skill

from eurekaclaw.errors import LLMOutputError
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.skills.evolver import SkillEvolver, compress, dedupe
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
    assert call.tier == "fast" and call.max_tokens == 1024 and call.output_name() == "DistilledSkills"
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
