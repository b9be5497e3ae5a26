"""Problem sets: the bundled sets, users' files and the domain plugins' benchmark levels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eurekaclaw.bench.problems import load_problem_file, load_problem_set, select
from eurekaclaw.errors import BadInputError

TOPICS = {"inequalities", "sequences and series", "probability", "combinatorics", "number theory"}


def test_the_general_set_has_true_and_subtly_false_statements_with_sources() -> None:
    problems = load_problem_set("general").problems
    assert len(problems) >= 30
    false = [p for p in problems if p.truth == "false"]
    assert len(problems) / 4 <= len(false) <= len(problems) / 2
    assert {p.topic for p in problems} == TOPICS
    for p in problems:
        assert p.truth in ("true", "false") and len(p.source) > 10, p.id
        assert p.set_name == "general"
    assert all(p.witness for p in false), "every false statement says where it fails"


def test_the_falsifier_agrees_with_the_ground_truth_of_every_claim() -> None:
    """The ground truth is data a bench score rests on: every false claim must have a
    counterexample, and no true claim may have one."""
    from eurekaclaw.verify.falsifier import falsify

    for p in [*load_problem_set("general").problems, *load_problem_set("demo").problems]:
        if p.claim is None:
            continue
        # a generous budget for false claims: the search stops at the first confirmed counterexample
        report = falsify(p.claim, seed=1, budget_s=5.0 if p.truth == "false" else 0.2)
        found = report.verdict == "counterexample" and report.confirmed
        assert found == (p.truth == "false"), (p.id, report.verdict, report.detail)


def test_a_user_file_in_yaml_or_json(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(
        "problems:\n  - id: p1\n    statement: For all real x, x^2 >= 0.\n    truth: true\n"
        "    source: folklore\n  - id: p2\n    statement: For all real x, x >= 0.\n    truth: false\n"
        "    source: made up for the test\n"
    )
    problem_set = load_problem_set(str(path))
    assert problem_set.name == "mine"
    assert [(p.id, p.truth) for p in problem_set.problems] == [("p1", "true"), ("p2", "false")]
    as_json = tmp_path / "mine.json"
    as_json.write_text(
        '{"name": "j", "problems": [{"id": "q", "statement": "1 + 1 = 2", "truth": "unknown", "source": "none"}]}'
    )
    assert load_problem_set(str(as_json)).problems[0].truth == "unknown"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("problems: [", "not valid YAML"),
        ("- just a list", "expected a mapping"),
        ("problems:\n  - id: p\n    statement: For all x.\n    truth: maybe\n    source: x y z\n", "problems.0.truth"),
        ("problems:\n  - id: p\n    statement: For all x.\n    truth: true\n", "problems.0.source"),
        (
            "problems:\n  - {id: p, statement: aaaa, truth: true, source: abcd}\n  - {id: p, statement: bbbb, truth: true, source: abcd}\n",
            "duplicate problem id",
        ),
        ("problems: []\n", "has no problems"),
    ],
)
def test_a_broken_problem_file_is_one_readable_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(BadInputError) as info:
        load_problem_file(path)
    assert message in info.value.user_message()
    assert "\n" not in info.value.user_message()


def test_unknown_sets_and_missing_files_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="unknown problem set"):
        load_problem_set("nonsense")
    with pytest.raises(BadInputError, match="does not exist"):
        load_problem_set(str(tmp_path / "absent.yaml"))
    with pytest.raises(BadInputError, match="unknown domain"):
        load_problem_set("nodomain:1", plugins={})


class _Plugin:
    display_name = "Fake"

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = items
        self.levels: list[str] = []

    def get_benchmark_problems(self, level: str) -> list[dict[str, Any]]:
        self.levels.append(level)
        return self.items


def test_plugin_levels_come_through_the_plugin_interface() -> None:
    plugin = _Plugin(
        [
            {
                "id": "a",
                "statement": "A known bound holds.",
                "truth": True,
                "references": [{"authors": ["Ann Smith", "Bo Li"], "year": 2002, "title": "Bounds"}],
            },
            {"id": "b", "statement": "An open question about bandits."},
        ]
    )
    problem_set = load_problem_set("fake:2", plugins={"fake": plugin})
    assert plugin.levels == ["2"]
    a, b = problem_set.problems
    assert (a.truth, a.domain, a.level, a.source) == ("true", "fake", "2", "Smith et al. (2002) Bounds")
    assert b.truth == "unknown"  # no ground truth given: never scored as right or wrong


def test_the_mab_levels_carry_the_plugins_ground_truth() -> None:
    truths = {}
    for level in ("1", "2", "3"):
        problem_set = load_problem_set(f"mab:{level}")
        assert problem_set.problems and all(p.domain == "mab" for p in problem_set.problems)
        truths[level] = {p.truth for p in problem_set.problems}
    # levels 1 and 2 are published theorems (scored); level 3 are open problems (never scored)
    assert truths == {"1": {"true"}, "2": {"true"}, "3": {"unknown"}}


def test_select_by_id_and_truth() -> None:
    sets = [load_problem_set("demo")]
    assert [p.id for p in select(sets, truth="false")] == ["demo-shifted-quadratic", "demo-cube-square"]
    assert [p.id for p in select(sets, only=["demo-square"])] == ["demo-square"]
    with pytest.raises(BadInputError, match="no problem with id"):
        select(sets, only=["nope"])
    with pytest.raises(BadInputError, match="in both"):
        select([load_problem_set("demo"), load_problem_set("demo")])
