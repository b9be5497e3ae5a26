"""The lemma DAG as boxes and arrows: a layered layout computed here and drawn as SVG by the
template, so the page needs no graph library. The theorem sits on top, each lemma one layer
below the deepest lemma that uses it."""

from __future__ import annotations

from typing import Any

from eurekaclaw.theory_view import LemmaView

BOX_W, BOX_H, GAP_X, GAP_Y, PAD = 170, 54, 24, 46, 12


def _layers(dag: dict[str, dict[str, Any]]) -> dict[str, int]:
    users: dict[str, list[str]] = {lemma_id: [] for lemma_id in dag}
    for lemma_id, node in dag.items():
        for dep in node.get("dependencies") or []:
            if dep in users and dep != lemma_id:
                users[dep].append(lemma_id)
    depth: dict[str, int] = {}

    def visit(lemma_id: str, stack: frozenset[str]) -> int:
        if lemma_id in depth:
            return depth[lemma_id]
        if lemma_id in stack:  # a cycle in a damaged plan: cut it rather than loop
            return 0
        parents = [visit(u, stack | {lemma_id}) + 1 for u in users[lemma_id]]
        depth[lemma_id] = max(parents, default=0)
        return depth[lemma_id]

    for lemma_id in dag:
        visit(lemma_id, frozenset())
    return depth


def layout(
    theory: dict[str, Any], shown: dict[str, LemmaView] | None = None, theorem: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """Boxes and arrows; each box's status word and colour come from theory_view (`shown`), so
    a self-reviewed lemma is amber and only a proved one is green. The theorem's box shows the
    theorem's status (`theorem`): a contradicted theorem is red whatever its own proof's level."""
    dag = theory.get("lemma_dag") or {}
    if not isinstance(dag, dict) or not dag:
        return None
    shown = shown or {}
    depth = _layers(dag)
    rows: dict[int, list[str]] = {}
    for lemma_id in dag:
        rows.setdefault(depth[lemma_id], []).append(lemma_id)
    widest = max(len(r) for r in rows.values())
    width = PAD * 2 + widest * BOX_W + (widest - 1) * GAP_X
    nodes: dict[str, dict[str, Any]] = {}
    for layer, ids in sorted(rows.items()):
        row_w = len(ids) * BOX_W + (len(ids) - 1) * GAP_X
        x0 = (width - row_w) / 2
        for i, lemma_id in enumerate(sorted(ids)):
            node = dag[lemma_id]
            view = shown.get(lemma_id)
            nodes[lemma_id] = {
                "id": lemma_id,
                "x": x0 + i * (BOX_W + GAP_X),
                "y": PAD + layer * (BOX_H + GAP_Y),
                # without a view (a damaged state) nothing is claimed: grey, the recorded word
                "status": view.status if view else "unknown",
                "word": view.word if view else str(node.get("status", "pending")),
                "colour": view.colour if view else "grey",
                "level": view.level if view else None,
                "root": bool(node.get("is_root")),
            }
            if node.get("is_root") and theorem is not None:
                nodes[lemma_id].update(status=theorem["status"], word=theorem["word"], colour=theorem["colour"])
    edges = []
    for lemma_id, node in dag.items():
        for dep in node.get("dependencies") or []:
            if dep in nodes and dep != lemma_id:
                a, b = nodes[lemma_id], nodes[dep]
                edges.append({"x1": a["x"] + BOX_W / 2, "y1": a["y"] + BOX_H, "x2": b["x"] + BOX_W / 2, "y2": b["y"]})
    height = PAD * 2 + (max(rows) + 1) * BOX_H + max(rows) * GAP_Y
    return {
        "width": width,
        "height": height,
        "box_w": BOX_W,
        "box_h": BOX_H,
        "nodes": list(nodes.values()),
        "edges": edges,
    }
