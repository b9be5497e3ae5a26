"""Stage 1, the literature survey: PaperFetcher, Summarizer, GapAnalyst, DirectionProposer and
the SurveyStage that runs them. See docs/survey.md."""

from eurekaclaw.agents.survey.stage import SurveyStage
from eurekaclaw.tools.literature.ids import validate_paper_ids

__all__ = ["SurveyStage", "validate_paper_ids"]
