"""The domain's shipped references in the paper (issue: offline there was no references section).

When the survey found no citable reference (offline, or nothing verified), the writer offers
the domain plugin's checked bibliography to the prose and to the `known` lemmas; otherwise only
the shipped entries a lemma's citation names. After the prose is written, the entries nothing
cites are withdrawn, and the ones cited are recorded in the session's bibliography (marked as
coming from the plugin) so the evaluation and later runs see what the paper cites.
"""

from __future__ import annotations

import re
from typing import Any

from eurekaclaw.agents.writer.bibtex import CitePlan, loosely_named
from eurekaclaw.knowledge_bus.bus import KnowledgeBus, paper_identity
from eurekaclaw.types.artifacts import Bibliography, Paper, TheoryState

_CITE = re.compile(r"\\cite[a-z]*\*?(?:\[[^\]]*\])*\{([^}]*)\}")


def plugin_references(plugin: Any) -> list[Paper]:
    getter = getattr(plugin, "get_references", None)
    if plugin is None or getter is None:
        return []
    refs = getter()
    return [p for p in refs if isinstance(p, Paper) and p.verification == "verified"]


def offer_shipped(plan: CitePlan, plugin: Any, theory: TheoryState) -> list[str]:
    """Add the shipped references the paper may cite to `plan`; returns their keys."""
    shipped = plugin_references(plugin)
    if not shipped:
        return []
    if plan.citable_keys() - plan.shipped_keys:
        named = {
            paper_identity(p)
            for node in theory.lemma_dag.values()
            if node.citation
            for p in loosely_named(node.citation, shipped)
        }
        shipped = [p for p in shipped if paper_identity(p) in named]
    return plan.add_shipped(shipped)


def keep_cited_shipped(plan: CitePlan, prose: dict[str, str], theory: TheoryState) -> list[Paper]:
    """Withdraw the shipped references neither the prose nor a lemma cites; the ones kept."""
    if not plan.shipped_keys:
        return []
    cited = {k.strip() for text in prose.values() for group in _CITE.findall(text or "") for k in group.split(",")}
    cited |= {key for node in theory.lemma_dag.values() if (key := plan.resolve(node.citation))}
    plan.drop_shipped(cited)
    return [p for p in plan.cited if plan.keys[p.paper_id] in plan.shipped_keys]


def record_shipped(bus: KnowledgeBus, used: list[Paper]) -> None:
    """Put the cited shipped references into the session's bibliography (once)."""
    if not used:
        return
    bib = bus.get_bibliography() or Bibliography(checks_ran=False)
    have = {paper_identity(p) for p in bib.papers}
    new = [p for p in used if paper_identity(p) not in have]
    if new:
        bus.put_bibliography(bib.model_copy(update={"papers": [*bib.papers, *new]}))
