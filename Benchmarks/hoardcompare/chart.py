#!/usr/bin/env python3
"""Draws compare's results.json as one group of bars per row: Hoard and its peer(s), normalised so
that the row's peer is 1.0, on a log scale, with the row's target drawn as a marker.

Usage: python3 Benchmarks/hoardcompare/chart.py RESULTS.json CHART.png
(compare runs it as a script of its own, so that a missing matplotlib costs the chart only)
"""
import json
import sys

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

HOARD, PEER, OTHER, TARGET = "#2b6cb0", "#8a8a8a", "#c8c8c8", "#d62728"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    results = json.load(open(sys.argv[1]))
    rows = [r for r in results["rows"] if r["peer"]["value"] and r["ratio"] is not None]
    if not rows:
        sys.exit("chart: no rows with figures in " + sys.argv[1])

    bar = 0.26
    fig, ax = plt.subplots(figsize=(11, 0.62 * len(rows) + 1.6))
    labels = []
    for index, r in enumerate(rows):
        y = len(rows) - 1 - index  # first row at the top
        bars = [(r["ratio"], HOARD)]
        bars.append((1.0, PEER))
        for other in r["others"]:
            if other["value"]:
                bars.append((other["value"] / r["peer"]["value"], OTHER))
        height = min(bar, 0.8 / len(bars))
        for slot, (value, colour) in enumerate(bars):
            offset = (len(bars) - 1) / 2 * height - slot * height
            ax.barh(y + offset, value, height=height * 0.92, color=colour)
            if slot == 0:
                right = max(value * 1.06, (r["target"] or 0) * 1.2)
                ax.text(right, y + offset, f"{value:.3g}×", va="center", fontsize=7)
        if r["target"] is not None:
            offset = (len(bars) - 1) / 2 * height
            reached = r["met"]
            ax.plot([r["target"]], [y + offset], marker="|" if reached else "x", markersize=12, mew=2, color=TARGET)
        if index > 0 and rows[index - 1]["section"] != r["section"]:
            ax.axhline(y + 0.5, color="#444444", lw=0.6, ls=":")
        better = " (lower is better)" if r["better"] == "lower" else ""
        labels.append((y, f"{r['work']}{better}\n{r['hoard']['label']} vs {r['peer']['label']}"))

    ax.set_yticks([y for y, _ in labels])
    ax.set_yticklabels([text for _, text in labels], fontsize=7)
    ax.set_xscale("log")
    ax.axvline(1.0, color="#444444", lw=0.8)
    ax.set_xlabel("relative to the peer (peer = 1.0; ratio = Hoard / peer)")
    values = [r["ratio"] for r in rows] + [r["target"] for r in rows if r["target"]] + [1.0]
    values += [o["value"] / r["peer"]["value"] for r in rows for o in r["others"] if o["value"]]
    low, high = min(values) / 1.6, max(values) * 2.2
    ax.set_xlim(low, high)
    ticks = [t for t in (0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500) if low <= t <= high]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}×" for t in ticks])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_ylim(-0.6, len(rows) - 0.4)
    m = results["machine"]
    ax.set_title(f"Hoard vs peers — {m['date'][:16]}, {m['nproc']} cores, {m['cpu']}, "
                 f"{results['reps']} rep(s) per side{' (quick)' if results['quick'] else ''}", fontsize=9)
    ax.grid(axis="x", which="both", alpha=0.25)
    handles = [Patch(color=HOARD, label="Hoard"), Patch(color=PEER, label="peer (= 1.0)"),
               Patch(color=OTHER, label="other peers, same work"),
               Line2D([], [], marker="|", markersize=10, mew=2, color=TARGET, ls="", label="target, met"),
               Line2D([], [], marker="x", markersize=8, mew=2, color=TARGET, ls="", label="target, not met")]
    fig.legend(handles=handles, loc="lower center", ncol=5, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.5 / fig.get_figheight(), 1, 1))
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
