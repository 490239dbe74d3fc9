#!/usr/bin/env python3
"""Reads every loopsched #include in include/ and fails on one that points up
the layers docs/contributing/architecture.md states (its "Layers of include/" table), on a
header no row of the table covers, and on headers that include each other.

Usage: include_layers.py SOURCE_DIR
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
include = root / "include"
table = (root / "docs" / "contributing" / "architecture.md").read_text()

# | layer | room | `path` `folder/` ... |
rooms = []  # (layer, room, [entries])
for m in re.finditer(r"^\| *(\d+) *\| *([^|]+?) *\| *(.+?) *\|$", table, re.M):
    rooms.append((int(m.group(1)), m.group(2), re.findall(r"`([^`]+)`", m.group(3))))
if not rooms:
    sys.exit("include_layers: no layer table in docs/contributing/architecture.md")


def room_of(path):
    """The room whose entry matches `path` (relative to include/loopsched) most closely."""
    best = None
    for layer, room, entries in rooms:
        for e in entries:
            hit = path == e if not e.endswith("/") else path.startswith(e)
            if hit and (best is None or len(e) > best[0]):
                best = (len(e), layer, room)
    return None if best is None else best[1:]


files = sorted(p for p in (include / "loopsched").rglob("*") if p.suffix in (".hpp", ".ipp"))
graph = {}
problems = []
for f in files:
    name = f.relative_to(include / "loopsched").as_posix()
    graph[name] = re.findall(r"^\s*#\s*include\s*<loopsched/([^>]+)>", f.read_text(), re.M)
    if room_of(name) is None:
        problems.append(f"{name}: in no row of the layer table of docs/contributing/architecture.md")

for name, includes in graph.items():
    mine = room_of(name)
    for target in includes:
        if target not in graph:
            problems.append(f"{name}: includes loopsched/{target}, which does not exist")
            continue
        theirs = room_of(target)
        if mine is None or theirs is None or theirs[1] == mine[1]:
            continue
        if theirs[0] >= mine[0]:
            problems.append(f"{name} (layer {mine[0]}, {mine[1]}) includes loopsched/{target} "
                            f"(layer {theirs[0]}, {theirs[1]}): it points "
                            + ("up" if theirs[0] > mine[0] else "beside it"))

# No cycles: a depth-first walk over the include graph.
state = {}


def walk(name, path):
    state[name] = 1
    for target in graph.get(name, []):
        if target not in graph:
            continue
        if state.get(target) == 1:
            cycle = path[path.index(target):] + [target]
            problems.append("headers include each other: " + " -> ".join(cycle))
        elif target not in state:
            walk(target, path + [target])
    state[name] = 2


for name in graph:
    if name not in state:
        walk(name, [name])

for p in problems:
    print(p)
print(f"include_layers: {len(graph)} files, {sum(map(len, graph.values()))} loopsched includes, "
      f"{len(rooms)} rooms, {len(problems)} problems")
sys.exit(1 if problems else 0)
