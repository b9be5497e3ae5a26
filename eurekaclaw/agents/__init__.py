"""Stage agents, one sub-package per stage; BaseAgent lives in agents/base.py."""
