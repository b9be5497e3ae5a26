"""Calls per proof: model calls and tokens spent per proved lemma and per failed one, and what
the repair rounds went on (formal errors, review, consistency, refutation, ...).

The numbers come from the session's usage ledger (every call is attributed to its lemma) and
the theory state's outcomes; the repair rounds are counted by the loop where they are asked for.
Written to `proof_costs.json` in the session directory (the terminal's one line and `--json`
read it there) and kept on the bus so a resumed run adds to its counts. Light imports only: the
CLI reads this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

COSTS_FILE = "proof_costs.json"
# What a repair round after a failure of each category was spent on.
REPAIR_PURPOSE = {
    "formal_check": "formal",
    "mechanical_check": "mechanical",
    "counterexample": "refutation",
    "unparseable": "unreadable",
}
PURPOSES = ("formal", "review", "consistency", "refutation", "mechanical", "unreadable")


def repair_purpose(category: str) -> str:
    return REPAIR_PURPOSE.get(category, "review")


def _tokens(row: dict[str, Any]) -> int:
    return int(row.get("input_tokens", 0)) + int(row.get("output_tokens", 0))


def _group(ids: list[str], by_lemma: dict[str, dict[str, Any]]) -> dict[str, Any]:
    calls = sum(int(by_lemma.get(lid, {}).get("calls", 0)) for lid in ids)
    tokens = sum(_tokens(by_lemma.get(lid, {})) for lid in ids)
    n = len(ids)
    return {
        "lemmas": n,
        "calls": calls,
        "tokens": tokens,
        "calls_per_lemma": round(calls / n, 2) if n else None,
        "tokens_per_lemma": round(tokens / n) if n else None,
    }


def proof_costs(
    outcomes: dict[str, str], by_lemma: dict[str, dict[str, Any]], repairs: dict[str, int]
) -> dict[str, Any]:
    """`outcomes`: lemma id -> proved | failed | refuted | unused | open."""
    proved = sorted(lid for lid, o in outcomes.items() if o == "proved")
    failed = sorted(lid for lid, o in outcomes.items() if o in ("failed", "refuted"))
    return {
        "proved": _group(proved, by_lemma),
        "failed": _group(failed, by_lemma),
        "per_lemma": {
            lid: {
                "outcome": outcome,
                "calls": int(by_lemma.get(lid, {}).get("calls", 0)),
                "tokens": _tokens(by_lemma.get(lid, {})),
            }
            for lid, outcome in sorted(outcomes.items())
        },
        "repairs": {p: int(repairs.get(p, 0)) for p in (*PURPOSES, *sorted(set(repairs) - set(PURPOSES)))},
    }


def _each(group: dict[str, Any]) -> str:
    if not group.get("lemmas"):
        return "0"
    return f"{group['lemmas']} ({group['calls_per_lemma']:g} calls, {group['tokens_per_lemma']:,} tokens each)"


def costs_line(data: dict[str, Any]) -> str:
    """One line for the terminal."""
    repairs = ", ".join(f"{k} {v}" for k, v in (data.get("repairs") or {}).items() if v) or "none"
    return (
        f"calls per proof: proved {_each(data.get('proved') or {})}; failed {_each(data.get('failed') or {})}; "
        f"repair rounds: {repairs}"
    )


def read_costs(session_dir: str | Path | None) -> dict[str, Any]:
    """The stored figures, {} when the session has none (or the file is damaged)."""
    if not session_dir:
        return {}
    from eurekaclaw.store.files import read_json

    data = read_json(Path(session_dir) / COSTS_FILE, None)
    return data if isinstance(data, dict) else {}
