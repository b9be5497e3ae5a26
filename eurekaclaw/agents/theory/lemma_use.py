"""Which lemmas a proof uses: citations, circular citations, and the pruning of unused lemmas.

A proof uses a lemma when it cites its label (\\ref{lem:<id>}) or names it ("Lemma L2").

Circular: a lemma's proof that cites itself, the main theorem, or any lemma that relies on it
(which is how a citation cycle starts) proves nothing; it is a failed attempt, never `proved`.
Citations are labels (\\ref{lem:<id>}, \\ref{thm:main}); in words, only saying the lemma
follows from "the main theorem" counts (naming a later lemma in passing is no citation).

Unused: a proven lemma that no proof of a lemma depending on it uses says nothing for or against
the theorem. It is pruned from the proof (its users no longer depend on it, its record stays
with the note "not used by the proof") and the theorem is judged on the lemmas it uses.
"""

from __future__ import annotations

import re

from eurekaclaw.agents.formalize.dag import active_ids, ancestors, dependants, root_of
from eurekaclaw.agents.writer.labels import ANY_REF_RE, THEOREM_LABEL, cited_lemma_ids
from eurekaclaw.types.artifacts import LemmaNode, TheoryState

UNUSED_NOTE = "not used by the proof"
# "by the main theorem", "based on the main result", "from Theorem~\ref{thm:main}".
_MAIN_THEOREM = re.compile(
    r"\b(?:by|from|using|via|apply(?:ing)?|invok(?:e|ing)|based\s+on|follows?\s+from|consequence\s+of)"
    r"\s+(?:the\s+)?main\s+(?:theorem|result)\b",
    re.IGNORECASE,
)
# Words after which "from the main theorem" names its setting, not its conclusion.
_SETTING = re.compile(r"\b(?:assumptions?|hypothes[ie]s|setting|notation|conditions?|standing)\s*$", re.IGNORECASE)


def mentions(proof: str, lemma_id: str) -> bool:
    """A proof uses a lemma when it cites its label, or names it ("Lemma L2", "lemma pull_event")."""
    if lemma_id in cited_lemma_ids(proof):
        return True
    return re.search(rf"(?<![\w.:-]){re.escape(lemma_id)}(?![\w:-]|\.\w)", proof) is not None


def _cites_main_theorem(proof: str, root: str | None) -> bool:
    labels = {THEOREM_LABEL} | ({f"thm:{root}"} if root else set())
    if any(target.strip() in labels for _, target in ANY_REF_RE.findall(proof or "")):
        return True
    for hit in _MAIN_THEOREM.finditer(proof or ""):
        before = (proof or "")[max(0, hit.start() - 40) : hit.start()]
        if not _SETTING.search(before):  # "the assumptions from the main theorem" cite nothing
            return True
    return False


def circular_citations(dag: dict[str, LemmaNode], lemma_id: str, proof: str) -> list[str]:
    """What the proof of `lemma_id` cites that relies on it (itself included); [] when none."""
    root = root_of(dag)
    above = dependants(dag, lemma_id) | {lemma_id}
    if root is not None and root != lemma_id:
        above.add(root)
    cited = set(cited_lemma_ids(proof))
    found = sorted(above & cited)
    if lemma_id != root and root not in found and _cites_main_theorem(proof, root):
        found.append(root or "the main theorem")
    return found


def circular_text(lemma_id: str, cited: list[str]) -> str:
    return (
        f"circular: the proof of {lemma_id} cites {', '.join(cited)}, which relies on {lemma_id} "
        "(or is the main theorem it serves). Prove it from its own dependencies only."
    )


def unused_lemmas(state: TheoryState) -> list[str]:
    """Proven active lemmas (not the theorem) that no proof of a lemma depending on them uses."""
    dag = state.lemma_dag
    active = active_ids(dag)
    out = []
    for lid in sorted(active):
        users = [d for d in active if lid in dag[d].dependencies]
        if dag[lid].is_root or not users:
            continue
        if all(d in state.proven_lemmas for d in users) and not any(
            mentions(state.proven_lemmas[d].proof, lid) for d in users
        ):
            out.append(lid)
    return out


def _drop_edge(state: TheoryState, node: LemmaNode, lid: str, below: set[str]) -> None:
    """`node` no longer depends on `lid`; what its proof cites below `lid` (which it was allowed
    to cite through `lid`) becomes a direct dependency, so a proof that was valid stays valid."""
    rec = state.proven_lemmas.get(node.id)
    cited = [a for a in sorted(below) if rec is not None and mentions(rec.proof, a)]
    deps = [d for d in node.dependencies if d != lid]
    node.dependencies = deps + [a for a in cited if a not in deps]


def prune_unused(state: TheoryState) -> list[str]:
    """Drop every unused lemma from the proof (and what only it relied on); the ids dropped.
    Only once every lemma of the proof is proven: before that, a proof can still change."""
    dag = state.lemma_dag
    if any(lid not in state.proven_lemmas for lid in active_ids(dag)):
        return []
    dropped: list[str] = []
    while True:
        unused = unused_lemmas(state)
        if not unused:
            return dropped
        before = active_ids(dag)
        for lid in unused:
            below = ancestors(dag, lid)
            for node in dag.values():
                if lid in node.dependencies:
                    _drop_edge(state, node, lid, below)
        for lid in sorted(before - active_ids(dag)):
            rec = state.proven_lemmas.get(lid)
            if rec is not None and UNUSED_NOTE not in rec.level_note:
                rec.level_note = "; ".join(filter(None, [rec.level_note, UNUSED_NOTE]))
            dropped.append(lid)
