"""`eurekaclaw review <session>`: questions about a finished paper and prose revisions of it.

Answers and revisions are held to the session's records: a lemma's verification level and the
theorem's status come from theory_state.json, never from the model, and a revision rewrites only
the prose around them (statements, proofs and levels are the checkers' to change).
"""
