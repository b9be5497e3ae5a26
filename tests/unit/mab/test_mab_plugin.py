"""The plugin: discovery, routing rule, skills, benchmarks and tools."""

from __future__ import annotations

import json

import pytest

from domains.mab import MABPlugin
from eurekaclaw.domains import GENERAL, discover_plugins, route_domain
from eurekaclaw.errors import BadInputError
from eurekaclaw.skills.format import load_skill_file
from eurekaclaw.tools.base import ToolRegistry


def test_discovered_through_the_entry_point():
    plugins = discover_plugins()
    assert isinstance(plugins.get("mab"), MABPlugin)
    assert plugins["mab"].experiment_stage_available() is True


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Prove that UCB1 has logarithmic regret", True),
        ("Thompson sampling is asymptotically optimal for Bernoulli rewards", True),
        ("A lower bound for multi-armed problems", True),
        ("KL-UCB matches the Lai-Robbins bound", True),
        ("MOSS is minimax optimal", True),
        ("each arm is pulled at most O(log T) times", True),
        ("the exploration-exploitation trade-off in stochastic optimisation", True),
        ("bandits with heavy tails", True),
        ("exploration of the parameter space of a parabolic PDE", False),
        ("moss growth on north-facing slopes", False),
        ("the armed forces and the reward structure of the economy", False),
        ("The Riemann hypothesis implies a bound on prime gaps", False),
    ],
)
def test_keyword_rule(text, expected):
    assert MABPlugin().matches(text) is expected


def test_routing_uses_the_rule():
    plugins = {"mab": MABPlugin()}
    assert route_domain("regret of UCB1 on K arms", None, plugins) == "mab"
    assert route_domain("exploration of graphs by random walks", None, plugins) == GENERAL
    assert route_domain("anything", "MAB", plugins) == "mab"


def test_skills_have_front_matter_and_bodies():
    dirs = MABPlugin().get_skills_dirs()
    files = sorted(p for d in dirs for p in d.glob("*/SKILL.md"))
    assert len(files) >= 4
    names = set()
    for path in files:
        record = load_skill_file(path, origin="domain")  # the skill loader's own parser
        meta = record.meta
        assert meta.source == "seed" and meta.name == path.parent.name
        assert meta.agent_roles and meta.pipeline_stages and meta.description
        assert len(record.body) > 400
        names.add(meta.name)
    assert {
        "ucb-regret-analysis",
        "thompson-sampling-analysis",
        "lower-bounds-change-of-measure",
        "bandit-simulation-checks",
    } <= names


def test_benchmark_problems_per_level():
    plugin = MABPlugin()
    ids = {lvl: [p["id"] for p in plugin.get_benchmark_problems(lvl)] for lvl in ("1", "level2", "3")}
    assert ids["1"] == ["mab-l1-ucb1-instance", "mab-l1-ucb1-minimax", "mab-l1-lai-robbins"]
    assert len(ids["level2"]) == 3 and len(ids["3"]) == 3
    for lvl in ("1", "2", "3"):
        for problem in plugin.get_benchmark_problems(lvl):
            assert problem["statement"] and problem["setting"] and problem["known_results"]
            for ref in problem["references"]:
                assert ref["authors"] and ref["title"] and ref["year"] and ref["venue"]
    auer = plugin.get_benchmark_problems("1")[0]["references"][0]
    assert (auer["venue"], auer["volume"], auer["year"]) == ("Machine Learning", "47", 2002)
    with pytest.raises(BadInputError, match="unknown benchmark level"):
        plugin.get_benchmark_problems("7")


def test_workflow_hint_mentions_notation_and_pitfalls():
    hint = MABPlugin().get_workflow_hint()
    assert "Delta_i" in hint and "Pitfalls" in hint and "Lai-Robbins" in hint


async def test_tools_are_registered_and_answer_in_json():
    registry = ToolRegistry()
    MABPlugin().register_tools(registry)
    assert {
        "mab_confidence_radius",
        "mab_kl",
        "mab_lai_robbins",
        "mab_regret_decomposition",
        "mab_known_bounds",
        "simulate_bandit",
    } <= set(registry.names())
    text, is_error = await registry.call("mab_known_bounds", {"means": [0.9, 0.8], "horizon": 1000})
    assert not is_error and json.loads(text)["bounds"]["ucb1_auer2002"]["value"] > 0
    text, is_error = await registry.call(
        "simulate_bandit", {"means": [0.9, 0.5], "policy": "ucb1", "horizon": 500, "runs": 10}
    )
    out = json.loads(text)
    assert not is_error and out["curve"]["t"][-1] == 500 and len(out["mean_pulls"]) == 2
    text, is_error = await registry.call(
        "simulate_bandit", {"means": [0.5] * 100, "policy": "kl_ucb", "horizon": 1_000_000, "runs": 1000}
    )
    assert is_error and "exceeds the tool limit" in json.loads(text)["error"]
    text, is_error = await registry.call("mab_confidence_radius", {"kind": "bernstein", "n": 10, "delta": 0.1})
    assert is_error and "variance is required" in json.loads(text)["error"]
