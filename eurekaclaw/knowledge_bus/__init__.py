from eurekaclaw.knowledge_bus.bus import KnowledgeBus  # noqa: F401
