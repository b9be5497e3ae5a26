"""Problem sets for `eurekaclaw bench`: bundled files, the user's own files, and the benchmark
levels of the domain plugins (through `DomainPlugin.get_benchmark_problems`).

A problem carries its ground truth: `true`, `false`, or `unknown` (an open question, or a plugin
problem that does not say). Unknown-truth problems are run and reported, but never counted as a
correct or a false verdict: a missing ground truth must not turn into a score.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from eurekaclaw.errors import BadInputError
from eurekaclaw.types.artifacts import Claim

BUNDLED_DIR = Path(__file__).resolve().parent / "problems"
Truth = Literal["true", "false", "unknown"]


class Problem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=120, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
    statement: str = Field(min_length=3)
    truth: Truth
    source: str = Field(min_length=3)
    title: str = ""
    topic: str = ""
    domain: str | None = None
    witness: str = ""  # for a false statement: where it fails
    claim: Claim | None = None  # the statement in the claim language, where expressible
    level: str | None = None  # a plugin's benchmark level
    set_name: str = ""

    @field_validator("truth", mode="before")
    @classmethod
    def _truth_words(cls, value: Any) -> Any:
        # YAML reads `true`/`false` as booleans; both spellings mean the same ground truth
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value).strip().lower() if value is not None else value


class ProblemSet(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    description: str = ""
    source_file: str = ""
    problems: list[Problem]


def bundled_sets() -> list[str]:
    return sorted(p.stem for p in BUNDLED_DIR.glob("*.yaml"))


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()))
    return f"{where}: {err.get('msg', 'invalid')}"


def load_problem_file(path: Path) -> ProblemSet:
    """A YAML or JSON problem file (schema: docs/bench.md)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BadInputError(f"cannot read problem file {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise BadInputError(
            f"problem file {path} is not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {first}"
        ) from None
    if not isinstance(data, dict):
        raise BadInputError(f"problem file {path}: expected a mapping with `name` and `problems`")
    data.setdefault("name", path.stem)
    data["source_file"] = str(path)
    try:
        problem_set = ProblemSet.model_validate(data)
    except ValidationError as exc:
        raise BadInputError(f"problem file {path}: {_first_error(exc)}") from None
    return _finish(problem_set)


def _finish(problem_set: ProblemSet) -> ProblemSet:
    if not problem_set.problems:
        raise BadInputError(f"problem set {problem_set.name!r} has no problems")
    seen: set[str] = set()
    for problem in problem_set.problems:
        if problem.id in seen:
            raise BadInputError(f"problem set {problem_set.name!r}: duplicate problem id {problem.id!r}")
        seen.add(problem.id)
        problem.set_name = problem_set.name
    return problem_set


def _plugin_truth(item: dict[str, Any]) -> Any:
    for key in ("truth", "ground_truth"):
        if key in item:
            return item[key]
    return "unknown"


def load_plugin_level(domain: str, level: str, plugins: dict[str, Any] | None = None) -> ProblemSet:
    """A domain plugin's benchmark level, e.g. `mab:1`."""
    from eurekaclaw.domains import discover_plugins

    plugins = plugins if plugins is not None else discover_plugins()
    plugin = plugins.get(domain)
    if plugin is None:
        known = ", ".join(sorted(plugins)) or "none installed"
        raise BadInputError(f"unknown domain {domain!r} in problem set {domain}:{level} (domains: {known})")
    items = plugin.get_benchmark_problems(level)
    problems = []
    for index, item in enumerate(items):
        refs = item.get("references") or []
        source = "; ".join(_reference_text(r) for r in refs) or "; ".join(item.get("known_results") or [])
        try:
            problems.append(
                Problem(
                    id=str(item.get("id") or f"{domain}-{level}-{index + 1}"),
                    statement=str(item.get("statement", "")),
                    truth=_plugin_truth(item),
                    source=source or f"{domain} plugin, benchmark level {level}",
                    title=str(item.get("title", "")),
                    domain=domain,
                    level=str(level),
                    claim=item.get("claim"),
                )
            )
        except ValidationError as exc:
            raise BadInputError(f"problem {index + 1} of {domain}:{level}: {_first_error(exc)}") from None
    return _finish(
        ProblemSet(
            name=f"{domain}:{level}",
            description=f"{plugin.display_name or domain} benchmark level {level}",
            source_file=f"plugin:{domain}",
            problems=problems,
        )
    )


def _reference_text(ref: Any) -> str:
    if not isinstance(ref, dict):
        return str(ref)
    authors = ref.get("authors") or []
    who = authors[0].split()[-1] + (" et al." if len(authors) > 1 else "") if authors else ""
    parts = [p for p in (who, f"({ref['year']})" if ref.get("year") else "", ref.get("title", "")) if p]
    return " ".join(parts)


def load_problem_set(spec: str, plugins: dict[str, Any] | None = None) -> ProblemSet:
    """`general` (a bundled set), `mab:1` (a plugin level), or a path to a YAML/JSON file."""
    spec = spec.strip()
    path = Path(spec).expanduser()
    if path.suffix in (".yaml", ".yml", ".json") or path.exists():
        if not path.is_file():
            raise BadInputError(f"problem file {spec} does not exist")
        return load_problem_file(path)
    if spec in bundled_sets():
        return load_problem_file(BUNDLED_DIR / f"{spec}.yaml")
    domain, sep, level = spec.partition(":")
    if sep and domain and level:
        return load_plugin_level(domain.lower(), level, plugins)
    raise BadInputError(
        f"unknown problem set {spec!r}: use a bundled set ({', '.join(bundled_sets())}), "
        "a domain level such as mab:1, or a path to a .yaml/.json file"
    )


def select(problem_sets: list[ProblemSet], only: list[str] | None = None, truth: str | None = None) -> list[Problem]:
    """The problems of the given sets, optionally restricted to ids and a ground truth."""
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for problem_set in problem_sets:
        for problem in problem_set.problems:
            if problem.id in seen:
                raise BadInputError(
                    f"problem id {problem.id!r} is in both {seen[problem.id]!r} and {problem_set.name!r}"
                )
            seen[problem.id] = problem_set.name
            problems.append(problem)
    if only:
        unknown = sorted(set(only) - set(seen))
        if unknown:
            raise BadInputError(f"no problem with id {', '.join(unknown)} in the chosen sets")
        problems = [p for p in problems if p.id in set(only)]
    if truth:
        problems = [p for p in problems if p.truth == truth]
    if not problems:
        raise BadInputError("no problems left to run after --problem/--truth")
    return problems
