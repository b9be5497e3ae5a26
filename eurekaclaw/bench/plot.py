"""Two plain SVG figures for the bench folder, with no plotting library: the rates with their
95 % intervals per configuration (rates.svg), and the mean tokens per problem and configuration
(tokens.svg)."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from eurekaclaw.store.files import atomic_write_text

COLOURS = ("#1b6ca8", "#d1495b", "#66a182", "#edae49", "#7b4b94", "#2e4057")
RATES = (("correct", "correct verdict"), ("false_proved", "false-proved"), ("true_refuted", "true refuted"))


def _svg(width: int, height: int, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">\n'
        f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n"
    )


def rates_svg(summary: dict[str, Any]) -> str:
    configs = list(summary["overall"])
    left, top, plot_h, group_w = 60, 40, 220, max(120, 40 * len(configs))
    width = left + group_w * len(RATES) + 160
    height = top + plot_h + 60
    body = [f'<text x="{left}" y="20" font-size="14">Rates with 95 % Wilson intervals</text>']
    for tick in range(0, 101, 25):
        y = top + plot_h * (1 - tick / 100)
        body.append(f'<line x1="{left}" x2="{left + group_w * len(RATES)}" y1="{y}" y2="{y}" stroke="#ddd"/>')
        body.append(f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{tick}%</text>')
    for g, (key, label) in enumerate(RATES):
        x0 = left + g * group_w
        body.append(f'<text x="{x0 + group_w / 2}" y="{top + plot_h + 20}" text-anchor="middle">{escape(label)}</text>')
        for i, name in enumerate(configs):
            rate = summary["overall"][name][key]
            if not rate["n"]:
                continue
            x = x0 + (i + 1) * group_w / (len(configs) + 1)
            colour = COLOURS[i % len(COLOURS)]
            y = top + plot_h * (1 - rate["rate"])
            y_lo, y_hi = top + plot_h * (1 - rate["low"]), top + plot_h * (1 - rate["high"])
            body.append(f'<line x1="{x}" x2="{x}" y1="{y_lo}" y2="{y_hi}" stroke="{colour}" stroke-width="2"/>')
            body.append(
                f'<circle cx="{x}" cy="{y}" r="4" fill="{colour}"><title>{escape(name)}: '
                f"{rate['hits']}/{rate['n']}</title></circle>"
            )
    legend_x = left + group_w * len(RATES) + 20
    for i, name in enumerate(configs):
        y = top + 16 * i
        body.append(f'<rect x="{legend_x}" y="{y - 9}" width="10" height="10" fill="{COLOURS[i % len(COLOURS)]}"/>')
        body.append(f'<text x="{legend_x + 16}" y="{y}">{escape(name)}</text>')
    return _svg(width, height, body)


def tokens_svg(summary: dict[str, Any]) -> str:
    configs = list(summary["problems"])
    problems = sorted({pid for per in summary["problems"].values() for pid in per})
    peak = max([per[pid]["tokens_mean"] or 0 for per in summary["problems"].values() for pid in per] or [0]) or 1
    left, top, row_h, plot_w = 200, 40, 14 * max(1, len(configs)) + 6, 420
    height = top + row_h * max(1, len(problems)) + 40
    body = [f'<text x="10" y="20" font-size="14">Mean tokens per problem (max {peak:,.0f})</text>']
    for p, pid in enumerate(problems):
        y0 = top + p * row_h
        body.append(f'<text x="{left - 8}" y="{y0 + row_h / 2 + 4}" text-anchor="end">{escape(pid)}</text>')
        for i, name in enumerate(configs):
            stats = summary["problems"][name].get(pid)
            if not stats or stats["tokens_mean"] is None:
                continue
            w = plot_w * stats["tokens_mean"] / peak
            body.append(
                f'<rect x="{left}" y="{y0 + 3 + 14 * i}" width="{w:.1f}" height="11" '
                f'fill="{COLOURS[i % len(COLOURS)]}"><title>{escape(name)}: {stats["tokens_mean"]}</title></rect>'
            )
    for i, name in enumerate(configs):
        body.append(
            f'<rect x="{left + plot_w + 20}" y="{top + 16 * i - 9}" width="10" height="10" fill="{COLOURS[i % len(COLOURS)]}"/>'
        )
        body.append(f'<text x="{left + plot_w + 36}" y="{top + 16 * i}">{escape(name)}</text>')
    return _svg(left + plot_w + 160, height, body)


def write_plots(bench_dir: Path, summary: dict[str, Any]) -> list[Path]:
    paths = [bench_dir / "rates.svg", bench_dir / "tokens.svg"]
    atomic_write_text(paths[0], rates_svg(summary))
    atomic_write_text(paths[1], tokens_svg(summary))
    return paths
