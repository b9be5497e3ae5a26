"""MABPlugin: the stochastic multi-armed bandit domain.

Routing rule (matches): a statement belongs to this domain when it contains at least one strong
term, or at least two different weak terms. Terms match whole words (letters, digits and "_"
make up a word; a hyphen separates words), case-insensitively except MOSS (upper case only, so
"moss" the plant does not count).
  strong: bandit(s), multi-armed, UCB / UCB1 / UCB-V / KL-UCB, upper confidence bound,
          Thompson sampling, regret / pseudo-regret, MOSS, Lai-Robbins, explore-then-commit,
          epsilon-greedy, best arm; and "arm(s)" together with "pull(s/ed/ing)"
  weak:   exploration, exploitation, arm(s), pull(s), reward(s), optimism
So "exploration" alone in an unrelated sentence does not route here; "the exploration-
exploitation trade-off" does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from eurekaclaw.domains import DomainPlugin
from eurekaclaw.errors import BadInputError
from eurekaclaw.tools.base import ToolRegistry

HERE = Path(__file__).resolve().parent
LEVELS = ("level1", "level2", "level3")


def _word(pattern: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){pattern}(?!\w)", flags)


STRONG = {
    "bandit": _word(r"(?:multi-?armed[\s-]+)?bandits?"),
    "multi-armed": _word(r"multi[\s-]?armed"),
    "UCB": _word(r"(?:kl-)?ucb(?:1|-v|-\w+)?"),
    "upper confidence bound": _word(r"upper[\s-]+confidence[\s-]+bounds?"),
    "Thompson sampling": _word(r"thompson[\s-]+sampling"),
    "regret": _word(r"(?:pseudo-)?regrets?"),
    "MOSS": _word(r"MOSS", 0),
    "Lai-Robbins": _word(r"lai[\s\-–]+robbins"),
    "explore-then-commit": _word(r"explore[\s-]+then[\s-]+commit"),
    "epsilon-greedy": _word(r"(?:epsilon|ε|\\epsilon|\\varepsilon)[\s-]*greedy"),
    "best arm": _word(r"best[\s-]+arms?"),
}
WEAK = {
    "exploration": _word(r"exploration"),
    "exploitation": _word(r"exploitation"),
    "arm": _word(r"arms?"),
    "pull": _word(r"pull(?:s|ed|ing)?"),
    "reward": _word(r"rewards?"),
    "optimism": _word(r"optimism"),
}


def keyword_hits(text: str) -> tuple[list[str], list[str]]:
    """(strong terms found, weak terms found) in text."""
    strong = [k for k, rx in STRONG.items() if rx.search(text)]
    weak = [k for k, rx in WEAK.items() if rx.search(text)]
    if "arm" in weak and "pull" in weak:
        strong.append("arm + pull")
    return strong, weak


class MABPlugin(DomainPlugin):
    name = "mab"
    display_name = "Multi-armed bandits"
    keywords = list(STRONG) + list(WEAK)
    description = (
        "Stochastic multi-armed bandits: regret bounds (UCB, KL-UCB, MOSS, Thompson sampling, "
        "Bayes-UCB, IMED, Exp3, heavy-tailed and non-stationary UCB), lower bounds, concentration "
        "tools, and vectorised simulators for the Experiment stage."
    )

    def matches(self, text: str) -> bool:
        strong, weak = keyword_hits(text)
        return bool(strong) or len(weak) >= 2

    def register_tools(self, registry: ToolRegistry) -> None:
        from domains.mab.tools import register_tools  # numpy only when tools are wanted

        register_tools(registry)

    def get_workflow_hint(self) -> str:
        return (HERE / "workflow_hint.md").read_text(encoding="utf-8")

    def get_skills_dirs(self) -> list[Path]:
        return [HERE / "skills"]

    def get_benchmark_problems(self, level: str) -> list[dict[str, Any]]:
        key = str(level).strip().lower()
        key = key if key.startswith("level") else f"level{key.lstrip('l')}"
        if key not in LEVELS:
            raise BadInputError(f"unknown benchmark level {level!r}: use 1, 2 or 3")
        data = json.loads((HERE / "benchmark" / f"{key}.json").read_text(encoding="utf-8"))
        return list(data["problems"])

    def experiment_stage_available(self) -> bool:
        return True

    def experiment_backend(self) -> Any:
        """The simulation backend the Experiment stage runs declarative specs with."""
        from domains.mab.experiment import MABExperimentBackend

        return MABExperimentBackend()
