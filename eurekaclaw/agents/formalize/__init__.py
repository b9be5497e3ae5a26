"""Formalize stage: a statement becomes a formal theorem, a labelled proof plan and a lemma DAG."""
