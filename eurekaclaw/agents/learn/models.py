"""Structured replies the Learn stage asks the fast model for. Parsing is lenient item by
item (a small model's one bad insight must not sink the others); each item is checked after."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator


class InsightDraft(BaseModel):
    category: str = ""
    title: str = ""
    content: str = ""
    confidence: float = 0.0

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip().rstrip("%")
            try:
                number = float(text)
            except ValueError:
                return 0.0
            return number / 100 if value.strip().endswith("%") else number
        return value if value is not None else 0.0

    @field_validator("category", mode="before")
    @classmethod
    def _category(cls, value: Any) -> Any:
        return str(value or "").strip().lower().replace(" ", "_").replace("-", "_")


class InsightBatch(BaseModel):
    insights: list[InsightDraft] = Field(default_factory=list)


class MergeDecision(BaseModel):
    action: Literal["merge", "keep_both", "skip"]
    title: str = ""
    content: str = ""
