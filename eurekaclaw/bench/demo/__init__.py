"""Scripted models for the demonstration bench (`eurekaclaw bench --demo`): an honest one and a
careless one, loaded as `--llm scripted:<file>`; no model and no network involved."""
