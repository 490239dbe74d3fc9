#!/usr/bin/env python3
"""Draws scale's table (its markdown rows, from a file) as grouped bars: for
each workers x task x policy, the flat loop's fraction of ideal, the
hierarchical loop's, and the greedy bound (a perfect self-scheduler's).

    python3 benchmarks/scale_chart.py scale.md docs/scale.svg
"""
import sys

import charts


def rows(path):
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 11 or not cells[0].isdigit():
                continue
            yield cells


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main(source, target):
    categories, flat, hierarchical, bound = [], [], [], []
    for cells in rows(source):
        workers, task, limit, policy = cells[0], cells[1], cells[2], cells[3]
        categories.append(f"{policy} {int(workers) // 1024}k {task.split()[0]}ms")
        flat.append(number(cells[4]))
        hierarchical.append(number(cells[8]))
        bound.append(number(limit))
    if not categories:
        sys.exit(f"scale_chart: no rows in {source}")
    charts.bars(target, "Fraction of ideal: one master against a hierarchy", "fraction of ideal", categories,
                {"flat": flat, "hierarchical": hierarchical, "greedy bound": bound}, height=400)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
