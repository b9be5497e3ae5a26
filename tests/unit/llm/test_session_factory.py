"""session_llm(): the one place a session's client is built, so a run, `review` and
`eval-session` retry by the same configured policy; LLM_OUTER_RETRIES is gone, harmlessly."""

from __future__ import annotations

from pathlib import Path

import pytest

from eurekaclaw.config import Settings, load_settings
from eurekaclaw.errors import LLMRetryableError
from eurekaclaw.http_retry import RetryPolicy
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM, session_llm
from eurekaclaw.llm.types import LLMRequest, Message
from eurekaclaw.orchestrator.evaluation import _judge_llm
from eurekaclaw.orchestrator.session_setup import build_context
from eurekaclaw.review.agent import review_context
from eurekaclaw.store.session import Workspace


def _settings() -> Settings:
    return load_settings(llm_max_retries=4, llm_retry_base_s=1.5, llm_retry_max_s=7.0, llm_retry_total_s=20.0)


def _policy(llm: SessionLLM | None) -> tuple[int, float, float, float]:
    assert llm is not None
    p: RetryPolicy = llm.policy
    return p.max_retries, p.base_s, p.max_wait_s, p.max_total_s


CONFIGURED = (4, 1.5, 7.0, 20.0)


async def test_the_factory_retries_by_the_settings_and_reports_each_wait(tmp_path: Path) -> None:
    def busy(request: LLMRequest) -> str:
        raise LLMRetryableError("busy", status=429)

    backend = ScriptedBackend(responder=busy)
    notices: list[str] = []
    settings = load_settings(llm_max_retries=1, llm_retry_base_s=0.0)
    llm = session_llm(backend, UsageLedger(None), tmp_path / "llm_log.jsonl", settings, on_retry=notices.append)
    with pytest.raises(LLMRetryableError) as failed:
        await llm.complete(LLMRequest(role="prover", messages=[Message(role="user", content="hi")], max_tokens=10))
    assert failed.value.message.endswith("(gave up after 2 attempts)")
    assert len(backend.calls) == 2 and notices == ["prover: HTTP 429, retrying in 0 s"]
    assert (tmp_path / "llm_log.jsonl").is_file()


def test_a_run_a_review_and_eval_session_build_the_same_policy(tmp_path: Path) -> None:
    settings = _settings()
    workspace = Workspace(settings.eurekaclaw_dir)
    session = workspace.new_session()
    bus = KnowledgeBus(session.session_id, session.path)
    backend = ScriptedBackend(responder=lambda r: "ok")
    run = build_context(
        settings=settings,
        workspace=workspace,
        session=session,
        bus=bus,
        backend=backend,
        budget_usd=None,
        domain="general",
        plugin=None,
        statement="x",
        events=lambda kind, **data: None,
    )
    review = review_context(settings, session, bus, backend)
    judge = _judge_llm(settings, workspace, session, "schema")  # a backend that needs no configuration
    assert _policy(run.llm) == _policy(review.llm) == _policy(judge) == CONFIGURED


def test_an_old_env_file_with_llm_outer_retries_still_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("LLM_OUTER_RETRIES=3\nLLM_MAX_RETRIES=2\n")
    monkeypatch.setenv("LLM_OUTER_RETRIES", "5")
    settings = load_settings()
    assert settings.llm_max_retries == 2
    assert "llm_outer_retries" not in Settings.model_fields and not hasattr(settings, "llm_outer_retries")
