"""Typed bus keys: each key's declared type is the model it is validated and loaded with, and a
key is still its old string on disk, so sessions written with string keys load unchanged."""

from __future__ import annotations

import json
import pickle
import typing
from pathlib import Path

import pytest

from eurekaclaw.knowledge_bus import keys
from eurekaclaw.knowledge_bus.bus import EXTRA_FILE, TYPED_ARTIFACTS, KnowledgeBus
from eurekaclaw.knowledge_bus.keys import (
    EVAL_REPORT,
    EXTRA_KEYS,
    PAPER,
    TYPED_KEYS,
    WRITER_PROSE,
    ArtifactKey,
)
from eurekaclaw.types.artifacts import EvalReport, PaperOutput, TheoryState


def test_each_typed_key_is_declared_as_the_model_it_holds() -> None:
    hints = typing.get_type_hints(keys)
    declared = {name: value for name, value in vars(keys).items() if isinstance(value, ArtifactKey)}
    assert set(declared.values()) == set(TYPED_KEYS) | set(EXTRA_KEYS)
    for name, key in declared.items():
        (held,) = typing.get_args(hints[name])
        if key in TYPED_KEYS:
            assert key.model is held, name
        else:
            assert key.model is None, name
    assert len({str(k) for k in declared.values()}) == len(declared)  # no two keys share a name
    assert dict(TYPED_ARTIFACTS) == {k: k.model for k in TYPED_KEYS}


def test_a_key_is_its_old_string(tmp_path: Path) -> None:
    assert PAPER == "paper" and hash(PAPER) == hash("paper") and f"{PAPER}.json" == "paper.json"
    assert pickle.loads(pickle.dumps(PAPER)).model is PaperOutput


def test_a_session_written_with_string_keys_loads_through_typed_keys(tmp_path: Path) -> None:
    # what a session directory held before keys were typed: one file per artifact, extras in one
    (tmp_path / "paper.json").write_text(json.dumps({"schema_version": 1, "tex_file": "paper.tex"}))
    (tmp_path / EXTRA_FILE).write_text(json.dumps({"writer_prose": {"fingerprint": "f", "prose": {"intro": "i"}}}))
    bus = KnowledgeBus.load("s1", tmp_path)
    paper = bus.get(PAPER)
    assert isinstance(paper, PaperOutput) and paper.tex_file == "paper.tex"
    assert bus.get(WRITER_PROSE) == {"fingerprint": "f", "prose": {"intro": "i"}}
    assert bus.get(EVAL_REPORT) is None and bus.get(EVAL_REPORT, EvalReport(session_id="s1")).session_id == "s1"


def test_puts_through_typed_keys_write_the_same_files(tmp_path: Path) -> None:
    bus = KnowledgeBus("s1", tmp_path)
    bus.put(PAPER, PaperOutput(tex_file="p.tex"))
    bus.put(WRITER_PROSE, {"fingerprint": "f", "prose": {}})
    assert json.loads((tmp_path / "paper.json").read_text())["tex_file"] == "p.tex"
    assert json.loads((tmp_path / EXTRA_FILE).read_text()) == {"writer_prose": {"fingerprint": "f", "prose": {}}}
    with pytest.raises(TypeError, match="holds PaperOutput"):
        bus.put(PAPER, TheoryState())  # type: ignore[misc]
