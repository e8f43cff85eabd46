#!/usr/bin/python3
"""Draws the benchmark chart from results.csv: chart.png and chart.svg beside it.

    /usr/bin/python3 Benchmarks/chart.py Benchmarks/results/results.csv

Two panels, every number read from the CSV the harness wrote (attachkit-bench runs this after
each run, with Debian's Python, for which scripts/bench.sh installs python3-matplotlib):
  1. AttachKit ÷ the reference tool per scenario, wall time and peak RSS, on a log scale, with a
     line at 1.0 (as fast, as big) and each stated target marked; a "speedup-min" target of N×
     is drawn as a ratio of 1/N.
  2. VP9 → H.264 transcoding: wall time against clip length, one line per resolution and preset.
"""
import csv
import os
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker, transforms  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

WALL, RSS = "#4a90d9", "#e08a1e"
MET, MISSED = "#2e7d32", "#c62828"


def read(path):
    """Rows of the CSV, grouped: compare rows and targets per scenario, budget rows."""
    scenarios = OrderedDict()
    budget = []
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            section, name = row["section"], row["scenario_or_operation"]
            if section == "compare":
                scenarios.setdefault(name, {"tools": OrderedDict(), "targets": [], "reference": None})
                scenarios[name]["tools"][row["tool_or_input"]] = row
            elif section == "target":
                entry = scenarios.setdefault(name, {"tools": OrderedDict(), "targets": [], "reference": None})
                entry["reference"] = row["tool_or_input"]
                if row["unit"] != "none":
                    entry["targets"].append((row["unit"], float(row["amount"])))
            elif section == "budget":
                budget.append(row)
    return scenarios, budget


def ratios(scenarios):
    """One entry per scenario with a reference: AttachKit (the first tool) ÷ reference."""
    rows = []
    for name, entry in scenarios.items():
        reference = entry["reference"]
        tools = entry["tools"]
        if reference not in tools or len(tools) < 2:
            continue
        subject = next(iter(tools.values()))
        other = tools[reference]
        if min(float(other["wall_median_s"]), float(other["peak_rss_mb"]), float(subject["wall_median_s"])) <= 0:
            continue  # a failed run measured nothing
        wall = float(subject["wall_median_s"]) / float(other["wall_median_s"])
        rss = float(subject["peak_rss_mb"]) / float(other["peak_rss_mb"])
        targets = dict(entry["targets"])
        wall_target = targets.get("wall-ratio-max")
        if "speedup-min" in targets:
            wall_target = 1 / targets["speedup-min"]
        rows.append({
            "label": f"{name}\nvs {reference}",
            "bars": [("wall", wall, wall_target, WALL, "speedup-min" in targets),
                     ("RSS", rss, targets.get("rss-ratio-max"), RSS, False)],
            "failed": any(tool["status"] != "ok" for tool in tools.values()),
        })
    return rows


def value_text(metric, ratio, target, as_speedup):
    text = f"{metric} {ratio:.2f}×"
    if as_speedup:
        text = f"{metric} {1 / ratio:.1f}× faster"
    if target is None:
        return text
    bound = f"≥ {1 / target:.1f}× faster" if as_speedup else f"≤ {target:.2f}×"
    return text + (" ✓ " if ratio <= target else " ✗ ") + "target " + bound


def draw_ratios(ax, rows):
    bar = 0.36
    values = []
    for index, row in enumerate(rows):
        for offset, (metric, ratio, target, colour, as_speedup) in zip((-bar / 2, bar / 2), row["bars"]):
            y = index + offset
            ax.barh(y, ratio, height=bar * 0.9, color=colour, left=0)
            values += [ratio] + ([target] if target else [])
            if target is not None:
                ax.plot([target, target], [y - bar / 2, y + bar / 2], color="black", linewidth=2.5, solid_capstyle="butt")
            met = target is None or ratio <= target
            ax.text(max(ratio, target or 0) * 1.08, y, value_text(metric, ratio, target, as_speedup), va="center",
                    fontsize=8.5, color="#333333" if target is None else (MET if met else MISSED),
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.6})
    low, high = min(values + [1.0]), max(values + [1.0])
    ax.set_xscale("log")
    # Room on the right of the longest bar for its label (under a decade at this size).
    ax.set_xlim(low / 1.6, high * 10)
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(rows)), [row["label"] + ("\n(a run failed)" if row["failed"] else "") for row in rows], fontsize=9)
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}×"))
    ax.set_xlabel("AttachKit ÷ reference (log scale; left of the dashed line at 1.0 is faster or smaller)")
    ax.set_title("AttachKit ÷ the tool a user would otherwise pick (lower is better)", loc="left", fontweight="bold")
    ax.legend(handles=[Patch(color=WALL, label="wall time"), Patch(color=RSS, label="peak RSS"),
                       Line2D([], [], color="black", linewidth=2.5, label="target"),
                       Line2D([], [], color="grey", linestyle="--", label="1.0: same as reference")],
              loc="upper center", bbox_to_anchor=(0.5, 0), ncol=4, frameon=False, fontsize=9,
              # A fixed distance under the axis label, whatever the panel's height.
              bbox_transform=transforms.offset_copy(ax.transAxes, fig=ax.figure, y=-34, units="points"))


def transcodes(budget):
    """Wall time against clip length of the VP9 transcodes, per resolution and preset."""
    lines = OrderedDict()
    for row in budget:
        # A deadline row measures a refusal (no output, no time): not a point on a line.
        if not row["scenario_or_operation"].startswith("VP9") or row["status"] != "ok" or float(row["wall_median_s"] or 0) <= 0:
            continue
        preset = row["scenario_or_operation"].split(" ")[-1]
        resolution = row["tool_or_input"].split(" ")[0]
        lines.setdefault(f"{resolution} {preset}", []).append((float(row["amount"]), float(row["wall_median_s"])))
    return lines


def draw_budget(ax, lines):
    for label, points in sorted(lines.items(), key=lambda item: (int(item[0].split("p")[0]), item[0])):
        points.sort()
        dashed = label.endswith("ultrafast")
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", linestyle="--" if dashed else "-", label=label)
    ax.set_xlabel("clip length (s)")
    ax.set_ylabel("wall time (s)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(True, color="#dddddd")
    ax.set_title("VP9 → H.264 transcode: wall time against clip length (x264 preset)", loc="left", fontweight="bold")
    ax.legend(title="input, preset", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=9)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 64
    path = argv[1]
    scenarios, budget = read(path)
    rows, lines = ratios(scenarios), transcodes(budget)
    # Only the panels the run has numbers for (a run with --only may have one of them, or none).
    panels = ([(max(2.0, 0.62 * len(rows) + 1.2), lambda ax: draw_ratios(ax, rows))] if rows else []) \
        + ([(3.6, lambda ax: draw_budget(ax, lines))] if lines else [])
    if not panels:
        print(f"chart: {path} holds no comparison and no transcode: no chart")
        return 0
    plt.rcParams.update({"font.family": "DejaVu Sans", "svg.hashsalt": "attachkit"})
    heights = [height for height, _ in panels]
    figure, axes = plt.subplots(len(panels), 1, figsize=(11, sum(heights) + 1.4 * len(panels)), squeeze=False,
                                gridspec_kw={"height_ratios": heights, "hspace": 0.55})
    for (_, draw), ax in zip(panels, axes[:, 0]):
        draw(ax)
    folder = os.path.dirname(os.path.abspath(path))
    for name, metadata in (("chart.png", {"Software": None}), ("chart.svg", {"Date": None, "Creator": None})):
        figure.savefig(os.path.join(folder, name), dpi=110, bbox_inches="tight", pad_inches=0.25, metadata=metadata)
    print(f"chart: {folder}/chart.png, chart.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
