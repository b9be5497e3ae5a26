"""LLM layer: request/response types, backends, structured output, usage ledger and budget."""

from eurekaclaw.llm.types import (  # noqa: F401
    LLMClient,
    LLMRequest,
    LLMResponse,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
