"""Small text helpers shared by the memory tiers and the skill system: words, keywords, slugs."""

from __future__ import annotations

import hashlib
import re
import unicodedata

# Words that carry no topic. Dropping them is the "inverse document frequency" a fixed, offline
# embedder can afford: a fitted IDF would make a vector depend on what else was embedded.
STOPWORDS = frozenset(
    """a an and are as at be by for from has have if in into is it its of on or that the their
    then there these this to was we were which with will where when while so such than can
    may must any all each every some our us let show shows proof prove proves thus hence
    not no use used using one two given holds hold""".split()
)
_WORD_RE = re.compile(r"[a-z0-9]+")
_SLUG_RE = re.compile(r"[^a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric words without stopwords; a plural 's' is folded away."""
    out = []
    for word in _WORD_RE.findall((text or "").lower()):
        if word in STOPWORDS:
            continue
        if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    return out


def keywords(text: str, min_len: int = 3) -> set[str]:
    return {w for w in tokenize(text) if len(w) >= min_len and not w.isdigit()}


def keyword_overlap(a: set[str], b: set[str]) -> float:
    """Jaccard overlap of two keyword sets (0 when either is empty)."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def slugify(text: str, max_len: int = 48, fallback: str = "item") -> str:
    """A lowercase [a-z0-9-] slug that is safe as a single path component."""
    ascii_text = unicodedata.normalize("NFKD", text or "").encode("ascii", "ignore").decode("ascii")
    slug = _SLUG_RE.sub("-", ascii_text.lower()).strip("-")
    slug = slug[:max_len].rstrip("-")
    return slug or fallback


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def normalize_whitespace(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def quarantined(text: str) -> str:
    """A memory text through the one door for model text (eurekaclaw/model_text): no sentence on
    how something was checked or on a proof status (an insight's standing is its recorded level,
    said by the <memories> block, never by its body), except a lesson that a check failed ("a
    self-review missed the violated bound"); "" when nothing is left."""
    from eurekaclaw.model_text import quarantine

    return quarantine(text or "", mode="memory", lessons=True).text
