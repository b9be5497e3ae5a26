"""`theory_view` with the claim renderer plugged in: what the CLI, the paper, the browser,
`review` and the bench call to show a theorem and its lemmas.

theory_view.py sits at the bottom (types only); the claim renderer (verify/render.py) is above
it, so it is passed in here, once, for every surface.
"""

from __future__ import annotations

from functools import lru_cache

from eurekaclaw import theory_view as tv
from eurekaclaw.types.artifacts import Claim, LemmaNode, TheoryState


@lru_cache(maxsize=512)
def _render_json(claim_json: str) -> tuple[str, str]:
    from eurekaclaw.verify.render import claim_latex, claim_plain

    claim = Claim.model_validate_json(claim_json)
    return claim_latex(claim), claim_plain(claim)


def render_claim(claim: Claim) -> tuple[str, str]:
    """(LaTeX, plain text) of a claim, exactly as the checkers read it; raises when it does not
    parse (the view then falls back to the recorded text)."""
    return _render_json(claim.model_dump_json())


def theorem_view(theory: TheoryState) -> tv.TheoremView:
    return tv.theorem_view(theory, render=render_claim)


def lemma_view(theory: TheoryState, node: LemmaNode | str) -> tv.LemmaView:
    return tv.lemma_view(theory, node, render=render_claim)


def lemma_views(theory: TheoryState) -> dict[str, tv.LemmaView]:
    return tv.lemma_views(theory, render=render_claim)
