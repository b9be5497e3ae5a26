"""The four memory tiers (episodic, persistent, knowledge graph, domain insights)."""
