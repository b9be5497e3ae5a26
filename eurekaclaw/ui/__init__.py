"""`eurekaclaw ui`: a local web app beside the CLI (same orchestrator entry points and session
store, no state of its own), guarded by a per-start token and bound to 127.0.0.1 by default."""
