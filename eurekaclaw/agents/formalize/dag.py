"""Lemma DAG checks and graph queries (networkx). An edge dep -> lemma means "lemma uses dep".

`repair_structure` first mends by code what needs no model: invalid or duplicate ids (every id
renamed consistently to L1…Ln), self-dependencies, references to no lemma or to the main
theorem (dropped), each repair noted. `structural_problems` then names every remaining defect
in words the model can act on (the cycle spelled out, the missing id quoted), because the
Formalizer sends these lines back to the model once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import networkx as nx

from eurekaclaw.types.artifacts import LemmaNode

# Ids become LaTeX labels (\label{lem:<id>}) and file-safe keys.
ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
# What the local backend's grammar lets a model write as an id (a subset of ID_RE, with no
# bounded repetition, which the grammar converter would unroll).
ID_PATTERN = "^[A-Za-z][A-Za-z0-9_]*$"


class PlannedLemma(Protocol):
    """A lemma of a plan as the model gave it (formalize.models.LemmaOut)."""

    id: str
    dependencies: list[str]
    is_root: bool


def _loose_id(text: str) -> str:
    """An id as a reference may spell it: "lem:L2", "Lemma L2", "l2" all mean L2."""
    t = text.strip().casefold()
    for prefix in ("lemma:", "lem:", "lemma ", "lemma~", "lemma"):
        if t.startswith(prefix) and len(t) > len(prefix):
            t = t[len(prefix) :]
            break
    return re.sub(r"[\s_.:\-]+", "", t)


def _renamed(lemmas: Sequence[PlannedLemma], notes: list[str]) -> list[str]:
    """Rename every id to L1..Ln when one is invalid or used twice; the old id of each lemma."""
    old = [lm.id for lm in lemmas]
    counts = Counter(old)
    if all(ID_RE.match(lid) and counts[lid] == 1 for lid in old):
        return old
    bad = sorted({lid for lid in old if not ID_RE.match(lid) or counts[lid] > 1})
    for i, lm in enumerate(lemmas, 1):
        lm.id = f"L{i}"
    notes.append(
        "lemma ids renamed to L1..L" + str(len(lemmas)) + " (invalid or repeated: " + ", ".join(map(repr, bad)) + ")"
    )
    return old


def _resolve(dep: str, index: int, old: list[str], new: list[str]) -> str | None:
    """The new id a dependency of lemma `index` meant: a lemma with that old id (else with a
    loose spelling of it, "lem:L2" for "L2"), the nearest one before it when several; None when
    nothing fits."""
    others = [i for i in range(len(old)) if i != index]
    found = [i for i in others if old[i] == dep]
    if not found:
        loose = _loose_id(dep)
        found = [i for i in others if loose and loose == _loose_id(old[i])]
    if not found:
        return None
    earlier = [i for i in found if i < index]
    return new[max(earlier) if earlier else min(found)]


def repair_structure(lemmas: Sequence[PlannedLemma]) -> list[str]:
    """Mend in place what code can mend in a plan (see the module docstring); the notes."""
    notes: list[str] = []
    old = _renamed(lemmas, notes)
    new = [lm.id for lm in lemmas]
    roots = {lm.id for lm in lemmas if lm.is_root}
    for index, lm in enumerate(lemmas):
        kept: list[str] = []
        for dep in lm.dependencies:
            target = _resolve(dep, index, old, new)
            if dep in (old[index], lm.id) and target is None:
                notes.append(f"lemma {lm.id}: dependency on itself dropped")
            elif target is None:
                notes.append(f"lemma {lm.id}: dependency {dep!r} names no lemma of the plan; dropped")
            elif target in roots and len(roots) == 1:
                notes.append(f"lemma {lm.id}: dependency on the main theorem {target} dropped")
            elif target not in kept:
                if target != dep and old == new:
                    notes.append(f"lemma {lm.id}: dependency {dep!r} read as {target}")
                kept.append(target)
        lm.dependencies = kept
    return notes


def graph(dag: Mapping[str, LemmaNode], ids: Iterable[str] | None = None) -> nx.DiGraph:
    chosen = set(dag) if ids is None else set(ids)
    g = nx.DiGraph()
    g.add_nodes_from(chosen)
    for lid in chosen:
        for dep in dag[lid].dependencies:
            if dep in chosen and dep != lid:  # self-loops are reported on their own
                g.add_edge(dep, lid)
    return g


def find_cycle(dag: Mapping[str, LemmaNode]) -> list[str] | None:
    """One dependency cycle as a closed path of ids ["A", "B", "A"], or None."""
    try:
        edges = nx.find_cycle(graph(dag))
    except nx.NetworkXNoCycle:
        return None
    path = [edges[0][0]] + [v for _, v in edges]
    return path


def structural_problems(lemmas: list[LemmaNode]) -> list[str]:
    """Everything that makes `lemmas` unusable as a proof DAG; [] when it is a valid DAG."""
    problems: list[str] = []
    counts = Counter(lm.id for lm in lemmas)
    for lid, n in counts.items():
        if n > 1:
            problems.append(f"lemma id {lid!r} is used {n} times; ids must be unique")
    for lm in lemmas:
        if not ID_RE.match(lm.id):
            problems.append(f"lemma id {lm.id!r} is not a valid label (letters, digits, _ . : - ; at most 64)")
        if not lm.statement.strip():
            problems.append(f"lemma {lm.id!r} has an empty statement")
    dag = {lm.id: lm for lm in lemmas}
    for lm in lemmas:
        for dep in lm.dependencies:
            if dep == lm.id:
                problems.append(f"lemma {lm.id!r} depends on itself")
            elif dep not in dag:
                problems.append(f"lemma {lm.id!r} depends on {dep!r}, which is not in the plan")
    cycle = find_cycle(dag)
    if cycle:
        problems.append("dependency cycle: " + " -> ".join(cycle) + " (the graph must be acyclic)")
    roots = [lm.id for lm in lemmas if lm.is_root]
    if len(roots) != 1:
        which = ", ".join(roots) if roots else "none"
        problems.append(f"exactly one lemma must be the main theorem (is_root=true); found {len(roots)}: {which}")
    else:
        users = [lm.id for lm in lemmas if roots[0] in lm.dependencies]
        if users:
            problems.append(
                f"the main theorem {roots[0]!r} must not be a dependency of other lemmas (used by {', '.join(users)})"
            )
    return problems


def unused_lemmas(lemmas: list[LemmaNode]) -> list[str]:
    """Lemmas no other lemma depends on (the candidates for the main theorem), in plan order."""
    used = {dep for lm in lemmas for dep in lm.dependencies}
    return [lm.id for lm in lemmas if lm.id not in used]


def root_of(dag: Mapping[str, LemmaNode]) -> str | None:
    roots = [lid for lid, lm in dag.items() if lm.is_root]
    return roots[0] if len(roots) == 1 else None


def ancestors(dag: Mapping[str, LemmaNode], lemma_id: str) -> set[str]:
    """Every lemma `lemma_id` relies on, directly or through others."""
    return set(nx.ancestors(graph(dag), lemma_id)) if lemma_id in dag else set()


def dependants(dag: Mapping[str, LemmaNode], lemma_id: str) -> set[str]:
    """Every lemma that relies on `lemma_id`, directly or through others."""
    return set(nx.descendants(graph(dag), lemma_id)) if lemma_id in dag else set()


def active_ids(dag: Mapping[str, LemmaNode]) -> set[str]:
    """The main theorem and everything it relies on: the lemmas that must be proven."""
    root = root_of(dag)
    if root is None:
        return set()
    return {root} | ancestors(dag, root)


def topological(dag: Mapping[str, LemmaNode], ids: Iterable[str] | None = None) -> list[str]:
    """Dependencies before their users; ties broken by id so the order is reproducible."""
    return list(nx.lexicographical_topological_sort(graph(dag, ids)))


def heights(dag: Mapping[str, LemmaNode], ids: Iterable[str] | None = None) -> dict[str, int]:
    """Length of the longest chain from each lemma up to the top of its DAG. The scheduler
    starts the lemmas with the longest remaining chain first (critical-path priority)."""
    g = graph(dag, ids)
    out: dict[str, int] = {}
    for lid in reversed(list(nx.topological_sort(g))):
        out[lid] = 1 + max((out[s] for s in g.successors(lid)), default=0)
    return out
