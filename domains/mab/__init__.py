"""The multi-armed bandit domain plugin (reference implementation of a DomainPlugin).

Simulators and theory helpers import numpy; they load only when tools or experiments are used,
so discovering the plugin stays cheap.
"""

from domains.mab.plugin import MABPlugin

__all__ = ["MABPlugin"]
