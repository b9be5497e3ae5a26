"""Speed of the local backend (llama.cpp in-process) on this machine.

Prints one `name value` figure per line: load time, prompt processing and generation tokens/s
(free text and grammar-constrained JSON, both through LocalBackend), and the wall time of a
session-like sequence of structured calls on the artifact models the pipeline asks for.
The model is EUREKACLAW_LOCAL_MODEL or the packaged default; LOCAL_THREADS picks the threads.
Timings on a shared machine vary a lot: run it when the machine is otherwise idle. Run:

    python benchmarks/local_model.py [--calls 12] [--prompt-words 600]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from pydantic import BaseModel

from eurekaclaw.config import load_settings
from eurekaclaw.llm import local_backend as lb
from eurekaclaw.llm.types import LLMRequest, LLMResponse, Message
from eurekaclaw.types import artifacts

STATEMENT = (
    "For a K-armed stochastic bandit with rewards in [0, 1], UCB1 has expected regret "
    "O(sqrt(K T log T)) after T rounds."
)
CONTEXT = (
    "Known results: Auer, Cesa-Bianchi and Fischer (2002) prove a logarithmic gap-dependent "
    "regret bound for UCB1 using Hoeffding's inequality and a union bound over rounds. "
)
SCHEMAS: list[type[BaseModel]] = [
    artifacts.ResearchDirection,
    artifacts.ProofPlan,
    artifacts.Claim,
    artifacts.LemmaNode,
    artifacts.SelfAssessment,
    artifacts.EvalDimension,
]


def request(output: type[BaseModel] | None, prompt_words: int, max_tokens: int, call: int = 0) -> LLMRequest:
    filler = (CONTEXT * (prompt_words // len(CONTEXT.split()) + 1)).split()[:prompt_words]
    # The call number first: prompts share only the system prompt, as calls of different
    # roles do, so llama.cpp's prefix reuse does not flatter the figure.
    return LLMRequest(
        role="benchmark",
        system_stable="You are a careful mathematician working on bandit theory.",
        messages=[Message(role="user", content=f"Call {call}. " + " ".join(filler) + f"\n\nTask: {STATEMENT}")],
        output=output,
        max_tokens=max_tokens,
    )


async def timed(
    backend: lb.LocalBackend, loaded: lb.LoadedModel, req: LLMRequest
) -> tuple[float, float, float, LLMResponse]:
    """(prompt-processing s, decoding s, wall s, response), from llama.cpp's own counters."""
    import llama_cpp

    ctx = loaded.llama.ctx
    llama_cpp.llama_perf_context_reset(ctx)
    started = time.perf_counter()
    resp = await backend.complete(req)
    elapsed = time.perf_counter() - started
    perf = llama_cpp.llama_perf_context(ctx)
    return perf.t_p_eval_ms / 1000, perf.t_eval_ms / 1000, elapsed, resp


async def main(calls: int, prompt_words: int) -> None:
    settings = load_settings()
    backend = lb.LocalBackend(settings)
    started = time.perf_counter()
    loaded = backend.model()
    print(f"model {backend.model_for('main')}")
    print(f"threads {backend.n_threads}")
    print(f"context_tokens {loaded.n_ctx}")
    print(f"load_s {time.perf_counter() - started:.2f}")

    # Prompt processing: a long prompt and a one-token reply, from an empty cache.
    loaded.llama.reset()
    prompt_s, _, elapsed, resp = await timed(backend, loaded, request(None, 1200, 1))
    print(f"prompt_tokens {resp.usage.input_tokens}")
    print(f"prompt_tok_per_s {resp.usage.input_tokens / prompt_s:.1f}")

    # Generation (sampling and grammar included): wall time less prompt processing.
    for label, output in (("free", None), ("json", artifacts.ResearchDirection)):
        loaded.llama.reset()
        prompt_s, _, elapsed, resp = await timed(backend, loaded, request(output, 20, 256))
        print(f"gen_{label}_tokens {resp.usage.output_tokens}")
        print(f"gen_{label}_tok_per_s {resp.usage.output_tokens / max(1e-9, elapsed - prompt_s):.1f}")

    # A session-like run: structured calls on the pipeline's artifact models.
    totals = [0, 0]
    parsed = 0
    started = time.perf_counter()
    for i in range(calls):
        model = SCHEMAS[i % len(SCHEMAS)]
        resp = await backend.complete(request(model, prompt_words, 1024, call=i + 1))
        totals[0] += resp.usage.input_tokens
        totals[1] += resp.usage.output_tokens
        try:
            model.model_validate(resp.structured)
            parsed += 1
        except ValueError:
            pass
    elapsed = time.perf_counter() - started
    print(f"session_calls {calls}")
    print(f"session_valid_replies {parsed}")
    print(f"session_prompt_tokens {totals[0]}")
    print(f"session_output_tokens {totals[1]}")
    print(f"session_wall_s {elapsed:.1f}")
    print(f"session_s_per_call {elapsed / max(1, calls):.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=12)
    parser.add_argument("--prompt-words", type=int, default=600)
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.prompt_words))
