"""Configurations from the command line.

`--config default` and `--config memory_guided` are the two theory pipelines; any other
configuration is `LABEL:key=value,key=value`, where a key is `llm`, `review_llm`, `pipeline`
or the lower-case name of a setting (e.g. `theory_max_iterations=4`). `--llm A --llm B` without
`--config` compares two models with everything else equal.
"""

from __future__ import annotations

import re
from pathlib import Path

from eurekaclaw.bench.models import BenchConfig
from eurekaclaw.errors import BadInputError

DEMO_DIR = Path(__file__).resolve().parent / "demo"
PRESETS = {"default": {"theory_pipeline": "default"}, "memory_guided": {"theory_pipeline": "memory_guided"}}
ALIASES = {"pipeline": "theory_pipeline", "review-llm": "review_llm", "max_iterations": "theory_max_iterations"}


def demo_configs() -> list[BenchConfig]:
    """The honest model; the careless one reviewing itself; the careless one with the honest
    model as its independent reviewer (--review-llm)."""
    honest, careless = f"scripted:{DEMO_DIR / 'honest.py'}", f"scripted:{DEMO_DIR / 'careless.py'}"
    return [
        BenchConfig(label="honest", llm=honest),
        BenchConfig(label="careless", llm=careless),
        BenchConfig(label="careless-reviewed", llm=careless, review_llm=honest),
    ]


def _label_for(llm: str) -> str:
    name, _, arg = llm.partition(":")
    if name == "scripted" and arg:
        name = Path(arg).stem
    elif arg:
        name = f"{name}-{arg}"
    label = re.sub(r"[^A-Za-z0-9_.+-]+", "-", name).strip("-.") or "model"
    return label[:60]


def parse_config(spec: str, default_llm: str | None, review_llm: str | None) -> BenchConfig:
    from eurekaclaw.config import Settings

    spec = spec.strip()
    if spec in PRESETS:
        return BenchConfig(label=spec, llm=default_llm, review_llm=review_llm, settings=dict(PRESETS[spec]))
    label, sep, rest = spec.partition(":")
    if not sep or "=" in label or not label:
        raise BadInputError(
            f"--config {spec!r}: use default, memory_guided, or LABEL:key=value,... (e.g. fast:theory_max_iterations=3)"
        )
    fields: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        key = ALIASES.get(key.strip().lower(), key.strip().lower().replace("-", "_"))
        if not eq or not value.strip():
            raise BadInputError(f"--config {spec!r}: {item!r} is not key=value")
        if key not in ("llm", "review_llm") and key not in Settings.model_fields:
            raise BadInputError(f"--config {spec!r}: unknown setting {key!r}")
        if "api_key" in key:
            raise BadInputError(f"--config {spec!r}: keys belong in the environment or .env, not on the command line")
        fields[key] = value.strip()
    llm = fields.pop("llm", default_llm)
    review = fields.pop("review_llm", review_llm)
    if fields.get("theory_pipeline") is None and label in PRESETS:
        fields["theory_pipeline"] = PRESETS[label]["theory_pipeline"]
    try:
        return BenchConfig(label=label, llm=llm, review_llm=review, settings=fields)
    except ValueError:
        raise BadInputError(f"--config {spec!r}: a label is letters, digits and _.+- (at most 60)") from None


def build_configs(config_specs: list[str], llms: list[str], review_llm: str | None) -> list[BenchConfig]:
    if config_specs:
        if len(llms) > 1:
            raise BadInputError(
                "with --config, give at most one --llm (the default model); put others in "
                "the configurations, e.g. --config a:llm=anthropic"
            )
        configs = [parse_config(s, llms[0] if llms else None, review_llm) for s in config_specs]
    elif llms:
        configs = [BenchConfig(label=_label_for(llm), llm=llm, review_llm=review_llm) for llm in llms]
    else:
        configs = [BenchConfig(label="default", review_llm=review_llm, settings=dict(PRESETS["default"]))]
    labels = [c.label for c in configs]
    duplicates = sorted({x for x in labels if labels.count(x) > 1})
    if duplicates:
        raise BadInputError(f"two configurations are called {', '.join(duplicates)}: label them (LABEL:llm=...)")
    return configs
