"""SkillRegistry: sources and priority, malformed skills, EMA statistics persisted for
every source, upsert; and the shipped seed skills."""

from __future__ import annotations

import json
import multiprocessing as mp
from pathlib import Path

import pytest
from skillkit import write_skill

from eurekaclaw.skills.format import SkillFormatError, parse_skill_text
from eurekaclaw.skills.registry import SkillRegistry, builtin_skills_dir, ema, role_matches
from eurekaclaw.types.skills import SkillMeta, SkillRecord

REQUIRED_SEEDS = {
    "induction",
    "proof-by-contradiction",
    "concentration-inequalities",
    "union-bound-and-peeling",
    "martingale-arguments",
    "convexity-and-jensen",
    "telescoping-sums",
    "change-of-measure",
    "compactness-arguments",
    "theorem-proof-style",
    "survey-habits",
    "experiment-habits",
}


def test_seed_skills_ship_and_parse(tmp_path):
    seeds = builtin_skills_dir()
    assert seeds.name == "seed_skills" and seeds.is_dir()
    reg = SkillRegistry(tmp_path / "user")
    assert reg.problems == []
    names = {s.meta.name for s in reg.list()}
    assert REQUIRED_SEEDS <= names and len(names) >= 12
    for skill in reg.list():
        assert skill.origin == "builtin" and skill.meta.source == "seed"
        assert skill.meta.agent_roles and skill.meta.tags and skill.meta.description
        assert "## Pitfalls" in skill.body and len(skill.body) > 800, skill.meta.name
        assert Path(skill.path).parent.name == skill.meta.name


def test_priority_user_over_domain_over_builtin(tmp_path):
    builtin, dom1, dom2, user = (tmp_path / n for n in ("builtin", "dom1", "dom2", "user"))
    write_skill(builtin, "shared", body="builtin body")
    write_skill(builtin, "only-builtin", body="b")
    write_skill(dom1, "shared", body="domain one body")
    write_skill(dom2, "shared", body="domain two body")
    write_skill(dom2, "only-domain", body="d")
    reg = SkillRegistry(user, [dom1, dom2], builtin)
    assert reg.get("shared").body == "domain one body" and reg.get("shared").origin == "domain"
    write_skill(user, "shared", body="user body")
    reg.load()
    assert reg.get("shared").body == "user body" and reg.get("shared").origin == "user"
    assert {s.meta.name for s in reg.list()} == {"shared", "only-builtin", "only-domain"}
    assert reg.get("only-builtin").origin == "builtin"


def test_malformed_skills_are_skipped_with_a_warning(tmp_path, caplog):
    user = tmp_path / "user"
    write_skill(user, "good")
    (user / "no-front-matter").mkdir()
    (user / "no-front-matter" / "SKILL.md").write_text("just text")
    (user / "bad-yaml").mkdir()
    (user / "bad-yaml" / "SKILL.md").write_text("---\nname: [unclosed\n---\nbody\n")
    (user / "unsafe-yaml").mkdir()
    (user / "unsafe-yaml" / "SKILL.md").write_text(
        "---\nname: !!python/object/apply:os.system ['echo hacked']\n---\nbody\n"
    )
    write_skill(user, "Bad Name!", folder="bad-name")
    (user / "empty-body").mkdir()
    (user / "empty-body" / "SKILL.md").write_text("---\nname: empty-body\n---\n\n")
    reg = SkillRegistry(user, builtin_dir=tmp_path / "none")
    assert [s.meta.name for s in reg.list()] == ["good"]
    assert len(reg.problems) == 5
    assert "skipped" in caplog.text


def test_ema_arithmetic_by_hand():
    assert ema(None, True) == 1.0
    assert ema(None, False) == 0.0
    assert ema(1.0, False) == pytest.approx(0.7)
    assert ema(0.7, True) == pytest.approx(0.79)
    assert ema(0.79, False) == pytest.approx(0.553)


def test_update_stats_for_a_builtin_skill_persists_in_the_side_file(tmp_path):
    builtin, user = tmp_path / "builtin", tmp_path / "user"
    folder = write_skill(builtin, "peeling", usage_count=3, success_rate=0.5)
    shipped = (folder / "SKILL.md").read_text()
    reg = SkillRegistry(user, builtin_dir=builtin)
    rec = reg.update_stats("peeling", True)  # 0.3*1 + 0.7*0.5 = 0.65
    assert rec.meta.usage_count == 4 and rec.meta.success_rate == pytest.approx(0.65)
    reg.update_stats("peeling", False)  # 0.7*0.65 = 0.455
    assert (folder / "SKILL.md").read_text() == shipped  # the shipped file is never touched
    stats = json.loads((user / "_stats.json").read_text())["skills"]["peeling"]
    assert stats["usage_count"] == 5 and stats["success_rate"] == pytest.approx(0.455)
    again = SkillRegistry(user, builtin_dir=builtin).get("peeling")
    assert again.meta.usage_count == 5 and again.meta.success_rate == pytest.approx(0.455)
    with pytest.raises(KeyError):
        reg.update_stats("no-such-skill", True)


def test_first_observation_sets_the_rate(tmp_path):
    user = tmp_path / "user"
    write_skill(user, "fresh")
    reg = SkillRegistry(user, builtin_dir=tmp_path / "none")
    assert reg.update_stats("fresh", False).meta.success_rate == 0.0
    assert reg.update_stats("fresh", True).meta.success_rate == pytest.approx(0.3)


def test_upsert_overrides_builtin_and_keeps_stats(tmp_path):
    builtin, user = tmp_path / "builtin", tmp_path / "user"
    write_skill(builtin, "jensen", body="old body")
    reg = SkillRegistry(user, builtin_dir=builtin)
    reg.update_stats("jensen", True)
    meta = SkillMeta(name="jensen", tags=["convexity"], agent_roles=["prover"], source="distilled")
    stored = reg.upsert(SkillRecord(meta=meta, body="new body"))
    assert stored.origin == "user" and (user / "jensen" / "SKILL.md").exists()
    assert stored.meta.usage_count == 1 and stored.meta.success_rate == 1.0
    fresh = SkillRegistry(user, builtin_dir=builtin).get("jensen")
    assert fresh.body == "new body" and fresh.origin == "user" and fresh.meta.usage_count == 1
    with pytest.raises(ValueError):
        reg.upsert(SkillRecord(meta=SkillMeta(name="../escape"), body="x"))


def test_queries_by_tag_and_role(tmp_path):
    user = tmp_path / "user"
    write_skill(user, "a", tags=("martingale", "concentration"), roles=("prover",))
    write_skill(user, "b", tags=("concentration",), roles=("writer",))
    write_skill(user, "c", tags=("plots",), roles=())
    reg = SkillRegistry(user, builtin_dir=tmp_path / "none")
    assert [s.meta.name for s in reg.get_by_tags(["concentration", "martingale"])] == ["a", "b"]
    assert [s.meta.name for s in reg.get_by_role("prover")] == ["a", "c"]
    assert [s.meta.name for s in reg.get_by_role("writer")] == ["b", "c"]
    assert role_matches(["survey"], "survey_summarizer") and not role_matches(["survey"], "prover")


def test_parse_accepts_comma_separated_lists():
    rec = parse_skill_text("---\nname: x\ntags: a, b\n---\nbody\n")
    assert rec.meta.tags == ["a", "b"]
    with pytest.raises(SkillFormatError):
        parse_skill_text("---\n- a list\n---\nbody\n")


def _stats_worker(user: str, builtin: str) -> None:
    reg = SkillRegistry(Path(user), builtin_dir=Path(builtin))
    for i in range(25):
        reg.update_stats("shared", i % 2 == 0)


def test_concurrent_stats_updates_lose_nothing(tmp_path):
    builtin, user = tmp_path / "builtin", tmp_path / "user"
    write_skill(builtin, "shared")
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_stats_worker, args=(str(user), str(builtin))) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0]
    assert SkillRegistry(user, builtin_dir=builtin).get("shared").meta.usage_count == 50
