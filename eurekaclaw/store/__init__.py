"""Session directories, atomic JSON writes, file locks and checkpoints."""

from eurekaclaw.store.files import (  # noqa: F401
    append_jsonl,
    atomic_write_json,
    atomic_write_text,
    file_lock,
    quarantine,
    read_json,
    read_jsonl,
    read_model,
    update_json,
)
from eurekaclaw.store.session import SessionDir, Workspace  # noqa: F401
