"""One secret scrubber for every log writer, and session files that follow the umask."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest

from eurekaclaw.errors import EurekaError
from eurekaclaw.redact import ScrubFilter, register_secret, scrub
from eurekaclaw.store.files import append_jsonl, atomic_write_json, read_jsonl


@pytest.mark.parametrize(
    "secret",
    [
        "sk-ant-api03-abcdefghijklmnop",
        "sk-or-v1-0123456789abcdef0123456789",
        "sk-proj-abcdefghijkl0123",
        "sk-abcdefghijklmnopqrstuvwxyz",
        "Bearer eyJhbGciOi.payload-part_1",
        "api_key=hunter2secret",
    ],
)
def test_every_key_shape_is_scrubbed(secret: str) -> None:
    text = f"request failed with {secret} in it"
    assert secret.split()[-1].split("=")[-1] not in scrub(text)
    assert "[REDACTED]" in scrub(text)


def test_ordinary_text_is_left_alone() -> None:
    for text in ("task-skeleton sk-short", "the risk-averse agent", "Bearer of bad news", "api_key="):
        assert scrub(text) == text


def test_registered_secrets_of_any_shape(tmp_path: Path) -> None:
    register_secret("plain-vllm-token-42")
    assert scrub("401 for plain-vllm-token-42") == "401 for [REDACTED]"
    append_jsonl(
        tmp_path / "events.jsonl", {"reason": "echoed plain-vllm-token-42", "nested": ["sk-or-v1-aaaaaaaaaaaa"]}
    )
    raw = (tmp_path / "events.jsonl").read_text()
    assert "plain-vllm-token-42" not in raw and "sk-or-v1-aaaa" not in raw
    assert read_jsonl(tmp_path / "events.jsonl")[0]["nested"] == ["[REDACTED]"]
    assert "sk-or-v1" not in EurekaError("bad key sk-or-v1-bbbbbbbbbbbbbb").user_message()


def test_logging_filter_scrubs_records() -> None:
    record = logging.LogRecord("x", logging.WARNING, "f", 1, "call failed: %s", ("sk-ant-zzzzzzzzzzzz",), None)
    ScrubFilter().filter(record)
    assert record.getMessage() == "call failed: [REDACTED]"


def test_session_files_follow_the_umask_except_private_ones(tmp_path: Path) -> None:
    import eurekaclaw.store.files as files

    old = os.umask(0o027)
    files._umask = None  # read the umask again
    try:
        atomic_write_json(tmp_path / "theory_state.json", {"a": 1})
        atomic_write_json(tmp_path / "secret.json", {"k": 1}, private=True)
        append_jsonl(tmp_path / "events.jsonl", {"a": 1})
        append_jsonl(tmp_path / "llm_log.jsonl", {"a": 1}, private=True)
    finally:
        os.umask(old)
        files._umask = None
    mode = lambda name: stat.S_IMODE((tmp_path / name).stat().st_mode)  # noqa: E731
    assert mode("theory_state.json") == 0o640 and mode("events.jsonl") == 0o640
    assert mode("secret.json") == 0o600 and mode("llm_log.jsonl") == 0o600
