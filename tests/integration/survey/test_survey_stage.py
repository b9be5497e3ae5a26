"""SurveyStage end to end: scripted LLM, real AgentContext, every HTTP request mocked."""

from __future__ import annotations

import json

import httpx
import pytest
from survey_helpers import (
    ALL_HOSTS,
    ARXIV,
    CROSSREF,
    OPENALEX,
    S2,
    arxiv_responder,
    backend,
    fixture,
    make_ctx,
    quick_service,
    s2_search_from_references,
)

from eurekaclaw.agents.survey import SurveyStage
from eurekaclaw.store.files import read_json
from eurekaclaw.types.tasks import InputSpec

EXPLORE_FETCHER = [
    {"tool_calls": [{"name": "search_papers", "input": {"query": "testing deep learning"}}]},
    {
        "text": json.dumps(
            {"relevant_ids": ["arxiv:2202.12139", "arxiv:2304.05376", "arxiv:1901.00001"], "notes": "found two"}
        )
    },
]


def mock_explore_sources(respx_mock) -> None:
    respx_mock.get(ARXIV).mock(side_effect=arxiv_responder)
    respx_mock.get(f"{S2}/paper/search").mock(return_value=httpx.Response(200, text=fixture("s2_search.json")))
    respx_mock.get(f"{OPENALEX}/works").mock(
        return_value=httpx.Response(200, text=fixture("openalex_works_search.json"))
    )
    respx_mock.get(url__startswith=f"{CROSSREF}/works/").mock(
        return_value=httpx.Response(404, text=fixture("crossref_404.txt"))
    )


async def test_explore_produces_a_brief_with_a_selected_direction(respx_mock, tmp_path) -> None:
    mock_explore_sources(respx_mock)
    llm = backend(EXPLORE_FETCHER)
    events: list = []
    ctx = make_ctx(tmp_path, llm, quick_service(), events)
    spec = InputSpec(mode="explore", statement="testing deep learning models")

    outcome = await SurveyStage().run(ctx, spec)

    assert outcome.status == "completed", outcome
    brief = ctx.bus.get_research_brief()
    bib = ctx.bus.get_bibliography()
    assert brief is not None and bib is not None
    # only papers the tools returned; the invented id is dropped with a note
    assert [p.paper_id for p in bib.papers] == ["arxiv:2202.12139", "arxiv:2304.05376"]
    assert any("1901.00001" in n and "no literature tool returned" in n for n in brief.notes)
    assert any("not among the fetched papers" in n for n in brief.notes)
    assert {s.paper_id for s in brief.summaries} == {"arxiv:2202.12139", "arxiv:2304.05376"}
    assert {k.source for k in brief.known_results} == {"arxiv:2202.12139", "arxiv:2304.05376"}
    # citations: arXiv confirmed the first (after CrossRef 404 on its DOI), OpenAlex the second
    assert bib.checks_ran
    assert [p.verification for p in bib.papers] == ["verified", "verified"]
    assert all(p.cite_key for p in bib.papers) and bib.papers[0].cite_key == "ahuja2022testing"
    assert "arxiv" in bib.papers[0].sources and bib.papers[1].sources[0] == "openalex"
    # directions scored with the default weights, best first; scoring failure counted as 0
    assert [d.title for d in brief.directions] == ["A", "B", "D", "C"]
    assert brief.selected_direction is not None and brief.selected_direction.title == "A"
    assert brief.selected_direction.composite == pytest.approx(0.685)
    assert brief.directions[-1].novelty == 0.0
    assert any("unusable novelty score counted as 0" in n for n in brief.notes)
    assert "Builds on: ahuja2022testing" in brief.selected_direction.rationale
    assert brief.gap_analysis.startswith("Nobody has removed assumption A1.")
    assert not brief.offline and brief.unavailable_sources == []
    # persisted, and progress reported
    saved = read_json(tmp_path / "run" / "research_brief.json")
    assert saved["selected_direction"]["title"] == "A"
    states = [d["state"] for kind, d in events if kind == "survey"]
    assert states[0] == "started" and states[-1] == "done" and "tool" in states


async def test_direction_weights_come_from_settings(respx_mock, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DIRECTION_WEIGHTS", "0.2,0.6,0.2")
    mock_explore_sources(respx_mock)
    ctx = make_ctx(tmp_path, backend(EXPLORE_FETCHER), quick_service())
    await SurveyStage().run(ctx, InputSpec(mode="explore", statement="testing deep learning models"))
    brief = ctx.bus.get_research_brief()
    assert brief is not None and brief.selected_direction is not None
    assert brief.selected_direction.title == "B"
    assert [d.title for d in brief.directions] == ["B", "C", "D", "A"]


async def test_from_papers_with_one_good_and_one_missing_id(respx_mock, tmp_path) -> None:
    arxiv = respx_mock.get(ARXIV).mock(side_effect=arxiv_responder)
    respx_mock.get(url__regex=rf"{S2}/paper/.*/references").mock(
        return_value=httpx.Response(200, text=fixture("s2_references.json"))
    )
    respx_mock.get(f"{S2}/paper/search").mock(return_value=httpx.Response(200, text=s2_search_from_references()))
    respx_mock.get(f"{OPENALEX}/works").mock(
        return_value=httpx.Response(200, json={"meta": {"count": 0}, "results": []})
    )
    respx_mock.get(url__startswith=f"{CROSSREF}/works/").mock(
        return_value=httpx.Response(404, text=fixture("crossref_404.txt"))
    )
    fetcher = [
        {"tool_calls": [{"name": "related_papers", "input": {"paper_id": "arxiv:1605.08386"}}]},
        {"text": '{"relevant_ids": ["arxiv:1204.5721"]}'},
    ]
    ctx = make_ctx(tmp_path, backend(fetcher), quick_service())
    spec = InputSpec(mode="from-papers", paper_ids=["1605.08386", "arXiv:1912.99999"], domain="mab")

    outcome = await SurveyStage().run(ctx, spec)

    assert outcome.status == "completed", outcome
    brief = ctx.bus.get_research_brief()
    bib = ctx.bus.get_bibliography()
    assert brief is not None and bib is not None
    assert brief.requested_ids == ["1605.08386", "1912.99999"]
    assert brief.missing_ids == ["1912.99999"]
    assert any("1912.99999 does not exist" in n for n in brief.notes)
    assert [p.paper_id for p in bib.papers] == ["arxiv:1605.08386", "arxiv:1204.5721"]
    assert [p.verification for p in bib.papers] == ["verified", "verified"]
    assert bib.papers[1].verification_detail.startswith("semantic_scholar (title search)")
    assert brief.selected_direction is not None
    assert arxiv.calls[0].request.url.params["id_list"] == "1605.08386,1912.99999"


async def test_from_papers_stops_when_no_id_exists(respx_mock, tmp_path) -> None:
    respx_mock.get(ARXIV).mock(return_value=httpx.Response(200, text=fixture("arxiv_idlist_empty.xml")))
    llm = backend([{"text": "{}"}])
    ctx = make_ctx(tmp_path, llm, quick_service())
    outcome = await SurveyStage().run(ctx, InputSpec(mode="from-papers", paper_ids=["1912.99999"]))
    assert outcome.status == "failed"
    assert "none of the requested papers could be fetched: 1912.99999" in outcome.reason
    brief = ctx.bus.get_research_brief()
    assert brief is not None and brief.missing_ids == ["1912.99999"]
    assert llm.calls == []  # no model call was spent


def mock_network_down(respx_mock) -> None:
    for host in ALL_HOSTS:
        respx_mock.route(url__startswith=host).mock(
            side_effect=httpx.ConnectError("Temporary failure in name resolution")
        )


async def test_offline_prove_finishes_fast_with_a_note(respx_mock, tmp_path) -> None:
    mock_network_down(respx_mock)
    llm = backend([{"text": "{}"}])
    service = quick_service()
    ctx = make_ctx(tmp_path, llm, service)
    spec = InputSpec(mode="prove", statement="For all real x, x^2 >= 0")

    outcome = await SurveyStage().run(ctx, spec)

    assert outcome.status == "completed" and "offline" in outcome.reason
    brief = ctx.bus.get_research_brief()
    bib = ctx.bus.get_bibliography()
    assert brief is not None and bib is not None
    assert brief.offline and any(n.startswith("offline:") for n in brief.notes)
    assert len(brief.unavailable_sources) == 3
    assert bib.papers == [] and not bib.checks_ran
    assert brief.selected_direction is not None and brief.selected_direction.statement == spec.statement
    # no backoff storm: one failed connection per searched host, nobody slept, no model call
    assert service.http.requests_sent == 3
    assert service.http.clock.sleeps == []  # type: ignore[attr-defined]
    assert llm.calls == []


async def test_offline_explore_is_partial_and_from_papers_fails_clearly(respx_mock, tmp_path) -> None:
    mock_network_down(respx_mock)
    ctx = make_ctx(tmp_path, backend([{"text": "{}"}]), quick_service())
    outcome = await SurveyStage().run(ctx, InputSpec(mode="explore", statement="heavy-tailed bandits"))
    assert outcome.status == "partial" and "without a literature survey" in outcome.reason
    brief = ctx.bus.get_research_brief()
    assert brief is not None and brief.offline and brief.selected_direction is not None

    ctx2 = make_ctx(tmp_path / "b", backend([{"text": "{}"}]), quick_service())
    outcome = await SurveyStage().run(ctx2, InputSpec(mode="from-papers", paper_ids=["1204.5721"]))
    assert outcome.status == "failed" and outcome.reason.startswith("offline:")


async def test_offline_switch_sends_no_request(respx_mock, tmp_path, monkeypatch) -> None:
    """EUREKACLAW_OFFLINE=1 through the real settings path: respx has no routes, so any
    request would fail the test."""
    monkeypatch.setenv("EUREKACLAW_OFFLINE", "1")
    llm = backend([{"text": "{}"}])
    ctx = make_ctx(tmp_path, llm)  # the stage builds its own service from the settings
    outcome = await SurveyStage().run(ctx, InputSpec(mode="prove", statement="1 + 1 = 2"))
    assert outcome.status == "completed"
    brief = ctx.bus.get_research_brief()
    assert brief is not None and brief.offline
    assert not respx_mock.calls


async def test_budget_exhaustion_is_never_swallowed(respx_mock, tmp_path) -> None:
    from eurekaclaw.errors import BudgetExceededError
    from eurekaclaw.llm.scripted import ScriptedBackend

    def respond(request):
        if request.role == "survey_summarizer":
            raise BudgetExceededError("budget of $1.00 reached")
        return None

    mock_explore_sources(respx_mock)
    llm = ScriptedBackend(rules=[{"role": "survey_fetcher", "replies": EXPLORE_FETCHER}], responder=respond)
    ctx = make_ctx(tmp_path, llm, quick_service())
    with pytest.raises(BudgetExceededError):
        await SurveyStage().run(ctx, InputSpec(mode="explore", statement="testing deep learning models"))
    assert ctx.bus.get_research_brief() is None


async def test_unusable_direction_replies_fail_the_stage_with_the_brief_saved(respx_mock, tmp_path) -> None:
    from survey_helpers import GAP, summarizer

    from eurekaclaw.llm.scripted import ScriptedBackend

    mock_explore_sources(respx_mock)
    llm = ScriptedBackend(
        rules=[
            {"role": "survey_fetcher", "replies": EXPLORE_FETCHER},
            {"role": "survey_gap_analyst", "reply": GAP},
            {"role": "survey_direction_proposer", "reply": "I would rather not say."},
        ],
        responder=lambda r: summarizer(r) if r.role == "survey_summarizer" else None,
    )
    ctx = make_ctx(tmp_path, llm, quick_service())
    outcome = await SurveyStage().run(ctx, InputSpec(mode="explore", statement="testing deep learning models"))
    assert outcome.status == "failed" and "no research direction" in outcome.reason
    brief = ctx.bus.get_research_brief()
    assert brief is not None and brief.summaries and brief.selected_direction is None
    assert any(n.startswith("direction proposal failed") for n in brief.notes)
    assert sum(1 for c in llm.calls if c.role == "survey_direction_proposer") == 2  # one repair round


async def test_prove_runs_a_scoped_survey_for_citable_known_results(respx_mock, tmp_path) -> None:
    mock_explore_sources(respx_mock)
    fetcher = [{"text": '{"relevant_ids": ["arxiv:2202.12139"]}'}]
    llm = backend(fetcher)
    ctx = make_ctx(tmp_path, llm, quick_service())
    spec = InputSpec(mode="prove", statement="Metamorphic testing finds every fault of a DL model")

    outcome = await SurveyStage().run(ctx, spec)

    assert outcome.status == "completed" and outcome.reason == ""
    brief = ctx.bus.get_research_brief()
    assert brief is not None
    assert brief.selected_direction is not None and brief.selected_direction.statement == spec.statement
    assert [k.source for k in brief.known_results] == ["arxiv:2202.12139"]
    roles = [c.role for c in llm.calls]
    assert "survey_direction_proposer" not in roles and "survey_gap_analyst" not in roles
    fetch_prompt = next(c for c in llm.calls if c.role == "survey_fetcher").prompt_text()
    assert "Statement to prove" in fetch_prompt and spec.statement in fetch_prompt
