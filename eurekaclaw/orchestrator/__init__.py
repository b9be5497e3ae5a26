"""MetaOrchestrator, the stage pipeline, gates and progress display."""
