"""`eurekaclaw doctor`: configuration and optional tools, without network unless asked.

The checkers and the tools they need come from the checker registry (eurekaclaw/verify/
registry.py), third-party ones and entry points that failed to load included; the tables below
list only the tools no checker declares."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import shutil
import subprocess
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from eurekaclaw.config import Settings, load_settings
from eurekaclaw.errors import EurekaError

EXECUTABLES = {
    "latexmk": ("-v", "compiles paper.pdf; install `latexmk` and the TeX set (README)"),
    "pdflatex": ("--version", "fallback LaTeX compiler"),
    "bibtex": ("--version", "bibliography for the paper"),
    "pdftotext": ("-v", "reads PDFs (poppler-utils)"),
    "git": ("--version", "install-skills from a git URL"),
}
MODULES = {
    "llama_cpp": ("llama-cpp-python", "local model backend (extra `local`)"),
    "numba": ("numba", "compiled Thompson-sampling kernel for bandit simulations (extra `fast`)"),
}
ONLINE_PROBES = {
    "arXiv": "https://export.arxiv.org/api/query?id_list=1706.03762&max_results=1",
    "Semantic Scholar": "https://api.semanticscholar.org/graph/v1/paper/arXiv:1706.03762?fields=title",
    "OpenAlex": "https://api.openalex.org/works?search=bandit&per_page=1",
    "CrossRef": "https://api.crossref.org/works?rows=1",
}


def _version(exe: str, flag: str) -> str | None:
    try:
        proc = subprocess.run([exe, flag], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (proc.stdout or proc.stderr).strip().splitlines()
    return text[0][:120] if text else "unknown version"


def _checker_tools(listed: set[str]) -> list[dict[str, Any]]:
    """A row for each program or module a registered checker declares (once per name)."""
    from eurekaclaw.verify import registry
    from eurekaclaw.verify.checker import Requirement

    rows: list[dict[str, Any]] = []
    for chk in registry.all_checkers():
        for req in getattr(chk, "requirements", ()):  # optional in the Checker protocol
            if not isinstance(req, Requirement) or req.name in listed:
                continue
            listed.add(req.name)
            found = req.found()
            if req.module:
                version = (req.dist_version() or "installed") if found else None
            else:
                version = _version(req.name, "--version") if found else None
            rows.append({"name": req.name, "available": found, "version": version, "purpose": req.purpose})
    return rows


def _backend_summary(settings: Settings) -> dict[str, Any]:
    from eurekaclaw.llm.select import choose_backend

    try:
        name, arg = choose_backend(settings)
    except EurekaError as exc:
        return {"backend": None, "problem": exc.user_message()}
    info: dict[str, Any] = {"backend": name}
    if name == "anthropic":
        info.update(
            model=settings.eurekaclaw_model,
            fast_model=settings.eurekaclaw_fast_model,
            base_url=settings.anthropic_base_url or "default",
        )
    elif name == "openai_compat":
        info.update(model=settings.openai_compat_model, base_url=settings.openai_compat_base_url)
    elif name == "local":
        from eurekaclaw.llm.local_models import resolve_model

        try:
            model_name, path = resolve_model(settings)
            info.update(model=model_name, path=str(path))
        except EurekaError as exc:
            info.update(problem=exc.user_message())
    elif arg:
        info["argument"] = arg
    return info


def _review_summary(settings: Settings) -> dict[str, Any]:
    """Who reviews proofs: a configured second model, or the proving model (self-reviews)."""
    if not settings.review_llm:
        return {"backend": None, "note": "not set: the proving model reviews its own proofs (self-reviews)"}
    from eurekaclaw.llm.select import choose_backend

    try:
        name, arg = choose_backend(settings, settings.review_llm)
    except EurekaError as exc:
        return {"backend": None, "problem": exc.user_message()}
    info: dict[str, Any] = {"backend": name, "model": settings.review_model or "the backend's default"}
    if arg:
        info["argument"] = arg
    return info


def _sandbox_summary() -> dict[str, Any]:
    """The bubblewrap sandbox that runs model-written code, coqc and latexmk (sandbox/)."""
    from eurekaclaw import sandbox

    info = sandbox.status().as_dict()
    if not info["available"]:
        info["effect"] = "code experiments, Coq checks and sandboxed LaTeX are off"
    return info


def profile_overrides(settings: Settings, backend_name: str | None) -> dict[str, Any]:
    """The demonstration values a run would use with this backend (a small local model asks for
    one attempt per lemma, …), minus what the user set: what a session really runs with."""
    if backend_name is None:
        return {}
    from eurekaclaw.llm.select import build_backend

    try:
        backend = build_backend(settings, backend_name, None)
        profile = getattr(backend, "demonstration_profile", None)
        wanted = profile() if callable(profile) else {}
    except Exception:  # noqa: BLE001 - the backend line already reports what is wrong
        return {}
    return {k: v for k, v in wanted.items() if k not in settings.model_fields_set}


def _web_search_summary(settings: Settings) -> dict[str, Any]:
    """Whether the optional web search (BRAVE_API_KEY) is offered; never shows the key."""
    from eurekaclaw.tools.web_search import web_search_status

    configured, detail = web_search_status(settings)
    return {"configured": configured, "detail": detail}


def _home_problem(settings: Settings) -> str | None:
    from pathlib import Path

    from eurekaclaw.orchestrator.inputs import check_home_dir

    try:
        check_home_dir(Path(settings.eurekaclaw_dir))
    except EurekaError as exc:
        return exc.user_message()
    return None


def doctor_report(*, online: bool = False) -> dict[str, Any]:
    from eurekaclaw.orchestrator.inputs import check_env_files

    check_env_files()  # a FIFO named .env would block the settings forever
    settings = load_settings()
    llm = _backend_summary(settings)
    # only backends that carry a profile; scripted/replay need arguments doctor does not have
    overrides = profile_overrides(settings, llm.get("backend")) if llm.get("backend") == "local" else {}
    if overrides:
        settings = settings.model_copy(update=overrides)
    report: dict[str, Any] = {
        "eurekaclaw_dir": str(settings.eurekaclaw_dir),
        "eurekaclaw_dir_problem": _home_problem(settings),
        "llm": llm,
        "settings_profile": overrides,
        "review_llm": _review_summary(settings),
        "settings": {
            "gate_mode": settings.gate_mode,
            "theory_pipeline": settings.theory_pipeline,
            "theory_max_iterations": settings.theory_max_iterations,
            "theory_concurrency": settings.theory_concurrency,
            "experiment_mode": settings.experiment_mode,
            "budget_usd": settings.eurekaclaw_budget_usd,
            "llm_stream": settings.llm_stream,
            "s2_api_key": settings.s2_api_key is not None,
            "openalex_mailto": settings.openalex_mailto,
        },
        "tools": [],
        "checkers": [],
        "sandbox": _sandbox_summary(),
        "web_search": _web_search_summary(settings),
    }
    for exe, (flag, purpose) in EXECUTABLES.items():
        path = shutil.which(exe)
        report["tools"].append(
            {
                "name": exe,
                "available": path is not None,
                "version": _version(exe, flag) if path else None,
                "purpose": purpose,
            }
        )
    for module, (dist, purpose) in MODULES.items():
        found = importlib.util.find_spec(module) is not None
        version = None
        if found:
            try:
                version = importlib.metadata.version(dist)
            except importlib.metadata.PackageNotFoundError:
                version = "installed"
        report["tools"].append({"name": module, "available": found, "version": version, "purpose": purpose})
    report["tools"].extend(_checker_tools({t["name"] for t in report["tools"]}))
    from eurekaclaw.verify.checkers import available_checkers

    report["checkers"].extend(info.model_dump() for info in available_checkers())
    if online:
        report["online"] = _probe_online()
    return report


def _probe_online() -> dict[str, str]:
    import httpx

    results = {}
    with httpx.Client(timeout=8.0, follow_redirects=True) as client:
        for name, url in ONLINE_PROBES.items():
            try:
                resp = client.get(url)
                results[name] = f"HTTP {resp.status_code}"
            except httpx.HTTPError as exc:
                results[name] = f"unreachable ({type(exc).__name__})"
    return results


def _checker_status(chk: dict[str, Any]) -> Text:
    if chk.get("problem"):
        return Text("problem", style="red")
    return Text("available", style="green") if chk.get("available") else Text("unavailable", style="yellow")


def _checkers_table(checkers: list[dict[str, Any]]) -> Table:
    """The registered checkers, third-party ones with their entry point, and the problems."""
    table = Table(title="proof checkers", show_header=True)
    for col in ("checker", "kind", "status", "version", "detail"):
        table.add_column(col, overflow="fold")
    for chk in checkers:
        detail = str(chk.get("detail") or "")
        source = str(chk.get("source") or "")
        if source and source != "built-in":
            detail = f"{detail} [{source}]"
        # Text, not markup: a plugin's strings are shown as written ("[...]" is not a style)
        cells = (str(chk.get("name")), str(chk.get("kind") or ""))
        table.add_row(*map(Text, cells), _checker_status(chk), Text(str(chk.get("version") or "")), Text(detail))
    return table


def render_doctor(report: dict[str, Any]) -> Group:
    llm = report["llm"]
    lines: list[Any] = [Text(f"EUREKACLAW_DIR: {report['eurekaclaw_dir']}")]
    if report.get("eurekaclaw_dir_problem"):
        lines.append(Text(f"EUREKACLAW_DIR unusable — {report['eurekaclaw_dir_problem']}", style="red"))
    if llm.get("backend"):
        details = ", ".join(f"{k}={v}" for k, v in llm.items() if k != "backend")
        lines.append(Text(f"LLM backend: {llm['backend']} ({details})", style="green"))
    else:
        lines.append(Text(f"LLM backend: none — {llm.get('problem')}", style="red"))
    review = report.get("review_llm") or {}
    if review.get("backend"):
        details = ", ".join(f"{k}={v}" for k, v in review.items() if k != "backend")
        lines.append(Text(f"review model: {review['backend']} ({details})", style="green"))
    else:
        lines.append(
            Text(
                f"review model: {review.get('problem') or review.get('note', 'not set')}",
                style="red" if review.get("problem") else "yellow",
            )
        )
    box = report.get("sandbox") or {}
    if box.get("available"):
        lines.append(Text(f"sandbox: {box.get('reason')}", style="green"))
    elif box:
        lines.append(Text(f"sandbox: unavailable — {box.get('reason')}; {box.get('effect')}", style="red"))
    web = report.get("web_search") or {}
    if web:
        lines.append(Text(f"web search: {web.get('detail')}", style="green" if web.get("configured") else "yellow"))
    lines.append(Text("settings: " + ", ".join(f"{k}={v}" for k, v in report["settings"].items())))
    if report.get("settings_profile"):
        shown = ", ".join(f"{k.upper()}={v}" for k, v in report["settings_profile"].items())
        lines.append(
            Text(f"demonstration settings for this backend (set them yourself to override): {shown}", style="yellow")
        )
    table = Table(title="optional tools", show_header=True)
    for col in ("tool", "status", "version", "used for"):
        table.add_column(col, overflow="fold")
    for tool in report["tools"]:
        status = Text("found", style="green") if tool["available"] else Text("missing", style="yellow")
        table.add_row(tool["name"], status, tool["version"] or "", tool["purpose"])
    lines.append(table)
    if report["checkers"]:
        lines.append(_checkers_table(report["checkers"]))
    if "online" in report:
        lines.append(Text("online: " + ", ".join(f"{k}: {v}" for k, v in report["online"].items())))
    return Group(*lines)
