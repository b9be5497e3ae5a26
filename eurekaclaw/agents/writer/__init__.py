"""Stage 5, Write: a LaTeX + Markdown paper whose statements and proofs are the checked ones."""

from eurekaclaw.agents.writer.stage import WriterAgent, WriteStage

__all__ = ["WriteStage", "WriterAgent"]
