"""The Experiment stage's evidence against the theorem (DESIGN §3: an experiment that violates
a claimed bound blocks `proved`).

A bound of the theorem violated beyond the experiment's statistical tolerance makes the theory
`contradicted`, names the violated checks, and records the worst violation as a counterexample
to the main statement. Once per session, a theorem that had been proved is formalized again with
that counterexample in view (the first formalization may have mis-stated the conjecture); the
new formalization is then proved and tested like the first, and a second contradiction is final.

ExperimentStage.transition applies it in a session (a re-plan is its `Replan("formalize")`);
`review --revise` applies it without re-plans (orchestrator/rerun.py).
"""

from __future__ import annotations

from typing import Literal

from eurekaclaw.agents.experiment.violations import worst_violation
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.types.artifacts import Counterexample

MAX_CONTRADICTION_REPLANS = 1

Evidence = Literal["none", "contradicted", "replan"]


def apply_experiment_evidence(bus: KnowledgeBus, *, replans_allowed: bool) -> Evidence:
    theory = bus.get_theory_state()
    result = bus.get_experiment_result()
    if theory is None or result is None or not result.violations or theory.status == "refuted":
        return "none"
    was = theory.status
    root = theory.root_id()
    node = theory.lemma_dag.get(root) if root else None
    worst = worst_violation(result) or {}
    theory.counterexamples.append(
        Counterexample(
            lemma_id=root or "main",
            assignment=dict(worst.get("assignment") or {}),
            description=str(worst.get("description") or result.violations[0]),
            checker="experiment",
            confirmed=True,
            statement=node.statement if node else theory.formal_statement,
            claim=node.claim if node else None,
        )
    )
    theory.contradictions = list(result.violations)
    theory.status = "contradicted"
    count = len(result.violations)
    theory.status_reason = (
        f"the experiment violated {count} of the theorem's bound(s) beyond statistical tolerance"
        f" (the theory stage had ended {was}): {result.violations[0]}"
    )
    replan = (
        replans_allowed
        and was in ("proved", "self_reviewed")
        and theory.contradiction_replans < MAX_CONTRADICTION_REPLANS
    )
    if replan:
        theory.contradiction_replans += 1
        theory.notes.append(
            "the first formalization was contradicted by the experiment; formalizing again with "
            "the violation as a counterexample"
        )
    bus.put_theory_state(theory)
    return "replan" if replan else "contradicted"
