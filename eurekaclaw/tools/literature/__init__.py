"""Literature services (arXiv, Semantic Scholar, OpenAlex, CrossRef), dedup and the citation
verification ladder. See docs/survey.md."""

from eurekaclaw.tools.literature.ids import parse_paper_id, validate_paper_ids

__all__ = ["parse_paper_id", "validate_paper_ids"]
