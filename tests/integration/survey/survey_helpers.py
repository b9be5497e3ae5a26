"""Building a real AgentContext around a scripted LLM and a literature service whose HTTP is
mocked (respx), with a fake clock so rate limits and backoff never wait."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import httpx

from eurekaclaw.agents.base import AgentContext, Services
from eurekaclaw.config import load_settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import LLMRequest
from eurekaclaw.memory.episodic import EpisodicMemory
from eurekaclaw.tools.base import ToolRegistry
from eurekaclaw.tools.literature.service import LiteratureService

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "literature"))
from lit_helpers import ARXIV, CROSSREF, OPENALEX, S2, FakeClock, fixture, make_http  # noqa: E402

__all__ = ["ARXIV", "CROSSREF", "OPENALEX", "S2", "fixture"]
ALL_HOSTS = (
    "https://export.arxiv.org/",
    "https://api.semanticscholar.org/",
    "https://api.openalex.org/",
    "https://api.crossref.org/",
)


def quick_service(clock: FakeClock | None = None) -> LiteratureService:
    """No rate-limit spacing, no cache, and a clock that only moves when the code sleeps."""
    return LiteratureService(make_http(None, clock=clock or FakeClock()))


def make_ctx(
    tmp_path: Path,
    backend: ScriptedBackend,
    service: LiteratureService | None = None,
    events: list[tuple[str, dict[str, Any]]] | None = None,
) -> AgentContext:
    sink = events if events is not None else []
    return AgentContext(
        session_id="s1",
        settings=load_settings(),
        bus=KnowledgeBus("s1", tmp_path / "run"),
        llm=SessionLLM(backend, UsageLedger(None)),
        tools=ToolRegistry(),
        episodic=EpisodicMemory("s1"),
        events=lambda kind, **data: sink.append((kind, data)),
        services=Services(literature=service),
    )


def prompt_paper_ids(request: LLMRequest) -> list[str]:
    return re.findall(r'paper_id="([^"]+)"', request.prompt_text())


def summarizer(request: LLMRequest) -> dict[str, Any]:
    """Summaries of the papers in the prompt, plus one about a paper that was never fetched."""
    ids = prompt_paper_ids(request)
    summaries = [
        {
            "paper_id": pid,
            "summary": f"Summary of {pid}.",
            "known_results": [{"statement": f"Result of {pid}", "assumptions": ["A1"], "location": "abstract"}],
        }
        for pid in ids
    ]
    summaries.append({"paper_id": "arxiv:1901.00001", "summary": "invented", "known_results": []})
    return {"summaries": summaries}


DIRECTIONS = {
    "directions": [
        {
            "title": "A",
            "statement": "Theorem A holds.",
            "rationale": "novel",
            "novelty": 0.9,
            "soundness": 0.5,
            "transformative": 0.6,
            "based_on": ["arxiv:2202.12139", "arxiv:1901.00001"],
        },
        {
            "title": "B",
            "statement": "Theorem B holds.",
            "rationale": "sound",
            "novelty": 0.6,
            "soundness": 0.9,
            "transformative": 0.5,
        },
        {
            "title": "C",
            "statement": "Theorem C holds.",
            "rationale": "unscored",
            "novelty": "high",
            "soundness": 0.9,
            "transformative": 0.9,
        },
        {
            "title": "D",
            "statement": "Theorem D holds.",
            "rationale": "balanced",
            "novelty": 0.7,
            "soundness": 0.7,
            "transformative": 0.6,
        },
    ]
}
GAP = {"gap_analysis": "Nobody has removed assumption A1.", "open_questions": ["Can A1 be dropped?"]}


def backend(fetcher_replies: list[Any]) -> ScriptedBackend:
    def respond(request: LLMRequest) -> Any:
        if request.role == "survey_summarizer":
            return summarizer(request)
        return None

    return ScriptedBackend(
        rules=[
            {"role": "survey_fetcher", "replies": fetcher_replies},
            {"role": "survey_gap_analyst", "reply": GAP},
            {"role": "survey_direction_proposer", "reply": DIRECTIONS},
        ],
        responder=respond,
    )


def arxiv_responder(request: httpx.Request) -> httpx.Response:
    """Search and id_list answers from recorded feeds (an id_list answer may list more
    entries than asked; the client keys entries by id)."""
    params = request.url.params
    if params.get("id_list"):
        ids = params["id_list"].split(",")
        if "1605.08386" in ids:
            return httpx.Response(200, text=fixture("arxiv_idlist_1605.08386.xml"))
        return httpx.Response(200, text=fixture("arxiv_search_testing.xml"))
    return httpx.Response(200, text=fixture("arxiv_search_testing.xml"))


def s2_search_from_references() -> str:
    refs = json.loads(fixture("s2_references.json"))["data"]
    return json.dumps({"total": len(refs), "offset": 0, "data": [r["citedPaper"] for r in refs]})
