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
        from eurekaclaw.redact import scrub

        return scrub(f"{self.message} ({self.hint})" if self.hint else self.message)


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

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        reason: str | None = None,
        usage: object | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        # a short label for the record: rate_limited, overloaded, http_503, timeout, connection,
        # bad_body, error_in_body, no_choices
        self.reason = reason or (f"http_{status}" if status else "error")
        self.usage = usage  # tokens the server billed for this failed attempt, when it said


class LLMFatalError(LLMError):
    """A request the provider will never accept (400 invalid request, unknown model). `usage`:
    what the attempt may have cost when the refusal came inside a stream that had already sent
    tokens (a moderation stop), so the ledger books it."""

    def __init__(self, message: str, *, status: int | None = None, usage: object | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.usage = usage


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


# --- storage -------------------------------------------------------------------------------------

_STORAGE_FIXES = {
    "ENOSPC": "free space",
    "EDQUOT": "free space (disk quota exceeded)",
    "EROFS": "make the file system writable",
    "EACCES": "make the directory writable for this user",
    "EPERM": "make the directory writable for this user",
}


class StorageError(EurekaError, OSError):
    """A session file could not be written (disk full, read-only, permissions). Still an OSError
    for callers that tolerate a failed write (the HTTP cache); the CLI shows one line naming the
    path and the fix, and the session stays resumable from its last checkpoint."""

    exit_code = EXIT_FAILED

    def __init__(self, path: object, cause: OSError, *, session_id: str | None = None) -> None:
        import errno as _errno
        import os as _os

        self.path = str(path)
        self.cause = cause
        self.errno_name = _errno.errorcode.get(cause.errno or 0, "")
        self.session_id = session_id
        reason = _os.strerror(cause.errno) if cause.errno else str(cause)
        super().__init__(f"cannot write {self.path}: {reason}", hint=self._fix())
        self.errno = cause.errno
        self.strerror = reason
        self.filename = self.path

    def _fix(self) -> str:
        fix = _STORAGE_FIXES.get(self.errno_name, "check the disk and the directory's permissions")
        if self.session_id:
            return f"{fix}, then `eurekaclaw resume {self.session_id}`"
        return f"{fix}, then run the command again"

    def for_session(self, session_id: str) -> StorageError:
        """The same error, with the resume command of the session it interrupted."""
        err = StorageError(self.path, self.cause, session_id=session_id)
        return err

    def __str__(self) -> str:
        return self.user_message()


def storage_errors(errno_value: int | None) -> bool:
    """Whether an OSError is the disk's or the permissions' fault (not a bug)."""
    import errno as _errno

    return errno_value in {_errno.ENOSPC, _errno.EDQUOT, _errno.EROFS, _errno.EACCES, _errno.EPERM}
