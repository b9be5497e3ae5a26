"""The EurekaError hierarchy.

Every error a user can cause carries a one-line message and an exit code, so the CLI can end in
one readable line instead of a traceback. Exit codes follow DESIGN.md §4.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_CONFIG = 3
EXIT_INTERRUPTED = 130


class EurekaError(Exception):
    """Base class: a user-facing message and the process exit code it maps to."""

    exit_code: int = EXIT_FAILED

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def user_message(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class BadInputError(EurekaError):
    """The user's input cannot be used: empty statement, bad id, unwritable path."""

    exit_code = EXIT_BAD_INPUT


class ConfigError(EurekaError):
    """A setting has an invalid value (exit 2: the user typed it)."""

    exit_code = EXIT_BAD_INPUT


class MissingConfigError(EurekaError):
    """Something needed is not configured or not installed (no LLM backend, no tool)."""

    exit_code = EXIT_CONFIG


class SessionNotFoundError(BadInputError):
    pass


class AmbiguousSessionError(BadInputError):
    pass


class RunInterrupted(EurekaError):
    """Ctrl+C or `eurekaclaw pause`: the session was checkpointed and can be resumed."""

    exit_code = EXIT_INTERRUPTED


class BudgetExceededError(EurekaError):
    """The next LLM call could take spending over the budget; the run stops at a checkpoint."""

    exit_code = EXIT_FAILED


class StageFailedError(EurekaError):
    exit_code = EXIT_FAILED


# --- LLM errors: classified by exception type / HTTP status, never by message text ---------


class LLMError(EurekaError):
    exit_code = EXIT_FAILED


class LLMRetryableError(LLMError):
    """429, 529, 5xx, timeouts, connection failures: worth waiting and trying again."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class LLMFatalError(LLMError):
    """A request the provider will never accept (400 invalid request, unknown model)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class LLMAuthError(LLMFatalError):
    """401/403: the key is wrong or lacks permission. Fix the configuration."""

    exit_code = EXIT_CONFIG


class LLMOutputError(LLMError):
    """The reply could not be used: truncated at max_tokens, or not valid for the schema
    even after one repair attempt. Callers handle this as a failed attempt."""

    def __init__(self, message: str, *, kind: str = "schema", raw: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.raw = raw
