"""The optional `web_search` tool (Brave Search API), offered to the survey and the prover when
BRAVE_API_KEY is set and the session is not offline.

Web results are leads, never sources: the tool says so in every answer, and a paper found this
way is cited only after the survey fetches it through the literature services and its citation
is verified. Requests follow the project's one retry policy (eurekaclaw/http_retry.py); the
key travels only in the `X-Subscription-Token` header and never appears in a result or an error.
The HTTP transport is injectable: tests serve recorded answers without the network.
"""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from eurekaclaw.http_retry import RetryPolicy, parse_retry_after, retryable_status
from eurekaclaw.redact import register_secret
from eurekaclaw.tools.base import BaseTool, ToolRegistry

BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
MAX_QUERY_CHARS = 400
MAX_RESULTS = 10
SNIPPET_CHARS = 400
NOTE = (
    "Web results are leads, not sources: a paper found here is cited only after the literature tools "
    "fetch it and its citation is verified; statements from web pages are not evidence for a proof."
)
_TAG = re.compile(r"<[^>]{0,200}>")


class WebSearchError(Exception):
    """The search could not answer; one line for the model, without the key."""


def _clean(text: Any, limit: int) -> str:
    flat = " ".join(html.unescape(_TAG.sub("", str(text or ""))).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def parse_brave(data: Any, count: int) -> list[dict[str, str]]:
    """title/url/snippet/age of the web results of a Brave WebSearchApiResponse."""
    web = data.get("web") if isinstance(data, dict) else None
    results = web.get("results") if isinstance(web, dict) else None
    if not isinstance(results, list):
        return []
    out: list[dict[str, str]] = []
    for item in results:
        if not isinstance(item, dict) or not str(item.get("url") or "").startswith(("https://", "http://")):
            continue
        entry = {
            "title": _clean(item.get("title"), 200),
            "url": str(item["url"])[:500],
            "snippet": _clean(item.get("description"), SNIPPET_CHARS),
        }
        if item.get("age"):
            entry["age"] = _clean(item["age"], 40)
        out.append(entry)
        if len(out) >= count:
            break
    return out


class WebSearchTool(BaseTool):
    name = "web_search"
    description = (
        "Search the web (Brave Search) for papers, lecture notes or known results by keywords. Returns up to "
        f"{MAX_RESULTS} results (title, url, snippet). Results are leads only: never cite a web page as proof; "
        "use the literature tools to fetch and cite a paper you found."
    )

    def __init__(
        self,
        api_key: str,
        *,
        timeout_s: float = 20.0,
        policy: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if not api_key.strip():
            raise ValueError("web_search needs an API key")
        self._key = api_key.strip()
        register_secret(self._key)  # scrubbed from every log, whatever its shape
        self.timeout_s = timeout_s
        # Polite: a server asking for a longer wait than we allow is given up on, not cut short.
        self.policy = policy or RetryPolicy(
            max_retries=3, base_s=1.0, max_wait_s=30.0, max_total_s=60.0, cap_retry_after=False
        )
        self.transport = transport
        self.sleep = sleep

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "query": {"type": "string", "maxLength": MAX_QUERY_CHARS},
                "count": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS},
            },
            "required": ["query"],
        }

    async def call(self, query: str, count: int = 5) -> Any:
        if not isinstance(query, str) or not query.strip():
            raise WebSearchError("'query' must be a non-empty string")
        if len(query) > MAX_QUERY_CHARS:
            raise WebSearchError(f"'query' is {len(query):,} characters; the limit is {MAX_QUERY_CHARS}")
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_RESULTS:
            raise WebSearchError(f"'count' must be an integer from 1 to {MAX_RESULTS}")
        data = await self._get({"q": " ".join(query.split()), "count": count})
        return {"query": query, "results": parse_brave(data, count), "source": "Brave Search", "note": NOTE}

    async def _get(self, params: dict[str, Any]) -> Any:
        headers = {"Accept": "application/json", "X-Subscription-Token": self._key}
        retries = 0
        waited = 0.0
        async with httpx.AsyncClient(transport=self.transport, timeout=self.timeout_s) as client:
            while True:
                retry_after: float | None = None
                try:
                    response = await client.get(BRAVE_URL, params=params, headers=headers)
                except (httpx.TimeoutException, httpx.TransportError) as exc:
                    failure = f"Brave Search unreachable ({type(exc).__name__})"
                else:
                    if response.status_code in (401, 403):
                        raise WebSearchError(
                            f"Brave Search refused the key (HTTP {response.status_code}); check BRAVE_API_KEY"
                        )
                    if response.status_code == 200:
                        try:
                            return response.json()
                        except ValueError:
                            failure = "Brave Search answered with something that is not JSON"
                    elif retryable_status(response.status_code):
                        failure = f"Brave Search answered HTTP {response.status_code}"
                        retry_after = parse_retry_after(response.headers)
                    else:
                        raise WebSearchError(f"Brave Search answered HTTP {response.status_code}")
                wait = self.policy.next_wait(retries, waited, retry_after)
                if wait is None:
                    raise WebSearchError(f"{failure}; gave up after {retries + 1} attempt(s)")
                await self.sleep(wait)
                retries += 1
                waited += wait


def web_search_status(settings: Any) -> tuple[bool, str]:
    """(offered, why) for `doctor` and the session: on with a key unless the session is offline."""
    key = getattr(settings, "brave_api_key", None)
    if key is None or not key.get_secret_value().strip():
        return False, "off: set BRAVE_API_KEY (Brave Search API) to give the survey and the prover a web search"
    if getattr(settings, "eurekaclaw_offline", False):
        return False, "off: EUREKACLAW_OFFLINE is set"
    return True, "on (Brave Search): offered to the survey and the prover"


def register_web_search_tool(registry: ToolRegistry, settings: Any) -> bool:
    """Register `web_search` when it is configured; whether it was."""
    offered, _ = web_search_status(settings)
    if offered:
        registry.register(
            WebSearchTool(
                settings.brave_api_key.get_secret_value(),
                timeout_s=float(getattr(settings, "literature_timeout_s", 20.0)),
            )
        )
    return offered
