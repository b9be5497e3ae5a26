"""Lemma DAG checks and graph queries (networkx). An edge dep -> lemma means "lemma uses dep".

`structural_problems` names every defect in words the model can act on (the cycle spelled
out, the missing id quoted), because the Formalizer sends these lines back to the model once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

import networkx as nx

from eurekaclaw.types.artifacts import LemmaNode

# Ids become LaTeX labels (\label{lem:<id>}) and file-safe keys.
ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")


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
