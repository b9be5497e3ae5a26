"""Skills: SKILL.md folders from the user dir, domain plugins and the built-in seeds; the
registry with usage statistics, the injector that picks a few for a prompt, the evolver that
distils new ones after a session, and installation from folders, archives and git."""
