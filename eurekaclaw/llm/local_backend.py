"""The `local` backend: llama.cpp in-process (llama-cpp-python) on any GGUF model.

One model instance per process, shared by every backend object and reused across calls; calls
run in a worker thread (the event loop stays responsive) and are serialised on that instance,
because a llama.cpp context is not re-entrant. Structured output goes through llama.cpp's
JSON-schema grammar, so a reply is always JSON of the requested shape (unless it hits
max_tokens). Prompts that do not fit the context are trimmed with a warning: the oldest middle
messages go first, then the longest texts are cut in the middle.

Small models cannot call tools reliably, so tools are not offered: the model is told to answer
from what it is given, and a note is logged once.

When LLM_STREAM says so (eurekaclaw/llm/streaming.py) the completion streams (`stream=True`), one
token a chunk, to the token meter of the live display; llama.cpp reports no usage in a stream, so
the reply is counted by the model's own tokenizer and the prompt as fitted (template allowance
included).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eurekaclaw.config import Settings
from eurekaclaw.errors import EurekaError, LLMFatalError, LLMOutputError
from eurekaclaw.llm.client import BaseLLMClient
from eurekaclaw.llm.local_grammar import SMALL_MODEL_PARAMS, json_grammar
from eurekaclaw.llm.local_models import resolve_model
from eurekaclaw.llm.streaming import TokenMeter, wants_stream
from eurekaclaw.llm.types import LLMRequest, LLMResponse, Message, ModelTier, Usage
from eurekaclaw.llm.wire import json_object_in, map_blocks, stop_reason

log = logging.getLogger(__name__)

# Sampling: low temperature keeps a small model on task; the repeat penalty and top-p/min-p
# cut the loops small models fall into.
DEFAULT_TEMPERATURE = 0.3
TOP_P = 0.9
TOP_K = 40
MIN_P = 0.05
REPEAT_PENALTY = 1.1

# Token counts are taken per message text; these allow for the chat-template markers around
# them (role headers, BOS, the generation prompt) with room to spare.
TEMPLATE_TOKENS_FIXED = 24
TEMPLATE_TOKENS_PER_MESSAGE = 10
# When the prompt is trimmed, at least this share of the context stays free for the reply.
MIN_REPLY_SHARE = 4
MIN_KEPT_TOKENS = 32
CUT_MARKER_TOKENS = 24  # the "[... N characters cut ...]" note, with room to spare


TOOLS_NOTE = "No tools are available in this session: answer directly from the information above."


# --- the shared model instance --------------------------------------------------------------


@dataclass
class LoadedModel:
    llama: Any
    path: Path
    n_ctx: int
    small: bool = False  # under SMALL_MODEL_PARAMS: replies get tighter grammar caps
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, text: str) -> int:
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))


_MODELS: dict[Path, LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


def llama_cpp_api() -> Any:
    """The llama_cpp module (a function so tests can put a fake in its place).

    OpenMP's default busy-waiting made llama.cpp 5-7x slower (measured) whenever anything else
    wanted a core, as a session's SMT and LaTeX runs do; passive waiting cost 10-30% on a lightly
    loaded machine. It must be set before llama_cpp loads OpenMP. A value the user set is kept."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import llama_cpp

    return llama_cpp


def training_context(metadata: dict[str, str]) -> int | None:
    arch = metadata.get("general.architecture", "")
    try:
        return int(metadata[f"{arch}.context_length"])
    except (KeyError, ValueError):
        return None


def load_model(path: Path, n_ctx: int, n_threads: int) -> LoadedModel:
    """The process-wide instance for `path`, loaded on first use."""
    key = path.resolve()
    with _MODELS_LOCK:
        loaded = _MODELS.get(key)
        if loaded is None:
            loaded = _load(key, n_ctx, n_threads)
            _MODELS[key] = loaded
        return loaded


def _load(path: Path, n_ctx: int, n_threads: int) -> LoadedModel:
    llama = llama_cpp_api().Llama

    def create(context: int) -> Any:
        return llama(
            model_path=str(path),
            n_ctx=context,
            n_threads=n_threads,
            n_threads_batch=n_threads,
            verbose=False,
        )

    try:
        instance = create(n_ctx)
        trained = training_context(getattr(instance, "metadata", None) or {})
        if trained is not None and trained < n_ctx:
            # Past its training length a model degrades; the reload is cheap (the file is mmapped).
            log.info("local model %s was trained on %d tokens; using that context", path.name, trained)
            del instance
            n_ctx = trained
            instance = create(n_ctx)
    except (ValueError, RuntimeError, OSError) as exc:
        raise LLMFatalError(f"cannot load the local model {path}: {exc}") from None
    params = parameter_count(instance)
    small = params is not None and params < SMALL_MODEL_PARAMS
    return LoadedModel(llama=instance, path=path, n_ctx=n_ctx, small=small)


def parameter_count(instance: Any) -> int | None:
    count = getattr(getattr(instance, "_model", None), "n_params", None)
    try:
        return int(count()) if callable(count) else None
    except (TypeError, ValueError):
        return None


def loaded_models() -> dict[Path, LoadedModel]:
    """The instances loaded in this process (for tests and diagnostics)."""
    with _MODELS_LOCK:
        return dict(_MODELS)


# --- request building --------------------------------------------------------------------------


def render_message(message: Message) -> str:
    """Our message as plain text: tool calls and results become readable lines, because the
    model is not given tools and chat templates differ in how (and whether) they show them."""
    if isinstance(message.content, str):
        return message.content
    parts = map_blocks(
        message,
        text=lambda b: b.text or None,
        tool_use=lambda b: f"[called tool {b.name} with {json.dumps(b.input, ensure_ascii=False)}]",
        tool_result=lambda b: (
            f"[{'error from tool call' if b.is_error else 'result of tool call'} {b.tool_use_id}]\n{b.content}"
        ),
    )
    return "\n".join(parts)


def output_instructions(schema: dict[str, Any], name: str) -> str:
    """A short description of the expected object; the grammar enforces its shape, this tells
    the model what the fields mean."""
    lines = [f"Reply with only one JSON object ({name}) with these fields:"]
    required = set(schema.get("required", []))
    for prop, spec in (schema.get("properties") or {}).items():
        kind = spec.get("type") or ("object" if "$ref" in spec else "value")
        desc = str(spec.get("description") or spec.get("title") or "")[:120]
        need = "required" if prop in required else "optional"
        lines.append(f"- {prop} ({kind}, {need}){': ' + desc if desc else ''}")
    return "\n".join(lines)


_tools_noted = False


def build_messages(request: LLMRequest) -> list[dict[str, str]]:
    """Chat messages for llama.cpp's chat template: one system message, then strictly
    alternating user/assistant turns starting with the user (some templates insist).

    What changes from call to call (the reply format, the tools note) goes at the end of the
    last user turn: llama.cpp reuses the evaluated prefix a prompt shares with the previous one,
    and prompt processing is most of a small model's time; a small model also follows an
    instruction best when it comes last."""
    global _tools_noted
    tail: list[str] = []
    if request.output is not None:
        tail.append(output_instructions(request.output_schema() or {}, request.output.__name__))
    if request.tools:
        tail.append(TOOLS_NOTE)
        if not _tools_noted:
            _tools_noted = True
            log.info("local backend: tools are not offered to the local model; it answers without them")
    turns: list[dict[str, str]] = []
    for message in request.messages:
        text = render_message(message).strip() or "(empty)"
        if turns and turns[-1]["role"] == message.role:
            turns[-1]["content"] += "\n\n" + text
        else:
            turns.append({"role": message.role, "content": text})
    if not turns or turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": "Continue."})
    if tail:
        if turns[-1]["role"] == "user":
            turns[-1]["content"] += "\n\n" + "\n\n".join(tail)
        else:
            turns.append({"role": "user", "content": "\n\n".join(tail)})
    system = request.system_text()
    return ([{"role": "system", "content": system}] if system else []) + turns


# --- fitting the context ---------------------------------------------------------------------


@dataclass
class Fitted:
    messages: list[dict[str, str]]
    max_tokens: int
    prompt_tokens: int  # our estimate, template allowance included
    dropped: int = 0
    cut: int = 0


def _estimate(messages: list[dict[str, str]], count: Callable[[str], int]) -> int:
    return (
        TEMPLATE_TOKENS_FIXED + TEMPLATE_TOKENS_PER_MESSAGE * len(messages) + sum(count(m["content"]) for m in messages)
    )


def _cut_middle(text: str, keep_fraction: float) -> str:
    keep = max(1, int(len(text) * keep_fraction))
    head = keep * 2 // 3
    tail = keep - head
    removed = len(text) - keep
    marker = f"\n[... {removed} characters cut to fit the model's context ...]\n"
    return text[:head] + marker + (text[-tail:] if tail else "")


def _merge_same_roles(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    merged: list[dict[str, str]] = []
    for m in messages:
        if merged and merged[-1]["role"] == m["role"] and m["role"] != "system":
            merged[-1] = {"role": m["role"], "content": merged[-1]["content"] + "\n\n" + m["content"]}
        else:
            merged.append(dict(m))
    return merged


def fit_context(messages: list[dict[str, str]], count: Callable[[str], int], n_ctx: int, want_reply: int) -> Fitted:
    """Trim `messages` so the prompt plus a reply fit in `n_ctx` tokens, and clip the reply's
    max_tokens to the room left. Keeps the system message, the first user message (the task)
    and the last message (the current question)."""
    messages = [dict(m) for m in messages]
    reply_floor = max(1, min(want_reply, n_ctx // MIN_REPLY_SHARE))
    budget = n_ctx - reply_floor
    total = _estimate(messages, count)
    dropped = cut = 0
    if total > budget:
        first = 1 if messages and messages[0]["role"] == "system" else 0
        # Oldest middle messages: after the first user turn, before the last message.
        while total > budget and len(messages) - first > 2:
            del messages[first + 1]
            dropped += 1
            total = _estimate(messages, count)
        if dropped:
            note = f"[{dropped} earlier messages were left out to fit the model's context]\n\n"
            messages[first + 1]["content"] = note + messages[first + 1]["content"]
            messages = _merge_same_roles(messages)
            total = _estimate(messages, count)
        # Then cut the longest text in the middle, always from its original so markers do not
        # pile up; a few rounds converge (token density is not uniform along a text).
        originals = [m["content"] for m in messages]
        fractions = [1.0] * len(messages)
        for _ in range(32):
            if total <= budget:
                break
            sizes = [count(m["content"]) for m in messages]
            longest = max(range(len(messages)), key=sizes.__getitem__)
            if sizes[longest] <= MIN_KEPT_TOKENS:
                break
            target = max(MIN_KEPT_TOKENS, sizes[longest] - (total - budget) - CUT_MARKER_TOKENS)
            fractions[longest] *= target / sizes[longest]
            messages[longest]["content"] = _cut_middle(originals[longest], fractions[longest])
            total = _estimate(messages, count)
        cut = sum(1 for f in fractions if f < 1.0)
        log.warning(
            "local model context is %d tokens: the prompt was trimmed (%d messages left out, "
            "%d texts cut) to leave room for the reply",
            n_ctx,
            dropped,
            cut,
        )
    room = n_ctx - total
    if room < 1:
        raise LLMOutputError(
            f"the prompt does not fit the local model's context of {n_ctx} tokens even after "
            "trimming; raise LOCAL_CONTEXT or use a model with a longer context",
            kind="context",
        )
    return Fitted(messages=messages, max_tokens=min(want_reply, room), prompt_tokens=total, dropped=dropped, cut=cut)


# --- the backend --------------------------------------------------------------------------------


# Below this size a model's review of a proof is not counted as evidence (docs/local-model.md).
REVIEW_MIN_PARAMS = 7_000_000_000


class LocalBackend(BaseLLMClient):
    name = "local"
    # agents skip their tool loop (agents/theory/tool_answer.py): a small model answers
    # without tools anyway, and only a structured request gets its JSON grammar
    offers_tools = False

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.display_name, self.model_path = resolve_model(settings)
        self.n_threads = settings.local_threads or os.cpu_count() or 1
        self.n_ctx = settings.local_context

    def model_for(self, tier: ModelTier) -> str:
        return f"local:{self.model_path.stem}"

    def demonstration_profile(self) -> dict[str, Any]:
        """Setting overrides that let a session on a small model finish in minutes: one attempt
        per lemma, no stage retries, one lemma at a time (the single model serialises calls
        anyway). Empty for a model large enough to do real work. Settings the user set explicitly win."""
        if self.review_counts_as_evidence():
            return {}
        return {
            "theory_max_iterations": 1,
            "stage_max_retries": 0,
            "theory_concurrency": 1,
            "theory_max_replans": 0,
            "theory_fail_fast": True,
        }

    def review_counts_as_evidence(self) -> bool:
        """Whether this model's proof review may raise a lemma to level `reviewed`. A review
        by a small local model is no evidence, so its lemmas stay `unverified` unless a
        mechanical checker proved them."""
        params = parameter_count(self.model().llama)
        return params is not None and params >= REVIEW_MIN_PARAMS

    def model(self) -> LoadedModel:
        return load_model(self.model_path, self.n_ctx, self.n_threads)

    def completion_args(self, request: LLMRequest, loaded: LoadedModel) -> dict[str, Any]:
        """Keyword arguments for Llama.create_chat_completion (prompt already fitted)."""
        fitted = fit_context(build_messages(request), loaded.count, loaded.n_ctx, request.max_tokens)
        args: dict[str, Any] = {
            "messages": fitted.messages,
            "max_tokens": fitted.max_tokens,
            "temperature": DEFAULT_TEMPERATURE if request.temperature is None else request.temperature,
            "top_p": TOP_P,
            "top_k": TOP_K,
            "min_p": MIN_P,
            "repeat_penalty": REPEAT_PENALTY,
        }
        if request.output is not None:
            args["grammar"] = json_grammar(request.output_schema() or {}, llama_cpp_api(), loaded.llama, loaded.small)
        return args

    async def complete(self, request: LLMRequest) -> LLMResponse:
        return await asyncio.to_thread(self._complete_blocking, request)

    def _complete_blocking(self, request: LLMRequest) -> LLMResponse:
        loaded = self.model()
        stream = wants_stream(self.settings.llm_stream)  # the caller's context: to_thread copies it
        with loaded.lock:
            try:
                args = self.completion_args(request, loaded)
                if stream:
                    result = _streamed_completion(loaded, args)
                else:
                    result = loaded.llama.create_chat_completion(**args)
            except EurekaError:
                raise
            except Exception as exc:  # llama-cpp-python raises ValueError, RuntimeError, jinja2 errors...
                raise LLMOutputError(
                    f"the local model failed on this request: {type(exc).__name__}: {exc}", kind="backend"
                ) from None
        return self._parse(result, request)

    def _parse(self, result: dict[str, Any], request: LLMRequest) -> LLMResponse:
        choices = result.get("choices") or [{}]
        choice = choices[0]
        text = ((choice.get("message") or {}).get("content") or "").strip()
        stop = stop_reason(choice.get("finish_reason") or "stop")
        structured: dict[str, Any] | None = None
        if request.output is not None and stop != "max_tokens":
            structured = json_object_in(text)
        usage = result.get("usage") or {}
        return LLMResponse(
            text=text,
            structured=structured,
            stop_reason=stop,
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
            ),
            model=self.model_for(request.tier),
        )


def _streamed_completion(loaded: LoadedModel, args: dict[str, Any]) -> dict[str, Any]:
    """A streamed completion read back into the whole one it stands for, usage counted here."""
    meter = TokenMeter()
    pieces: list[str] = []
    finish: str | None = None
    try:
        for chunk in loaded.llama.create_chat_completion(**args, stream=True):
            choice = (chunk.get("choices") or [{}])[0]
            piece = (choice.get("delta") or {}).get("content")
            if piece:
                pieces.append(piece)
                meter.add(piece, tokens=1)
            finish = choice.get("finish_reason") or finish
    finally:
        meter.finish()
    content = "".join(pieces)
    return {
        "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": finish or "stop"}],
        "usage": {
            "prompt_tokens": _estimate(args["messages"], loaded.count),
            "completion_tokens": loaded.count(content) if content else 0,
        },
    }


def describe_default_model(settings: Settings | None = None) -> tuple[str, Path]:
    """(name, path) of the model the local backend will load, for the CLI banner
    ("using local model NAME — demonstration quality"). EUREKACLAW_LOCAL_MODEL is honoured.
    Raises MissingConfigError when there is no model."""
    if settings is None:
        from eurekaclaw.config import load_settings

        settings = load_settings()
    return resolve_model(settings)
