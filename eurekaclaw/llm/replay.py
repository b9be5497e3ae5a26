"""The `replay` backend: answers from a session's llm_log.jsonl, so a run can be reproduced
exactly and a bug reported with its log. Requests are matched by fingerprint (role, prompts,
tools, output model), in order for repeated identical requests, so concurrent calls replay too."""

from __future__ import annotations

from collections import defaultdict, deque
from pathlib import Path

from eurekaclaw.errors import BadInputError, LLMFatalError
from eurekaclaw.llm.client import BaseLLMClient
from eurekaclaw.llm.types import LLMRequest, LLMResponse, ModelTier
from eurekaclaw.store.files import read_jsonl


class ReplayBackend(BaseLLMClient):
    name = "replay"

    def __init__(self, log_path: Path) -> None:
        log_path = Path(log_path)
        if not log_path.is_file():
            raise BadInputError(f"no LLM log to replay at {log_path}")
        self._by_fp: dict[str, deque[LLMResponse]] = defaultdict(deque)
        self._models: dict[str, str] = {}
        for entry in read_jsonl(log_path):
            if entry.get("response") is None:
                continue  # failed calls were retried; only answers are replayed
            self._by_fp[entry["fingerprint"]].append(LLMResponse.model_validate(entry["response"]))
            req = entry.get("request") or {}
            if req.get("tier") and req.get("model"):
                self._models[req["tier"]] = req["model"]

    def model_for(self, tier: ModelTier) -> str:
        return self._models.get(tier, f"replay-{tier}")

    async def complete(self, request: LLMRequest) -> LLMResponse:
        queue = self._by_fp.get(request.fingerprint())
        if not queue:
            raise LLMFatalError(
                f"replay diverged: no recorded reply for this {request.role} request ({request.prompt_text()[:80]!r})"
            )
        return queue.popleft()
