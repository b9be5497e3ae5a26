"""Settings: every knob of the product, read from the environment, then ./.env, then
$EUREKACLAW_DIR/.env (earlier sources win).

`load_settings()` turns a validation failure into a ConfigError whose one line names the
variable and the allowed values, so a typo in .env never ends in a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal, cast, get_args, get_origin

from dotenv import dotenv_values
from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict, SettingsError

from eurekaclaw.errors import ConfigError

# The built-in LLM backends; plugins add theirs through this entry-point group
# (eurekaclaw/llm/registry.py). The one list: the registry and the settings both read it.
BUILTIN_BACKENDS = ("anthropic", "openai_compat", "local", "scripted", "replay", "schema")
LLM_BACKENDS_GROUP = "eurekaclaw.llm_backends"
BackendName = str


def installed_backend_names() -> list[str]:
    """Built-in backends, then the names plugins registered (without importing them)."""
    from importlib.metadata import entry_points

    plugins = sorted({ep.name.replace("-", "_") for ep in entry_points(group=LLM_BACKENDS_GROUP)})
    return [*BUILTIN_BACKENDS, *(p for p in plugins if p not in BUILTIN_BACKENDS)]


GateMode = Literal["none", "auto", "human"]


def known_gate_mode(value: str | None) -> GateMode | None:
    """`value` as a gate mode, None when it is not one (an old or edited session file)."""
    for mode in get_args(GateMode):
        if value == mode:
            return cast(GateMode, mode)
    return None


TheoryPipeline = Literal["default", "memory_guided"]
ExperimentMode = Literal["auto", "true", "false"]
OpenAIStructured = Literal["json_schema", "tool", "prompt"]
LLMStream = Literal["auto", "true", "false"]

DEFAULT_DIR = Path("~/.eurekaclaw")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="",
        case_sensitive=False,
        extra="ignore",
        env_ignore_empty=True,
        validate_default=True,
        # A budget or a timeout of inf/nan is never what a user meant (and inf is not JSON).
        allow_inf_nan=False,
    )

    # --- LLM backends --------------------------------------------------------------------
    llm_backend: BackendName | None = None
    # A second model for the reviewing roles (proof review, consistency), in --llm's form;
    # empty = the proving model reviews its own proofs (recorded as self-reviews).
    review_llm: str | None = None
    review_model: str | None = None  # the review backend's model (anthropic, openai_compat)
    anthropic_api_key: SecretStr | None = None
    anthropic_base_url: str | None = None
    eurekaclaw_model: str = "claude-sonnet-4-6"
    eurekaclaw_fast_model: str = "claude-haiku-4-5"
    openai_compat_base_url: str | None = None
    openai_compat_api_key: SecretStr | None = None
    openai_compat_model: str | None = None
    openai_compat_fast_model: str | None = None  # the "fast" tier; defaults to OPENAI_COMPAT_MODEL
    openai_compat_structured: OpenAIStructured = "json_schema"
    eurekaclaw_local_model: Path | None = None
    local_threads: int = Field(default=0, ge=0, le=256)
    local_context: int = Field(default=4096, ge=512, le=1_048_576)
    # One retry layer (eurekaclaw/http_retry.py): a call makes at most LLM_MAX_RETRIES + 1 requests.
    llm_max_retries: int = Field(default=6, ge=0, le=20)
    llm_retry_base_s: float = Field(default=10.0, ge=0.0, le=3600.0)
    llm_retry_max_s: float = Field(default=300.0, ge=0.0, le=86_400.0)  # one wait, Retry-After included
    llm_retry_total_s: float = Field(default=900.0, ge=0.0, le=86_400.0)  # all waits of one call
    llm_timeout_s: float = Field(default=600.0, gt=0.0, le=86_400.0)
    # Stream replies (eurekaclaw/llm/streaming.py): auto = when the live terminal display watches.
    llm_stream: LLMStream = "auto"

    # --- storage ----------------------------------------------------------------------------
    eurekaclaw_dir: Path = DEFAULT_DIR
    # auto: the packaged MiniLM model when installed (extra `embeddings`), else hashing
    eurekaclaw_embedder: Literal["auto", "hashing", "minilm"] = "auto"

    # --- pipeline -------------------------------------------------------------------------
    gate_mode: GateMode = "auto"
    stage_max_retries: int = Field(default=1, ge=0, le=10)
    theory_max_iterations: int = Field(default=10, ge=1, le=200)
    theory_pipeline: TheoryPipeline = "default"
    theory_concurrency: int = Field(default=4, ge=1, le=64)
    theory_max_replans: int = Field(default=2, ge=0, le=10)
    theory_fail_fast: bool = False  # stop starting lemmas once one has failed for good
    stagnation_window: int = Field(default=3, ge=2, le=50)
    experiment_mode: ExperimentMode = "auto"
    latex_timeout_s: float = Field(default=180.0, gt=0.0, le=3600.0)  # per paper compilation
    eurekaclaw_budget_usd: float | None = Field(default=None, ge=0.0)
    # A cap on tokens (input + output + cache) for models without a known price.
    eurekaclaw_budget_tokens: int | None = Field(default=None, ge=0)
    # USD per million input / output tokens of the configured model(s); both set = they price
    # every call of the session (they win over the built-in table).
    llm_price_input_per_m: float | None = Field(default=None, ge=0.0)
    llm_price_output_per_m: float | None = Field(default=None, ge=0.0)

    # --- mechanical verification (docs/verification.md) -------------------------------------
    falsifier_budget_s: float = Field(default=2.0, gt=0.0, le=600.0)
    smt_timeout_s: float = Field(default=10.0, gt=0.0, le=3600.0)
    # how long the other SMT solvers may still run once the first one gave up on a claim
    # (portfolio solving, docs/verification.md "Settings"); at most smt_timeout_s
    smt_second_opinion_s: float = Field(default=2.0, gt=0.0, le=3600.0)
    formal_timeout_s: float = Field(default=60.0, gt=0.0, le=86_400.0)
    lean_project_dir: Path | None = None  # a Lake project (e.g. with Mathlib) for `lake env lean`
    symbolic_timeout_s: float = Field(default=10.0, gt=0.0, le=600.0)  # per `symbolic` tool call (docs/tools.md)

    # --- per-call token limits ---------------------------------------------------------------
    max_tokens_default: int = Field(default=4096, ge=64, le=200_000)
    max_tokens_survey: int = Field(default=4096, ge=64, le=200_000)
    max_tokens_formalize: int = Field(default=8192, ge=64, le=200_000)
    max_tokens_prover: int = Field(default=8192, ge=64, le=200_000)
    max_tokens_verifier: int = Field(default=4096, ge=64, le=200_000)
    max_tokens_writer: int = Field(default=8192, ge=64, le=200_000)
    # Learn-stage replies (insights, distilled skills): a list of up to 6 insights or 4 skills
    # in JSON needs ~2–3k tokens; a cut-off reply is rejected, never half-used.
    max_tokens_learn: int = Field(default=4096, ge=256, le=200_000)

    # --- memory and skills (docs/memory-and-skills.md) ------------------------------------------
    # One budget per prompt, shared: the <memories> block takes at most half, skills the rest.
    memory_skill_token_budget: int = Field(default=2000, ge=0, le=100_000)

    # --- literature services -----------------------------------------------------------------
    s2_api_key: SecretStr | None = None
    # Brave Search API key: enables the `web_search` tool for the survey and the prover (docs/tools.md)
    brave_api_key: SecretStr | None = None
    openalex_mailto: str | None = None
    eurekaclaw_offline: bool = False  # no literature requests at all; cached answers only
    literature_cache_ttl_s: float = Field(default=7 * 86_400.0, ge=0.0)
    literature_timeout_s: float = Field(default=20.0, gt=0.0, le=600.0)
    literature_deadline_s: float = Field(default=60.0, gt=0.0, le=3600.0)  # per request, retries included
    literature_max_retries: int = Field(default=3, ge=0, le=10)
    literature_breaker_failures: int = Field(default=3, ge=1, le=100)
    literature_breaker_cooldown_s: float = Field(default=120.0, ge=0.0, le=86_400.0)
    arxiv_min_interval_s: float = Field(default=3.0, ge=0.0, le=60.0)
    s2_min_interval_s: float = Field(default=1.0, ge=0.0, le=60.0)
    openalex_min_interval_s: float = Field(default=0.1, ge=0.0, le=60.0)
    crossref_min_interval_s: float = Field(default=0.2, ge=0.0, le=60.0)
    survey_max_papers: int = Field(default=30, ge=1, le=200)

    # --- scoring ---------------------------------------------------------------------------------
    direction_weights: Annotated[tuple[float, float, float], NoDecode] = (0.4, 0.35, 0.25)
    eval_weights: Annotated[tuple[float, float, float, float, float], NoDecode] = (0.35, 0.25, 0.15, 0.15, 0.10)

    @field_validator("llm_backend")
    @classmethod
    def _known_backend(cls, value: str | None) -> str | None:
        if value is None:
            return None
        name = value.partition(":")[0].strip().replace("-", "_")
        allowed = installed_backend_names()
        if name not in allowed:
            raise ValueError(f"allowed values are {'|'.join(allowed)}")
        return value

    @field_validator("direction_weights", "eval_weights", mode="before")
    @classmethod
    def _parse_weights(cls, value: Any) -> Any:
        if isinstance(value, str):
            parts = [p.strip() for p in value.split(",") if p.strip()]
            return tuple(float(p) for p in parts)
        return value

    @field_validator("direction_weights", "eval_weights")
    @classmethod
    def _weights_non_negative(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        if any(w < 0 for w in value) or sum(value) <= 0:
            raise ValueError("weights must be non-negative with a positive sum")
        return value

    @field_validator("eurekaclaw_dir", mode="after")
    @classmethod
    def _expand_dir(cls, value: Path) -> Path:
        return Path(os.path.expandvars(str(value))).expanduser()

    # --- derived --------------------------------------------------------------------------------
    @property
    def runs_dir(self) -> Path:
        return self.eurekaclaw_dir / "runs"

    def max_tokens_for(self, call_type: str) -> int:
        return int(getattr(self, f"max_tokens_{call_type}", self.max_tokens_default))


def _allowed_values(field_name: str) -> str | None:
    """The Literal choices of a field (through Optional), e.g. 'none|auto|human'."""
    pending = [Settings.model_fields[field_name].annotation]
    literals: list[str] = []
    while pending:
        ann = pending.pop()
        if get_origin(ann) is Literal:
            literals.extend(str(v) for v in get_args(ann))
        else:
            pending.extend(a for a in get_args(ann) if a is not type(None))
    return "|".join(literals) if literals else None


def _error_line(exc: ValidationError) -> str:
    err = exc.errors()[0]
    field_name = str(err["loc"][0]) if err.get("loc") else "?"
    var = field_name.upper()
    allowed = _allowed_values(field_name) if field_name in Settings.model_fields else None
    got = err.get("input")
    got_text = f" (got {got!r})" if got is not None and not isinstance(got, dict) else ""
    if allowed:
        return f"invalid setting {var}{got_text}: allowed values are {allowed}"
    return f"invalid setting {var}{got_text}: {err.get('msg', 'invalid value')}"


def _dir_from_sources() -> Path:
    raw = os.environ.get("EUREKACLAW_DIR") or dotenv_values(".env").get("EUREKACLAW_DIR")
    return Path(os.path.expandvars(raw or str(DEFAULT_DIR))).expanduser()


def load_settings(**overrides: Any) -> Settings:
    """Build Settings from env, ./.env and $EUREKACLAW_DIR/.env; raise ConfigError on a bad value."""
    home_env = _dir_from_sources() / ".env"
    # pydantic-settings lets later env files win, and real environment variables beat both.
    env_files = tuple(str(p) for p in (home_env, Path(".env")) if p.is_file())
    try:
        return Settings(_env_file=env_files or None, **overrides)  # type: ignore[call-arg]  # pydantic-settings init kwarg
    except ValidationError as exc:
        raise ConfigError(_error_line(exc)) from None
    except SettingsError as exc:
        raise ConfigError(f"invalid setting: {exc}") from None
