"""Whether a proof has substance: at least one step beyond restating its claim.

A careless model answers "The claim holds by definition." or repeats the statement; such a
reply is a failed attempt (a gap), never a proof a reviewer may pass. The minimum length is
enforced on ProofAttempt itself (models.MIN_PROOF_CHARS); this module catches the restatement.
"""

from __future__ import annotations

import re
from collections import Counter

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Words that carry no argument in a one-line "proof".
FILLER = frozenset(
    """
a an the this that it is are be holds hold true proof qed trivially trivial clearly clear obviously
obvious immediately immediate follows follow from by definition definitions claim claims statement
lemma theorem hence thus therefore so we have has as desired required which shows show proved
proven of and for all every any given since then directly easy easily see note claimed stated
asserted needed wanted done indeed
""".split()
)
MIN_STEP_WORDS = 1


def _words(text: str) -> list[str]:
    # LaTeX commands count as their names (\le → "le"), so a restated formula cancels out.
    return [w.lower() for w in _WORD.findall(text or "")]


def restates_claim(proof: str, *claims: str) -> bool:
    """True when `proof`, once the words of its claims and filler words are taken away, has
    fewer than MIN_STEP_WORDS words left: no step beyond restating what was to be proved. A
    weak step ("by standard results") is still a step: judging it is the reviewer's job."""
    left = Counter(_words(proof))
    for claim in claims:
        left.subtract(Counter(_words(claim)))
    rest = [w for w, n in left.items() if n > 0 and w not in FILLER for _ in range(n)]
    return len(rest) < MIN_STEP_WORDS
