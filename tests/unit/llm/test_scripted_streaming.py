"""The scripted backend's `cut_stream_after`: one cut, then the retry gets that same reply whole
(the cut must not use up a `once` rule or skip to the next of its `replies`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import LLMRequest, Message


async def _no_sleep(seconds: float) -> None:
    return None


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ({"reply": "A proof that is long enough to chunk", "once": True}, "A proof that is long enough to chunk"),
        ({"replies": ["FIRST reply text here", "SECOND reply text"]}, "FIRST reply text here"),
    ],
    ids=["once", "replies"],
)
async def test_the_retry_after_a_scripted_cut_gets_the_same_reply_whole(
    tmp_path: Path, rule: dict[str, Any], expected: str
) -> None:
    backend = ScriptedBackend(rules=[{"role": "prover", "cut_stream_after": 1, **rule}], stream=True)
    llm = SessionLLM(backend, UsageLedger(tmp_path / "u.json"), tmp_path / "l.jsonl", max_retries=2, sleep=_no_sleep)
    request = LLMRequest(role="prover", messages=[Message(role="user", content="x")], max_tokens=100)
    response = await llm.complete(request)
    assert response.text == expected
    assert backend.rules[0].used == 1  # the cut attempt did not use the reply up
