"""The one label scheme for lemma ids, shared by the prover prompts, the assembly and the writer.

A lemma with id `<id>` is cited as `\\ref{lem:<id>}` (exactly the id, `_`, `.`, `:` and digits
included) and defined by `\\label{lemma_label(<id>)}`. For every id the formalizer accepts
(`[A-Za-z0-9][A-Za-z0-9_.:-]*`) the two are the same string, so a proof's citation works as
written. Any other id (unicode, spaces, braces) gets an ASCII label with a short hash, and the
writer rewrites `\\ref{lem:<id>}` to it. The main theorem is `thm:main` everywhere; a citation
of the root lemma's id resolves to it.

`resolve_ref` also forgives the usual slips of a model: a missing `lem:` prefix, `lemma:`
instead of `lem:`, `-` for `_` and different case.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable

LEMMA_PREFIX = "lem:"
THEOREM_LABEL = "thm:main"
SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
# A citation of lemma <id> in a proof: \ref{lem:<id>} (also \cref, \autoref, \eqref).
REF_RE = re.compile(r"\\(?:c|C|auto|eq)?ref\{lem:([^}]+)\}")
# Any reference command and its target, for the writer's rewrite.
ANY_REF_RE = re.compile(r"\\(ref|eqref|autoref|cref|Cref|pageref|nameref)\*?\{([^{}]*)\}")
_PREFIXES = ("lem:", "lemma:", "lem-", "lemma-", "l:", "thm:", "theorem:")


def lemma_label(lemma_id: str) -> str:
    """The LaTeX label of a lemma: `lem:<id>` for a safe id, else an ASCII slug plus a hash."""
    if SAFE_ID.match(lemma_id):
        return LEMMA_PREFIX + lemma_id
    folded = unicodedata.normalize("NFKD", lemma_id).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9_.:-]+", "-", folded).strip("-")[:40] or "x"
    digest = hashlib.sha1(lemma_id.encode("utf-8")).hexdigest()[:6]
    return f"{LEMMA_PREFIX}{slug}-{digest}"


def cited_lemma_ids(text: str) -> list[str]:
    """The lemma ids a proof cites with \\ref{lem:<id>}, in order, without duplicates."""
    return list(dict.fromkeys(m.strip() for m in REF_RE.findall(text or "")))


def _loose(target: str) -> str:
    t = target.strip().casefold()
    for prefix in _PREFIXES:
        if t.startswith(prefix):
            t = t[len(prefix) :]
            break
    return re.sub(r"[\s_.:\-]+", "", t)


class LabelMap:
    """Every label the paper defines, and how a reference target written by a model maps to it."""

    def __init__(self, lemma_ids: Iterable[str], root_id: str | None, extra: Iterable[str] = ()) -> None:
        self.labels: dict[str, str] = {}  # label -> lemma id ("" for non-lemma labels)
        self._exact: dict[str, str] = {}
        loose: dict[str, set[str]] = {}
        for lid in lemma_ids:
            label = lemma_label(lid)
            self.labels[label] = lid
            for alias in (label, LEMMA_PREFIX + lid, lid, "lemma:" + lid):
                self._exact.setdefault(alias, label)
            loose.setdefault(_loose(lid), set()).add(label)
        self.labels[THEOREM_LABEL] = root_id or ""
        self._exact[THEOREM_LABEL] = THEOREM_LABEL
        if root_id:
            for alias in (LEMMA_PREFIX + root_id, root_id, "lemma:" + root_id, "thm:" + root_id):
                self._exact[alias] = THEOREM_LABEL
            loose[_loose(root_id)] = {THEOREM_LABEL}
        for label in extra:
            self.labels.setdefault(label, "")
            self._exact.setdefault(label, label)
        self._loose = {k: next(iter(v)) for k, v in loose.items() if len(v) == 1 and k}

    def resolve(self, target: str) -> str | None:
        target = target.strip()
        if target in self._exact:
            return self._exact[target]
        return self._loose.get(_loose(target))

    def is_theorem(self, label: str) -> bool:
        return label == THEOREM_LABEL
