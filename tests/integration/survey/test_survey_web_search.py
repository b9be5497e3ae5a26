"""With BRAVE_API_KEY the survey's paper fetcher is offered `web_search` beside the literature
tools (a recorded Brave answer served at the transport); without it, only the literature tools."""

from __future__ import annotations

import json

import httpx
from conftest import FIXTURES
from survey_helpers import make_ctx, quick_service

from eurekaclaw.agents.survey.fetcher import PaperFetcher
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.tools.literature.tools import PaperPool
from eurekaclaw.tools.web_search import WebSearchTool

RECORDED = (FIXTURES / "web_search" / "brave_web_search.json").read_bytes()


def fetcher_model(seen: list):
    def respond(request):
        if request.role != "survey_fetcher":
            return None
        seen.append(request)
        if request.tools and not any(m.role == "assistant" for m in request.messages):
            return {"tool_calls": [{"id": "w1", "name": "web_search", "input": {"query": "UCB1 regret", "count": 2}}]}
        return {"text": json.dumps({"relevant_ids": []})}

    return respond


async def test_the_fetcher_searches_the_web_when_it_is_configured(tmp_path) -> None:
    seen: list = []
    ctx = make_ctx(tmp_path, ScriptedBackend(responder=fetcher_model(seen)))
    ctx.tools.register(
        WebSearchTool("k" * 24, transport=httpx.MockTransport(lambda request: httpx.Response(200, content=RECORDED)))
    )
    await PaperFetcher(ctx, quick_service(), PaperPool()).find(mode="explore", topic="bandits", seeds=[], max_papers=5)
    offered = [t.name for t in seen[0].tools]
    assert "web_search" in offered and "search_papers" in offered
    assert "Finite-time Analysis of the Multiarmed Bandit Problem" in seen[1].prompt_text()
    assert "leads, not sources" in seen[1].prompt_text()


async def test_without_a_key_only_the_literature_tools(tmp_path) -> None:
    seen: list = []
    ctx = make_ctx(tmp_path, ScriptedBackend(responder=fetcher_model(seen)))
    await PaperFetcher(ctx, quick_service(), PaperPool()).find(mode="explore", topic="bandits", seeds=[], max_papers=5)
    assert "web_search" not in [t.name for t in seen[0].tools]
