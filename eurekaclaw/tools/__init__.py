"""Tools agents can call: BaseTool, ToolRegistry, literature clients, sandboxed code execution."""

from eurekaclaw.tools.base import BaseTool, ToolRegistry, run_tool_loop  # noqa: F401
