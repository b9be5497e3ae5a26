"""What every surface shows about a theorem and its lemmas, computed once from the records.

The terminal, `sessions`, --json, the paper, the browser, `review` and the bench all call
`theorem_view` / `lemma_view`; none of them decides a status word, a level label or a colour on
its own (DESIGN "Generate, don't filter"). The rules, fail closed:

- `proved` only when the theory stage said so AND every lemma the theorem relies on is proven at
  `formal`/`smt`, `cited`, or `reviewed` by an independent model, nothing capped the level, no
  experiment contradicted it, and no proof cites a lemma that relies on it (circular).
- a self-review (or a review whose reviewer was not recorded) as the weakest support is
  `self_reviewed` (amber), never `proved`.
- a root claim narrower than, or different from, the user's statement (`statement_scope`) is
  "narrower claim proved" / "different claim proved" (amber): the statement itself was not proved.
- contradicted, refuted, capped and abandoned are red; pending and in progress grey; only
  `proved` is green.

The theorem shown is the checked root claim, rendered by the caller's `render` (verify/render.py
sits above this module; `eurekaclaw.agents.views` plugs it in), with the model's prose beside it
as "in words". Pure: imports only `types`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from eurekaclaw.types.artifacts import (
    Claim,
    LemmaNode,
    ProofRecord,
    TheoryState,
    VerificationLevel,
    level_rank,
)

Colour = Literal["green", "amber", "red", "grey"]
# (latex, plain) of a claim; raises when the claim does not render
Renderer = Callable[[Claim], tuple[str, str]]

# status token -> (word shown, colour). The one colour map of every surface.
THEOREM_STATUSES: dict[str, tuple[str, Colour]] = {
    "proved": ("proved", "green"),
    "narrower_claim": ("narrower claim proved", "amber"),
    "different_claim": ("different claim proved", "amber"),
    "self_reviewed": ("self-reviewed", "amber"),
    "capped": ("capped, not proved", "red"),
    "contradicted": ("contradicted", "red"),
    "refuted": ("refuted", "red"),
    "abandoned": ("abandoned", "red"),
    "in_progress": ("in progress", "grey"),
    "pending": ("pending", "grey"),
}
LEMMA_STATUSES: dict[str, tuple[str, Colour]] = {
    "proved": ("proved", "green"),
    "self_reviewed": ("self-reviewed", "amber"),
    "unverified": ("unchecked", "amber"),
    "refuted": ("refuted", "red"),
    "failed": ("failed", "red"),
    "circular": ("failed (circular)", "red"),
    "in_progress": ("in progress", "grey"),
    "pending": ("pending", "grey"),
}
COLOURS: dict[str, Colour] = {
    **{k: c for k, (_, c) in LEMMA_STATUSES.items()},
    **{k: c for k, (_, c) in THEOREM_STATUSES.items()},
}
# the statuses of a theorem every lemma of which is established (at some level)
STANDING = ("proved", "narrower_claim", "different_claim", "self_reviewed")
HOW_TO_PROVE = (
    "to get `proved`, re-run with --review-llm <another model> for an independent review, "
    "or give the lemmas claims the checkers (SMT, Coq) can prove"
)
Support = Literal["machine", "cited", "independent", "self", "unknown", "unchecked"]
_REF = re.compile(r"\\(?:c|C|auto|eq|name)?ref\*?\{([^{}]*)\}")


def colour(status: str) -> Colour:
    """The colour of a status token; anything unknown is grey, never green."""
    return COLOURS.get(status, "grey")


@dataclass(frozen=True)
class LemmaView:
    id: str
    status: str  # a LEMMA_STATUSES key
    word: str
    colour: Colour
    level: VerificationLevel | None  # None when not proven
    level_label: str  # "smt (z3 4.13.0)", "reviewed (self-review: ...)", "" when not proven
    support: Support | None
    how: str  # one generated sentence
    statement: str  # LaTeX as recorded (rendered from the claim when statement_source is claim)
    statement_plain: str
    is_root: bool = False
    reviewer: str = ""

    @property
    def established(self) -> bool:
        return self.status == "proved"


@dataclass(frozen=True)
class TheoremView:
    status: str  # a THEOREM_STATUSES key
    word: str
    colour: Colour
    level: VerificationLevel | None  # weakest level of the proven lemmas (unverified when capped)
    level_label: str
    statement: str  # LaTeX: the rendered root claim when there is one, else the model's statement
    statement_plain: str
    from_claim: bool  # the statement shown is the checked claim
    in_words: str  # the model's prose statement, shown beside a rendered claim
    scope_sentence: str  # generated: how the claim relates to the user's statement
    statement_not_proved: bool  # the user's statement itself is not proved (whatever the claim)
    how: str  # one generated sentence: how it was checked
    reason: str  # the theory stage's own reason
    hint: str = ""  # how to get `proved`, when one line can say it
    self_reviewed: tuple[str, ...] = field(default_factory=tuple)

    @property
    def proved(self) -> bool:
        return self.status == "proved"

    def line(self) -> str:
        """One plain line: "theorem: self-reviewed (weakest: reviewed (self-review))"."""
        level = f" (weakest: {self.level_label})" if self.level_label else ""
        return f"theorem: {self.word}{level}"


# --- support of one record ---------------------------------------------------------------------


def support_of(record: ProofRecord) -> Support:
    level = record.verification_level
    if level in ("formal", "smt"):
        return "machine"
    if level == "cited":
        return "cited"
    if level == "unverified":
        return "unchecked"
    if record.self_review:
        return "self"
    return "independent" if record.reviewer else "unknown"


def _checker_text(record: ProofRecord, kinds: tuple[str, ...]) -> str:
    passed = [c for c in record.checks if c.verdict == "passed" and c.checker in kinds]
    return ", ".join(_checker_with_version(c.checker, c.version) for c in passed)


def _checker_with_version(checker: str, version: str | None) -> str:
    # a version string may already name its tool ("z3 5.4.1"): say the name once
    if not version:
        return checker
    return version if version.split()[0].lower() == checker.lower() else f"{checker} {version}"


def level_label(record: ProofRecord) -> str:
    """The level with who checked it: the checker (and its version) or the reviewer."""
    level = record.verification_level
    support = support_of(record)
    if level == "formal":
        who = _checker_text(record, ("coq", "lean", "coqchk"))
        return f"formal ({who})" if who else "formal"
    if level == "smt":
        who = _checker_text(record, ("z3", "cvc5"))
        return f"smt ({who})" if who else "smt"
    if support == "self":
        return "reviewed (self-review" + (f": {record.reviewer})" if record.reviewer else ")")
    if support == "unknown":
        return "reviewed (reviewer not recorded)"
    if support == "independent":
        return f"reviewed by {record.reviewer} (independent)"
    return str(level)


_HOW_BY_SUPPORT: dict[str, str] = {
    "cited": "taken from a reference whose citation was verified",
    "independent": "reviewed by another model ({who}) in a fresh context; numeric falsification found no "
    "counterexample; no machine proof",
    "self": "reviewed only by the model that wrote the proof (self-review); no independent check",
    "unknown": "reviewed by a model that was not recorded, so its independence cannot be shown",
    "unchecked": "recorded with a proof that nothing checked",
}


def _how_proven(record: ProofRecord) -> str:
    support = support_of(record)
    if support == "machine":
        kind = "a proof assistant kernel checked" if record.verification_level == "formal" else "an SMT solver proved"
        return f"{kind} its claim ({level_label(record)})"
    return _HOW_BY_SUPPORT[support].format(who=record.reviewer)


# --- the DAG -----------------------------------------------------------------------------------


def _root(theory: TheoryState) -> str | None:
    return theory.root_id()


def relied_on(theory: TheoryState) -> list[str]:
    """The root and every lemma it relies on (all lemmas when there is no single root), in
    DAG order."""
    dag = theory.lemma_dag
    root = _root(theory)
    if root is None:
        return list(dag)
    seen: set[str] = set()
    todo = [root]
    while todo:
        lid = todo.pop()
        if lid in seen or lid not in dag:
            continue
        seen.add(lid)
        todo.extend(dag[lid].dependencies)
    return [lid for lid in dag if lid in seen]


def _dependants(theory: TheoryState, lemma_id: str) -> set[str]:
    """Every lemma that relies on `lemma_id`, directly or not."""
    users: dict[str, set[str]] = {}
    for lid, node in theory.lemma_dag.items():
        for dep in node.dependencies:
            users.setdefault(dep, set()).add(lid)
    out: set[str] = set()
    todo = list(users.get(lemma_id, ()))
    while todo:
        lid = todo.pop()
        if lid not in out:
            out.add(lid)
            todo.extend(users.get(lid, ()))
    return out


def circular_citation(theory: TheoryState, lemma_id: str) -> str | None:
    """What the recorded proof of `lemma_id` cites that relies on it (the main theorem, a
    dependant), or None."""
    record = theory.proven_lemmas.get(lemma_id)
    node = theory.lemma_dag.get(lemma_id)
    if record is None or node is None:
        return None
    above = _dependants(theory, lemma_id)
    root = _root(theory)
    if root is not None and root != lemma_id:
        above.add(root)
    for target in _REF.findall(record.proof or ""):
        target = target.strip()
        if target in ("thm:main", f"thm:{root}") and lemma_id != root:
            return "the main theorem"
        ref = target[4:] if target.startswith("lem:") else None
        if ref is not None and ref in above:
            return f"Lemma {ref}, which relies on it" if ref != root else "the main theorem"
    return None


# --- lemmas ------------------------------------------------------------------------------------


def _plain_statement(node: LemmaNode, render: Renderer | None) -> str:
    if node.statement_source == "claim" and node.claim is not None and render is not None:
        try:
            return render(node.claim)[1]
        except Exception:  # noqa: BLE001 - a display never fails; the recorded text says the same
            pass
    return node.informal or node.statement


def _unproven_status(theory: TheoryState, node: LemmaNode) -> str:
    refuted = node.status == "refuted" or any(c.lemma_id == node.id and c.confirmed for c in theory.counterexamples)
    if refuted:
        return "refuted"
    if node.status in ("failed", "in_progress"):
        return node.status
    return "pending"


def _unproven_how(theory: TheoryState, node: LemmaNode, status: str) -> str:
    attempts = sum(1 for f in theory.failed_attempts if f.lemma_id == node.id)
    if status == "refuted":
        hits = [c for c in theory.counterexamples if c.lemma_id == node.id]
        # the values themselves ("x = 1/2"), never a Python dict
        found = hits[0].description or ", ".join(f"{k} = {v}" for k, v in hits[0].assignment.items()) if hits else ""
        where = f": {found}" if found else ""
        return f"refuted by a counterexample{where}"
    if status == "failed":
        return f"no proof passed its checks ({attempts} attempt(s))"
    if status == "in_progress":
        return "being proved"
    return "not proven yet"


def lemma_view(theory: TheoryState, node: LemmaNode | str, render: Renderer | None = None) -> LemmaView:
    """How one lemma is shown. `node` may be an id of a proof record missing from the DAG."""
    if isinstance(node, str):
        node = theory.lemma_dag.get(node) or LemmaNode(id=node, statement="", status="proved")
    record = theory.proven_lemmas.get(node.id)
    if record is None:
        status = _unproven_status(theory, node)
        support, level, label, how, reviewer = None, None, "", _unproven_how(theory, node, status), ""
    else:
        support = support_of(record)
        level, label, how, reviewer = (
            record.verification_level,
            level_label(record),
            _how_proven(record),
            record.reviewer,
        )
        status = {"machine": "proved", "cited": "proved", "independent": "proved", "unchecked": "unverified"}.get(
            support, "self_reviewed"
        )
        cycle = circular_citation(theory, node.id)
        if cycle:
            status, how = "circular", f"its proof cites {cycle}: a circular proof proves nothing"
    word, col = LEMMA_STATUSES[status]
    return LemmaView(
        id=node.id,
        status=status,
        word=word,
        colour=col,
        level=level,
        level_label=label,
        support=support,
        how=how,
        statement=node.statement,
        statement_plain=_plain_statement(node, render),
        is_root=node.is_root,
        reviewer=reviewer,
    )


def lemma_views(theory: TheoryState, render: Renderer | None = None) -> dict[str, LemmaView]:
    """Every lemma of the DAG, then proof records missing from it."""
    ids = list(dict.fromkeys([*theory.lemma_dag, *theory.proven_lemmas]))
    return {lid: lemma_view(theory, lid, render) for lid in ids}


# --- the theorem -------------------------------------------------------------------------------


def _weakest(views: list[LemmaView]) -> LemmaView | None:
    """The weakest proven lemma: lowest level, and at equal level the one without an
    independent check."""
    proven = [v for v in views if v.level is not None]
    order = {"machine": 3, "independent": 2, "cited": 2, "unknown": 1, "self": 1, "unchecked": 0}
    return min(proven, key=lambda v: (level_rank(v.level or "unverified"), order.get(v.support or "", 0)), default=None)


def _finished_status(theory: TheoryState, views: list[LemmaView]) -> str:
    """The status of a theorem the theory stage called proved or self-reviewed, re-derived from
    the records: never stronger than the stage said."""
    if theory.level_cap_reasons:
        return "capped"
    if any(v.status in ("pending", "failed", "refuted", "in_progress", "circular", "unverified") for v in views):
        return "abandoned"
    if theory.consistency_check is not None and theory.consistency_check.verdict != "passed":
        return "abandoned"
    if theory.status == "self_reviewed" or any(v.status == "self_reviewed" for v in views):
        return "self_reviewed"
    relation = theory.statement_scope.relation if theory.statement_scope else "unknown"
    return {"narrower": "narrower_claim", "differs": "different_claim"}.get(relation, "proved")


def theorem_status(theory: TheoryState, views: list[LemmaView] | None = None) -> str:
    """The status token of the theorem (a THEOREM_STATUSES key)."""
    if theory.status == "refuted":
        return "refuted"
    if theory.status == "contradicted" or theory.contradictions:
        return "contradicted"
    if theory.status in ("proved", "self_reviewed"):
        if views is None:
            views = [lemma_view(theory, lid) for lid in relied_on(theory)]
        return _finished_status(theory, views)
    if theory.status == "abandoned":
        return "capped" if theory.level_cap_reasons else "abandoned"
    return theory.status if theory.status in THEOREM_STATUSES else "pending"


def _theorem_how(theory: TheoryState, status: str, views: list[LemmaView], weakest: LemmaView | None) -> str:
    count = len(views)
    if status in ("proved", "narrower_claim", "different_claim"):
        tail = f"; the weakest is {weakest.id}: {weakest.how}" if weakest else ""
        return f"All {count} lemma(s) it relies on are proven{tail}; the assembled proof passed its consistency check."
    if status == "self_reviewed":
        selfs = [v.id for v in views if v.status == "self_reviewed"]
        who = f"lemma {selfs[0]} rests" if len(selfs) == 1 else f"lemmas {', '.join(selfs)} rest"
        return (
            f"All {count} lemma(s) are proven, but {who} only on a review by the model that wrote the proof "
            "(self-review): nothing independent checked it."
        )
    if status == "capped":
        return "Its level is capped at unverified: " + "; ".join(theory.level_cap_reasons[:3]) + "."
    if status == "contradicted":
        first = f": {theory.contradictions[0]}" if theory.contradictions else ""
        return f"An experiment violated {len(theory.contradictions) or 'a'} bound(s) it claims{first}."
    if status == "refuted":
        root = _root(theory)
        hits = [c for c in theory.counterexamples if c.lemma_id == root and c.confirmed]
        # the values themselves ("x = 1/2"), never a Python dict
        found = hits[0].description or ", ".join(f"{k} = {v}" for k, v in hits[0].assignment.items()) if hits else ""
        where = f": {found}" if found else ""
        return f"A counterexample to it was confirmed{where}."
    if status == "abandoned":
        open_ = [v.id for v in views if v.status != "proved" and v.status != "self_reviewed"]
        which = f" ({', '.join(open_[:6])})" if open_ else ""
        return f"Not every lemma it relies on was established{which}."
    return "The proof has not finished." if status == "in_progress" else "The proof has not started."


def _shown_statement(theory: TheoryState, render: Renderer | None) -> tuple[str, str, bool, str]:
    """(LaTeX, plain, from_claim, in words): the rendered root claim when there is one."""
    root = _root(theory)
    node = theory.lemma_dag.get(root) if root else None
    prose = theory.formal_statement.strip() or (node.prose if node else "") or ""
    if node is not None and node.claim is not None:
        latex = plain = ""
        if render is not None:
            try:
                latex, plain = render(node.claim)
            except Exception:  # noqa: BLE001 - fall back to the text rendered when it was recorded
                latex = plain = ""
        if not latex and node.statement_source == "claim":
            latex = plain = node.statement
        if not latex:
            plain = _raw_claim(node.claim)
            latex = plain
        words = prose or (node.statement if node.statement_source == "prose" else "")
        return latex, plain, True, words if words.strip() != latex.strip() else ""
    statement = prose or (node.statement if node else "") or theory.informal_statement
    return statement, statement, False, ""


def _raw_claim(claim: Claim) -> str:
    """The claim as written, when no renderer could print it."""
    parts = [f"{v.name} ({v.domain})" for v in claim.variables]
    head = f"For {', '.join(parts)}" if parts else ""
    cond = f" with {' and '.join(claim.assumptions)}" if claim.assumptions else ""
    body = f"{head}{cond}: {claim.conclusion}" if head or cond else claim.conclusion
    return body


def theorem_view(theory: TheoryState, render: Renderer | None = None) -> TheoremView:
    """How the theorem is shown on every surface."""
    views = [lemma_view(theory, lid, render) for lid in relied_on(theory)]
    status = theorem_status(theory, views)
    word, col = THEOREM_STATUSES[status]
    scope = theory.statement_scope
    scope_sentence = scope.sentence.strip() if scope is not None and scope.relation != "same" else ""
    narrowed = scope is not None and scope.relation in ("narrower", "differs")
    if narrowed and status == "self_reviewed":
        word = f"{word} ({'narrower' if scope and scope.relation == 'narrower' else 'different'} claim)"
    weakest = _weakest(views)
    level: VerificationLevel | None = theory.weakest_level() if theory.proven_lemmas else None
    # a level is said only for a theorem that stands; a failed one shows its status alone
    label = weakest.level_label if weakest is not None and status in STANDING else ""
    if status == "capped":
        label = "unverified (level capped)"
    latex, plain, from_claim, words = _shown_statement(theory, render)
    return TheoremView(
        status=status,
        word=word,
        colour=col,
        level=level,
        level_label=label,
        statement=latex,
        statement_plain=plain,
        from_claim=from_claim,
        in_words=words,
        scope_sentence=scope_sentence,
        statement_not_proved=status != "proved",
        how=_theorem_how(theory, status, views, weakest),
        reason=theory.status_reason,
        hint=HOW_TO_PROVE if status == "self_reviewed" else "",
        self_reviewed=tuple(v.id for v in views if v.status == "self_reviewed"),
    )
