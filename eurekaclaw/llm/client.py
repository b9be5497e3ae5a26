"""The typed LLM client protocol and its defaults.

`LLMClient` (eurekaclaw/llm/types.py) is what every backend must have: `name`, `model_for(tier)`
and async `complete(request)`. `BaseLLMClient` adds the optional parts with their defaults, so a
backend — built in or from a plugin — overrides only what it knows better:

- `display_name` — how the terminal names the model (default: the main model);
- `review_counts_as_evidence()` — whether this model's reviews may lift a lemma to `reviewed`
  (default True; a small local model says False);
- `demonstration_profile()` — settings a too-weak model asks for so a session finishes in
  minutes (default: none);
- `aclose()` — release connections (default: nothing to release).

The module-level helpers give the same answers for any object that satisfies `LLMClient`, whether
or not it derives from `BaseLLMClient`: the one place optional attributes are looked up.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from eurekaclaw.llm.types import LLMClient, LLMRequest, LLMResponse, ModelTier


class BaseLLMClient(ABC):
    name: str = "base"

    @abstractmethod
    def model_for(self, tier: ModelTier) -> str:
        """The model a request of this tier goes to."""

    @abstractmethod
    async def complete(self, request: LLMRequest) -> LLMResponse:
        """One attempt; retries are the session client's."""

    @property
    def display_name(self) -> str:
        return getattr(self, "_display_name", None) or self.model_for("main")

    @display_name.setter
    def display_name(self, value: str) -> None:
        self._display_name = value

    def review_counts_as_evidence(self) -> bool:
        return True

    def demonstration_profile(self) -> dict[str, Any]:
        return {}

    async def aclose(self) -> None:
        return None


def display_name(client: LLMClient) -> str:
    value = getattr(client, "display_name", None)
    return str(value) if value else client.model_for("main")


def review_counts_as_evidence(client: LLMClient) -> bool:
    judge = getattr(client, "review_counts_as_evidence", None)
    return True if judge is None else bool(judge())


def demonstration_profile(client: LLMClient) -> dict[str, Any]:
    profile = getattr(client, "demonstration_profile", None)
    return dict(profile()) if callable(profile) else {}


async def aclose(client: LLMClient | None) -> None:
    closer = getattr(client, "aclose", None) if client is not None else None
    if closer is not None:
        await closer()
