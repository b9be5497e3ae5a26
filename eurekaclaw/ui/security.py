"""The UI's guard: a random token on every request, Host checks against DNS rebinding, CSRF
tokens on state-changing requests, and headers that keep pages from being framed or sniffed.

The browser presents the token once in the URL printed at start; the guard swaps it for an
HttpOnly, SameSite=Strict cookie and redirects to the same page without it, so the token does
not linger in the address bar or in the history. `--open` hands the browser a one-time launch
code instead (/open/<code>, single use, short-lived), so the token never appears on any
process's command line. Every redirect stays on this origin (see local_location).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import threading
import time
from collections.abc import Awaitable, Callable
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode

COOKIE_PREFIX = "eurekaclaw_ui_"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}

SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"object-src 'self'; frame-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'self'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),  # no-referrer would make form posts say Origin: null
    (b"x-frame-options", b"SAMEORIGIN"),
    (b"cache-control", b"no-store"),
]


def new_token() -> str:
    return secrets.token_urlsafe(32)


def same(a: str | None, b: str) -> bool:
    """Constant-time comparison; a missing value never matches."""
    if not a:
        return False
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


def cookie_name(token: str) -> str:
    """Per server instance: cookies ignore ports, so two servers on one host would otherwise
    overwrite each other's cookie. Derived from the token without revealing it."""
    return COOKIE_PREFIX + hashlib.sha256(token.encode("utf-8")).hexdigest()[:10]


def csrf_token(token: str) -> str:
    """Derived from the session token, so the server keeps nothing to check it against."""
    return hmac.new(token.encode("utf-8"), b"eurekaclaw-ui-csrf", hashlib.sha256).hexdigest()


LAUNCH_PREFIX = "/open/"
LAUNCH_TTL_S = 120.0
# characters a path keeps unencoded in a Location header; everything else (backslash, %, control
# characters, non-Latin-1 text) is percent-encoded
_PATH_SAFE = "/:@!$&'()*+,;=-._~"


def is_local(location: str) -> bool:
    """A Location a browser resolves on this origin: one leading "/", never "//" or "/\\" (which
    browsers read as another host), and no control characters, also after percent-decoding."""
    decoded = unquote(location)
    if not decoded.startswith("/") or decoded.startswith(("//", "/\\")):
        return False
    return not any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in decoded)


def local_location(path: str, query: str = "") -> str:
    """The Location for `path` (a decoded request path) on this origin, or "/" when it cannot
    be made one: leading slashes, backslashes and blanks are dropped, the rest percent-encoded."""
    rest = path.lstrip("/\\ \t\r\n")
    location = "/" + quote(rest, safe=_PATH_SAFE) + (f"?{query}" if query else "")
    return location if is_local(location) else "/"


class LaunchCodes:
    """One-time codes that open the app in a browser without the token on its command line:
    each is good once, for LAUNCH_TTL_S seconds."""

    def __init__(self, ttl_s: float = LAUNCH_TTL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s, self.clock = ttl_s, clock
        self._codes: dict[str, float] = {}
        self._lock = threading.Lock()

    def issue(self) -> str:
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes[code] = self.clock() + self.ttl_s
        return code

    def redeem(self, code: str) -> bool:
        """True once for a fresh code; a used, expired or unknown code is False."""
        with self._lock:
            now = self.clock()
            for known in list(self._codes):
                if self._codes[known] < now:
                    del self._codes[known]
            match = next((known for known in self._codes if same(code, known)), None)
            if match is None:
                return False
            del self._codes[match]
            return True


def is_loopback(host: str) -> bool:
    host = host.strip("[]")
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, port: int) -> set[str]:
    """Host header values this server answers to: the bound address and, on loopback, the
    usual loopback names; on a wildcard address (--allow-remote) the machine's own names and
    addresses. A rebinding attacker's name never matches."""
    candidates = {host}
    if host in ("0.0.0.0", "::", ""):
        candidates |= _own_names() | {"localhost", "127.0.0.1", "::1"}
    if is_loopback(host):
        candidates |= {"localhost", "127.0.0.1", "::1"}
    names = {(f"[{n}]" if ":" in n and not n.startswith("[") else n).lower() for n in candidates if n}
    hosts = {f"{n}:{port}" for n in names}
    return hosts | names if port == 80 else hosts


def _own_names() -> set[str]:
    import socket

    names = {socket.gethostname(), socket.getfqdn()}
    try:
        names |= set(socket.gethostbyname_ex(socket.gethostname())[2])
    except OSError:
        pass
    return names


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


def _cookie(scope: dict[str, Any], name: str) -> str | None:
    raw = _header(scope, b"cookie")
    if not raw:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw)
    except Exception:  # noqa: BLE001 - a malformed cookie header is just no cookie
        return None
    morsel = jar.get(name)
    return morsel.value if morsel else None


def _bearer(scope: dict[str, Any]) -> str | None:
    raw = _header(scope, b"authorization") or ""
    scheme, _, value = raw.partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


ASGIApp = Callable[[dict[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


class Guard:
    """ASGI middleware: Host check, then token (query → cookie, cookie, or bearer header)."""

    def __init__(self, app: ASGIApp, *, token: str, hosts: set[str], launch: LaunchCodes | None = None) -> None:
        self.app = app
        self.token = token
        self.hosts = {h.lower() for h in hosts}
        self.launch = launch or LaunchCodes()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":  # the app has no websocket routes
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return
        host = (_header(scope, b"host") or "").lower()
        if host not in self.hosts:
            await _plain(
                send,
                421,
                "This server answers only to its own address "
                "(the Host header did not match; DNS rebinding is refused).",
            )
            return
        path = str(scope.get("path") or "/")
        if path.startswith(LAUNCH_PREFIX):
            if not self.launch.redeem(path[len(LAUNCH_PREFIX) :]):
                await _plain(
                    send, 401, "This launch link was already used or has expired: `eurekaclaw ui --url` prints the URL."
                )
                return
            await _redirect_with_cookie(send, "/", self.token)
            return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True))
        if "token" in query:
            if not same(query["token"], self.token):
                await _plain(send, 401, "Wrong token: open the URL that `eurekaclaw ui` printed.")
                return
            rest = {k: v for k, v in query.items() if k != "token"}
            await _redirect_with_cookie(send, local_location(path, urlencode(rest)), self.token)
            return
        if not (same(_cookie(scope, cookie_name(self.token)), self.token) or same(_bearer(scope), self.token)):
            await _plain(send, 401, "Missing or wrong token: open the URL that `eurekaclaw ui` printed.")
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k, v) for k, v in SECURITY_HEADERS if k not in present
                ]
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _plain(send: Any, status: int, text: str) -> None:
    body = text.encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _redirect_with_cookie(send: Any, location: str, token: str) -> None:
    location = location if is_local(location) else "/"  # never off this origin, whatever the caller built
    cookie = f"{cookie_name(token)}={token}; HttpOnly; SameSite=Strict; Path=/"
    await send(
        {
            "type": "http.response.start",
            "status": 303,
            "headers": [
                (b"location", location.encode("latin-1")),
                (b"set-cookie", cookie.encode("latin-1")),
                (b"content-length", b"0"),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})
