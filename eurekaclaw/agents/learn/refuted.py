"""What Learn must never store as knowledge: the claims this session or an earlier one refuted.

`known_refutations(state, memory, domain)` gathers them: the session's confirmed counterexamples
(with the claim each refuted), those earlier sessions recorded (persistent memory,
`theory.refuted_claims.<topic>`, written by `remember_refutations`), and the statements the
knowledge graph holds as retracted. `states_refuted(text, known)` says whether a text an
insight or a distilled skill would store states one of them:

- a refuted claim's conclusion or a refuted statement appears in it (spacing, case, `$` and
  Unicode relation signs aside);
- a relation written in the text in the claim language (`x^2 >= x`, `Sum(1/k^2, (k, 2, n)) <= 0.6`)
  is a refuted claim with its variables renamed, or fails exactly at a stored counterexample
  under some renaming (verify/claim_match.py).

Fail closed: a text that mentions a refuted claim is not stored even when it calls it false —
the refutation itself is kept, deterministically, as a counterexample (tier 2) and as a
retracted node (tier 3), so no lesson is lost.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from eurekaclaw.memory.insights import domain_slug
from eurekaclaw.types.artifacts import Claim, ClaimVariable, Counterexample, TheoryState

if TYPE_CHECKING:
    from eurekaclaw.memory.manager import MemoryManager

log = logging.getLogger(__name__)

REFUTED_PREFIX = "theory.refuted_claims."
MAX_STORED = 60
MIN_MATCH_CHARS = 6  # shorter texts ("x > 0") appear everywhere by chance
MAX_RELATIONS = 20  # relations looked at per text
_SIGNS = {
    "≤": "<=",
    "≥": ">=",
    "≠": "!=",
    "⩽": "<=",
    "⩾": ">=",
    "\\leq": "<=",
    "\\geq": ">=",
    "\\le": "<=",
    "\\ge": ">=",
}
# a run of claim-language characters around one relation sign
_RELATION = re.compile(r"[A-Za-z0-9_+\-*/^().,\s]{1,200}?(?:<=|>=|==|!=|<|>|=)[A-Za-z0-9_+\-*/^().,\s]{1,200}")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass
class KnownRefutations:
    counterexamples: list[Counterexample] = field(default_factory=list)  # confirmed, with their claims
    statements: list[str] = field(default_factory=list)  # normalised refuted statements

    @property
    def claims(self) -> list[Claim]:
        return [c.claim for c in self.counterexamples if c.claim is not None]

    def __bool__(self) -> bool:
        return bool(self.counterexamples or self.statements)


def _plain(text: str) -> str:
    for sign, ascii_op in _SIGNS.items():
        text = text.replace(sign, ascii_op)
    return text.replace("$", " ").replace("**", "^")


def squashed(text: str) -> str:
    return "".join(_plain(text).lower().split())


def _stored_point(cx: Counterexample) -> dict[str, Any]:
    return {
        "lemma_id": cx.lemma_id,
        "assignment": {k: v for k, v in cx.assignment.items() if isinstance(v, int | float | str)},
        "claim": cx.claim.model_dump() if cx.claim is not None else None,
        "statement": cx.statement[:400],
        "checker": cx.checker,
    }


def remember_refutations(state: TheoryState, memory: MemoryManager, domain: str, session_id: str) -> int:
    """Keep the session's refuted claims (with their counterexamples) for later sessions."""
    points = [
        _stored_point(c)
        for c in state.counterexamples
        if c.confirmed and c.claim is not None and c.checker != "experiment"
    ]
    if not points:
        return 0

    def merge(old: Any) -> list[Any]:
        current = list(old) if isinstance(old, list) else []
        keys = {json.dumps(p, sort_keys=True, default=str) for p in current}
        for p in points:
            key = json.dumps(p, sort_keys=True, default=str)
            if key not in keys:
                keys.add(key)
                current.append(p)
        return current[-MAX_STORED:]

    memory.persistent.update(
        REFUTED_PREFIX + domain_slug(domain), merge, tags=["counterexample", "refuted_claim"], source_session=session_id
    )
    return len(points)


def _earlier(memory: MemoryManager, domain: str) -> list[Counterexample]:
    raw = memory.recall(REFUTED_PREFIX + domain_slug(domain))
    out = []
    for item in raw if isinstance(raw, list) else []:
        try:
            out.append(Counterexample.model_validate({**item, "confirmed": True}))
        except Exception:  # a damaged entry is skipped; the others still guard
            continue
    return out


def known_refutations(state: TheoryState, memory: MemoryManager | None, domain: str) -> KnownRefutations:
    from eurekaclaw.agents.learn.retractions import false_statements

    known = KnownRefutations([c for c in state.counterexamples if c.confirmed and c.checker != "experiment"])
    texts = [f.statement for f in false_statements(state, "")]
    texts += [c.statement for c in state.counterexamples if c.confirmed and c.statement]
    if memory is not None:
        try:
            known.counterexamples += _earlier(memory, domain)
            texts += [n.statement for n in memory.graph.nodes() if n.retracted and n.kind == "result"]
        except Exception as exc:  # memory unreadable: the session's own refutations still guard
            log.warning("earlier refutations could not be read: %s", exc)
    for claim in known.claims:
        texts.append(claim.conclusion)
    known.statements = [s for s in dict.fromkeys(squashed(t) for t in texts) if len(s) >= MIN_MATCH_CHARS]
    return known


def _relations(text: str) -> list[str]:
    out = []
    for line in re.split(r"[;\n:]|(?<=[a-z])\.\s", _plain(text)):
        for m in _RELATION.finditer(line):
            rel = m.group().strip(" ,.")
            if rel and rel not in out:
                out.append(rel)
        if len(out) >= MAX_RELATIONS:
            break
    return out[:MAX_RELATIONS]


def _declared(relation: str, kind: str) -> Claim | None:
    from eurekaclaw.verify.claim_builder import RESERVED
    from eurekaclaw.verify.exact import parsed_for

    # a sum index is bound by its sum, not a variable
    bound = set(re.findall(r"\(\s*([A-Za-z][A-Za-z0-9_]*)\s*,", relation))
    names = [n for n in dict.fromkeys(_NAME.findall(relation)) if n not in RESERVED and n not in bound]
    if not names or len(names) > 6:
        return None
    claim = Claim(variables=[ClaimVariable(name=n, domain=kind) for n in names], conclusion=relation)  # type: ignore[arg-type]
    try:
        parsed_for(claim)
    except Exception:
        return None
    return claim


def _as_claim(relation: str) -> Claim | None:
    """The longest reading of `relation` that parses in the claim language: words around it
    ("for every m") are cut away one at a time; reals first, then integers (sum bounds)."""
    m = re.search(r"<=|>=|==|!=|<|>|=", relation)
    if m is None:
        return None
    left, op, right = relation[: m.start()].split(), m.group(), relation[m.end() :].split()
    for i in range(min(len(left), 6)):
        for j in range(len(right), max(len(right) - 6, 0), -1):
            text = f"{' '.join(left[i:])} {op} {' '.join(right[:j])}"
            for kind in ("real", "integer"):
                claim = _declared(text, kind)
                if claim is not None:
                    return claim
    return None


def states_refuted(text: str, known: KnownRefutations) -> str | None:
    """Why `text` states something refuted (None: nothing found)."""
    if not known or not text.strip():
        return None
    flat = squashed(text)
    for statement in known.statements:
        if statement in flat:
            return f"it states a refuted claim ({statement[:120]})"
    from eurekaclaw.verify.claim_match import refuted_by, same_up_to_renaming

    for relation in _relations(text):
        claim = _as_claim(relation)
        if claim is None:
            continue
        try:
            match = refuted_by(claim, known.counterexamples)
            if match is not None:
                return f"it states {relation.strip()!r}, which {match.detail}"
            for old in known.claims:
                if not old.assumptions and same_up_to_renaming(
                    claim, old.model_copy(update={"variables": [ClaimVariable(name=v.name) for v in old.variables]})
                ):
                    return f"it states {relation.strip()!r}, a refuted claim with its variables renamed"
        except Exception as exc:  # a matcher failure must not store the text: fail closed
            log.warning("checking %r against refuted claims failed: %s", relation, exc)
            return f"it states {relation.strip()!r}, which could not be checked against the refuted claims"
    return None
