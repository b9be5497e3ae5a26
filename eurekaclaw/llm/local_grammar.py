"""JSON grammars for the `local` backend: a pydantic JSON schema becomes a llama.cpp grammar
(through llama-cpp-python's converter), adjusted so llama.cpp accepts it and a small model's
reply always closes. Only the llama_cpp module passed in is used, so this imports nothing heavy.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

log = logging.getLogger(__name__)

# Small models (under SMALL_MODEL_PARAMS) wander: they enumerate list items and run strings on
# until max_tokens. Their lists and strings are capped in the grammar, so a reply always closes.
# Larger models only get a list cap high enough never to matter, which keeps grammars small.
SMALL_MODEL_PARAMS = 1_000_000_000
SMALL_MAX_ARRAY_ITEMS = 8
SMALL_MAX_STRING_CHARS = 300
MAX_ARRAY_ITEMS = 32
_LLAMA_LOGGER = "llama-cpp-python"


# Keywords the grammar cannot or need not express (validation still checks them).
_DROPPED_KEYWORDS = frozenset({"maxLength", "minLength", "title", "description", "default", "examples"})
# The one kind of string pattern kept in a grammar (lemma ids: "^[A-Za-z][A-Za-z0-9_]*$"):
# character classes, each once or starred. Bounded repetition is unrolled by the converter
# into grammars llama.cpp may reject, and anything richer is left to validation.
_SIMPLE_PATTERN = re.compile(r"^\^(?:\[[A-Za-z0-9_.:\-]+\]\*?)+\$$")
# Keywords whose value maps names (not keywords) to subschemas.
_SCHEMA_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties"})
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_LITERALS = frozenset({"const", "enum", "required"})
# What pydantic emits for `Any`: an unconstrained schema, which the converter rejects.
ANY_VALUE = {"type": ["string", "number", "boolean", "object", "array", "null"]}


def simple_pattern(value: Any) -> bool:
    return isinstance(value, str) and _SIMPLE_PATTERN.match(value) is not None


def grammar_schema(schema: Any, max_items: int = MAX_ARRAY_ITEMS) -> Any:
    """A copy of `schema` that llama-cpp-python's converter turns into a grammar llama.cpp can
    parse. String length limits and patterns are dropped (the converter unrolls them into
    grammars llama.cpp rejects, and a rejected grammar crashes the process) — except simple
    character-class patterns such as the lemma id's, which the grammar enforces; unconstrained
    subschemas become "any JSON value", and array lengths are capped at `max_items`. The
    session client still validates the reply against the original schema."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DROPPED_KEYWORDS or (key == "pattern" and not simple_pattern(value)):
            continue
        if key in _LITERALS:
            out[key] = value
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: grammar_schema(sub, max_items) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [grammar_schema(sub, max_items) for sub in value]
        elif isinstance(value, dict):  # items, additionalProperties, not, ...
            out[key] = grammar_schema(value, max_items)
        else:
            out[key] = value
    if not out:
        return dict(ANY_VALUE)
    if out.get("type") == "array" or "items" in out:
        low = min(int(out.get("minItems", 0)), max_items)
        out["minItems"] = low
        out["maxItems"] = max(low, min(int(out.get("maxItems", max_items)), max_items))
    return out


# The converter's string characters include raw control characters, so a small model "leaves"
# a JSON string through a raw newline and writes prose inside it (escaped newlines stay allowed).
_LOOSE_CHAR = r'char ::= [^"\\]'
_STRICT_CHAR = r'char ::= [^"\\\x7F\x00-\x1F]'
_ANY_STRING = r'string ::= "\"" char* "\"" space'
_STARRED_CLASS = re.compile(r"(\[[^\]\n]+\])\*")
MAX_PATTERN_CHARS = 40


def adjust_strings(gbnf: str, max_chars: int | None) -> str:
    """No raw control characters in strings, and at most `max_chars` characters per string
    (llama.cpp's native repetition; the converter's own unrolled form fails for long limits)."""
    gbnf = gbnf.replace(_LOOSE_CHAR, _STRICT_CHAR)
    if max_chars is not None:
        gbnf = gbnf.replace(_ANY_STRING, _ANY_STRING.replace("char*", f"char{{0,{max_chars}}}"))
        # a starred character class comes from a kept pattern (an id): capped like a string
        gbnf = _STARRED_CLASS.sub(rf"\1{{0,{MAX_PATTERN_CHARS}}}", gbnf)
    return gbnf


def grammar_parses(api: Any, llama: Any, grammar: Any) -> bool:
    """Whether llama.cpp accepts `grammar`: llama-cpp-python does not check, and a grammar that
    fails to parse crashes the process at sampling time."""
    vocab = getattr(getattr(llama, "_model", None), "vocab", None)
    init = getattr(api, "llama_sampler_init_grammar", None)
    if vocab is None or init is None:
        return True  # cannot check with this llama-cpp-python; the schema was sanitised anyway
    logger = logging.getLogger(_LLAMA_LOGGER)
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)  # llama.cpp reports the parse error; we log our own
    try:
        sampler = init(vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8"))
    finally:
        logger.setLevel(level)
    if not sampler:
        return False
    api.llama_sampler_free(sampler)
    return True


def json_grammar(schema: dict[str, Any], api: Any, llama: Any, small: bool) -> Any:
    """A LlamaGrammar (from the llama_cpp module `api`) for `schema`, checked against the
    loaded `llama`; when it cannot be built, one for any JSON object (the session client then
    validates and repairs). `small`: the model is under SMALL_MODEL_PARAMS."""
    max_items = SMALL_MAX_ARRAY_ITEMS if small else MAX_ARRAY_ITEMS
    max_chars = SMALL_MAX_STRING_CHARS if small else None

    def build(for_schema: dict[str, Any]) -> Any:
        gbnf = api.llama_grammar.json_schema_to_gbnf(json.dumps(for_schema))
        return api.LlamaGrammar.from_string(adjust_strings(gbnf, max_chars), verbose=False)

    try:
        grammar = build(grammar_schema(schema, max_items))
        if grammar_parses(api, llama, grammar):
            return grammar
        problem = "llama.cpp rejected the grammar"
    except Exception as exc:  # the converter signals unsupported schemas with assorted types
        problem = f"{type(exc).__name__}: {exc}"
    log.warning("local backend: no grammar for this schema (%s); using a generic JSON grammar", problem)
    return build({"type": "object"})
