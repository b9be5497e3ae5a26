"""Pydantic models only: artifacts, tasks, memory records and skills. No I/O."""

from eurekaclaw.types.artifacts import *  # noqa: F401,F403
from eurekaclaw.types.memory import *  # noqa: F401,F403
from eurekaclaw.types.skills import *  # noqa: F401,F403
from eurekaclaw.types.tasks import *  # noqa: F401,F403
