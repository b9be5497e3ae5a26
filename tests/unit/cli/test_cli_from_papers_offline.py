"""`from-papers` fetches its papers before a session exists (issue #16): without network it is
one line with exit 3 and the cause, not a session that ends partial with exit 1."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from eurekaclaw.cli import app

runner = CliRunner()
ARXIV = "https://export.arxiv.org/api/query"
S2 = "https://api.semanticscholar.org/graph/v1"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "literature"


def no_session() -> bool:
    runs = Path(os.environ["EUREKACLAW_DIR"]) / "runs"
    return not runs.exists() or not any(runs.iterdir())


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    calls: list[dict] = []
    monkeypatch.setattr("eurekaclaw.cli._launch", lambda fields, run: calls.append(fields))
    return calls


def test_no_network_is_exit_3_with_the_cause_and_no_session(respx_mock, launched) -> None:
    respx_mock.get(url__startswith=ARXIV).mock(side_effect=httpx.ConnectError("Temporary failure in name resolution"))
    respx_mock.route(url__startswith=S2).mock(side_effect=httpx.ConnectError("Temporary failure in name resolution"))
    result = runner.invoke(app, ["from-papers", "1204.5721", "--llm", "schema"])
    assert result.exit_code == 3, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "no literature source is reachable" in lines[0] and "ConnectError" in lines[0] and "arXiv" in lines[0]
    assert no_session() and launched == []


def test_offline_switch_without_a_cache_is_exit_3_without_a_request(respx_mock, launched, monkeypatch) -> None:
    monkeypatch.setenv("EUREKACLAW_OFFLINE", "1")
    result = runner.invoke(app, ["from-papers", "1204.5721", "--llm", "schema"])
    assert result.exit_code == 3 and "EUREKACLAW_OFFLINE" in result.output
    assert not respx_mock.calls and no_session() and launched == []


def test_a_reachable_paper_goes_on_to_the_session(respx_mock, launched) -> None:
    respx_mock.get(url__startswith=ARXIV).mock(
        return_value=httpx.Response(200, text=(FIXTURES / "arxiv_idlist_1706.03762.xml").read_text())
    )
    result = runner.invoke(app, ["from-papers", "1706.03762", "--llm", "schema"])
    assert result.exit_code == 0, result.output
    assert launched and launched[0]["paper_ids"] == ["1706.03762"]


def test_papers_no_source_knows_are_bad_input(respx_mock, launched) -> None:
    respx_mock.get(url__startswith=ARXIV).mock(
        return_value=httpx.Response(200, text=(FIXTURES / "arxiv_idlist_empty.xml").read_text())
    )
    respx_mock.route(url__startswith=S2).mock(
        return_value=httpx.Response(404, text=(FIXTURES / "s2_404.json").read_text())
    )
    result = runner.invoke(app, ["from-papers", "1912.99999", "--llm", "schema"])
    assert result.exit_code == 2, result.output
    assert "no source knows 1912.99999" in result.output and launched == []
