"""The one door for model text (DESIGN.md, "Generate, don't filter").

Every model string that reaches a reader passes here: JSON-decoded control characters turned back
into the LaTeX they were, invisible characters and hyphen variants undone, the paper's own macros
and tables removed, and every sentence that speaks of how something was checked, or states a proof
status about our own results, refused (deny by default: stems, not phrases). What was proved, at
which level and how is then written by EurekaClaw from its records. Stdlib only: llm/, memory/,
review/ and agents/ all use it.
"""

from eurekaclaw.model_text.forged import is_writer_macro, strip_forged, writer_macros
from eurekaclaw.model_text.normalise import for_analysis, for_display, restore_in, restore_latex_escapes
from eurekaclaw.model_text.sentences import Quarantined, quarantine, spans, split
from eurekaclaw.model_text.vocabulary import Finding, Mode, exempt_view, judge

__all__ = [
    "Finding",
    "Mode",
    "Quarantined",
    "exempt_view",
    "for_analysis",
    "for_display",
    "is_writer_macro",
    "judge",
    "quarantine",
    "restore_in",
    "restore_latex_escapes",
    "spans",
    "split",
    "strip_forged",
    "writer_macros",
]
