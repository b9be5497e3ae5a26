"""Changes to a lemma DAG in flight: merging a re-plan after a refutation, inserting the
sub-lemmas of a split. Pure functions on copies, so a rejected change leaves nothing behind;
the caller swaps the new DAG in only when `problems` is empty. As for a first plan (dag.py),
what code can mend is mended with a note before anything counts as a problem: a proposal's
dependency on itself or on no lemma at all is dropped."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from eurekaclaw.agents.formalize.claims import attach_claim, normalised_statement
from eurekaclaw.agents.formalize.dag import active_ids, dependants, root_of, structural_problems
from eurekaclaw.agents.formalize.models import LemmaOut
from eurekaclaw.types.artifacts import LemmaNode


@dataclass
class Surgery:
    dag: dict[str, LemmaNode]
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # ids added or restated
    proposals: list[LemmaOut] = field(default_factory=list)  # what the model proposed


def _copy(dag: Mapping[str, LemmaNode]) -> dict[str, LemmaNode]:
    return {lid: node.model_copy(deep=True) for lid, node in dag.items()}


def _node_from(out: LemmaOut, notes: list[str], dag: Mapping[str, LemmaNode], **extra: object) -> LemmaNode:
    node = out.to_node(**extra)
    node.is_root = False
    root = root_of(dag)
    reference = dag[root].claim if root is not None else None
    reason = attach_claim(node, out.claim, exact=out.claim_is_statement, reference=reference)
    if reason:
        notes.append(f"claim of lemma {out.id} dropped: {reason}")
    if node.claim_flags:
        notes.append(f"claim of lemma {out.id} earns no mechanical level: " + "; ".join(node.claim_flags))
    return node


def _restates_refuted(node: LemmaNode, dag: Mapping[str, LemmaNode]) -> str | None:
    """The id of a refuted lemma this one merely restates (same statement or same claim)."""
    mine = {normalised_statement(t) for t in (node.statement, node.prose) if t.strip()}
    for lid, old in dag.items():
        if old.status != "refuted":
            continue
        theirs = {normalised_statement(t) for t in (old.statement, old.prose) if t.strip()}
        if mine & theirs or (node.claim is not None and node.claim == old.claim):
            return lid
    return None


def _mend_dependencies(proposals: list[LemmaOut], known: set[str], notes: list[str]) -> list[LemmaOut]:
    """Copies of `proposals` without dependencies on themselves or on ids in neither `known` nor
    the proposals (each dropped edge noted)."""
    ids = known | {p.id for p in proposals}
    out = []
    for p in proposals:
        keep = [d for d in dict.fromkeys(p.dependencies) if d != p.id and d in ids]
        for d in dict.fromkeys(p.dependencies):
            if d not in keep:
                why = "itself" if d == p.id else f"{d!r}, which is no lemma"
                notes.append(f"lemma {p.id}: dependency on {why} dropped")
        out.append(p.model_copy(update={"dependencies": keep}))
    return out


def _refuted(dag: Mapping[str, LemmaNode]) -> set[str]:
    return {lid for lid, node in dag.items() if node.status == "refuted"}


def _check(dag: dict[str, LemmaNode], problems: list[str]) -> None:
    problems.extend(structural_problems(list(dag.values())))
    if problems:
        return
    dead = _refuted(dag)
    for lid in sorted(active_ids(dag)):
        for dep in dag[lid].dependencies:
            if dep in dead:
                problems.append(f"lemma {lid!r} still depends on the refuted lemma {dep!r}")


def merge_replan(
    dag: Mapping[str, LemmaNode], proposals: list[LemmaOut], editable: set[str], refuted_id: str | None = None
) -> Surgery:
    """Apply a re-plan. Lemmas in `editable` (those reopened by the refutation) may be restated;
    the main theorem keeps its statement and may only change what it depends on; new ids are
    added (recorded as replacing `refuted_id`); refuted ids cannot come back, and neither can a
    refuted statement or claim under a new id; anything else is left alone with a note."""
    result = Surgery(dag=_copy(dag), proposals=list(proposals))
    new = result.dag
    proposals = _mend_dependencies(list(proposals), set(new), result.notes)
    root = root_of(new)
    dead = _refuted(new)
    for out in proposals:
        if out.id in dead:
            result.problems.append(f"{out.id!r} is a refuted lemma; give its replacement a new id")
        elif out.id == root:
            new[root].dependencies = list(dict.fromkeys(out.dependencies))
            result.changed.append(root)
        elif out.id in new:
            if out.id not in editable:
                result.notes.append(f"re-plan tried to restate {out.id}, which the refutation did not affect; ignored")
                continue
            old = new[out.id]
            new[out.id] = _node_from(out, result.notes, dag, parent=old.parent)
            result.changed.append(out.id)
        else:
            new[out.id] = _node_from(out, result.notes, dag, replaces=refuted_id)
            result.changed.append(out.id)
    for lid in result.changed:
        again = _restates_refuted(new[lid], new)
        if again is not None:
            result.problems.append(f"{lid!r} restates the refuted lemma {again!r}; a counterexample refutes it as well")
    _check(new, result.problems)
    return result


def insert_split(dag: Mapping[str, LemmaNode], parent_id: str, subs: list[LemmaOut]) -> Surgery:
    """Insert sub-lemmas of `parent_id`; the parent then depends on all of them. A sub-lemma
    may use existing lemmas, but none that relies on the parent (that would be a cycle)."""
    result = Surgery(dag=_copy(dag))
    new = result.dag
    subs = _mend_dependencies(list(subs), set(new), result.notes)
    if len(subs) < 2:
        result.problems.append("a split needs at least two sub-lemmas")
    above = dependants(new, parent_id) | {parent_id}
    for out in subs:
        if out.id in new:
            result.problems.append(f"sub-lemma id {out.id!r} is already taken; use a new id")
            continue
        bad = [d for d in out.dependencies if d in above]
        if bad:
            result.problems.append(f"sub-lemma {out.id!r} cannot use {', '.join(bad)}: it relies on {parent_id}")
        new[out.id] = _node_from(out, result.notes, dag, parent=parent_id)
        result.changed.append(out.id)
    parent = new[parent_id]
    parent.dependencies = list(dict.fromkeys(parent.dependencies + [s.id for s in subs]))
    _check(new, result.problems)
    return result
