"""A structured answer from a model that may call tools first (the proof writers and the
reviewer: the domain's tools, `symbolic`, the optional web search).

Structured output is a forced tool call in the API backends, so it cannot share a request with
real tools: the model works with the tools, then replies with the object as JSON text; one
repair round through structured output when that text does not parse. What a tool said never
becomes a verification level: the caller's checks decide that."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from eurekaclaw.agents.base import BaseAgent
from eurekaclaw.errors import LLMOutputError
from eurekaclaw.llm.session_client import parse_reply, prompt_placeholders
from eurekaclaw.llm.types import LLMRequest, Message
from eurekaclaw.templates import render_prompt
from eurekaclaw.tools.base import run_tool_loop

M = TypeVar("M", bound=BaseModel)
TOOL_TURNS = 4


async def ask_with_tools(
    agent: BaseAgent, request: LLMRequest, output: type[M], tools: list[str], used: list[str] | None = None
) -> M:
    """`output` from the model, which may call `tools` (names in the agent's registry) first;
    the names it called are appended to `used`. Without tools, or with a backend that cannot
    use them (`offers_tools = False`: the local backend), a plain structured request."""
    if not tools or not getattr(getattr(agent.client, "backend", None), "offers_tools", True):
        return await agent.ask_structured(request, output)
    note = render_prompt("theory_prover_tools", tools=tools, schema=output.model_json_schema())
    first = request.messages[0]
    req = request.model_copy(
        update={
            "tools": agent.ctx.tools.specs(tools),
            "output": None,
            "messages": [Message(role="user", content=f"{first.text()}\n\n{note}")],
        }
    )

    def record(call: object, _text: str, _err: bool) -> None:
        if used is not None:
            used.append(getattr(call, "name", ""))

    response, messages = await run_tool_loop(
        agent.client.complete, req, agent.ctx.tools, max_turns=TOOL_TURNS, on_tool_call=record
    )
    try:
        # the same checks as a plain structured answer, placeholders echoed from the prompt included
        return parse_reply(response, output, prompt_placeholders(req))
    except LLMOutputError as exc:
        if exc.kind == "truncated":
            raise
        repair = request.model_copy(
            update={
                "messages": messages
                + [Message(role="user", content=f"Reply now with only the {output.__name__} object.")]
            }
        )
        return await agent.ask_structured(repair, output)
