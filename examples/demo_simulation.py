#!/usr/bin/env python3
"""The demo's second half: scheme comparisons on heterogeneous clusters, which
two equal ranks on one machine cannot show. Runs loopsched's own engines on
simulated clusters (SimGrid) at the source documents' scale and prints each
scheme's parallel time in seconds beside the document's.

Usage: demo_simulation.py SIMULATE_BINARY
"""
import csv
import io
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks"))
from reproduce import SEED001_DOCUMENT  # noqa: E402 (the report's copy of the document's figures)

simulate = sys.argv[1] if len(sys.argv) > 1 else "build/dev/examples/simulate"


def times(platform, workload, policies):
    """Simulated parallel time and ideal of each policy, from simulate --csv."""
    args = [simulate, "--platform", platform, "--workload", workload, "--csv"]
    for p in policies:
        args += ["--policy", p]
    rows = csv.DictReader(io.StringIO(subprocess.run(args, check=True, capture_output=True, text=True).stdout))
    return {r["policy"]: (float(r["seconds"]), float(r["ideal_seconds"])) for r in rows}


print("4. Simulated: the schemes on the documents' heterogeneous clusters (SimGrid, loopsched's own engines)\n")

# Chronopoulos et al., Tables 2 and 3: 1 master + 8 workers, 3 fast (V = 3) and 5 slow
# (V = 1); loaded: some workers carry other processes.
document = SEED001_DOCUMENT
workload = "mandelbrot:size=4000x2000:sf=4:max=50"
dedicated = times("seed001", workload, list(document))
loaded = times("seed001:loaded", workload, list(document))
print("   Chronopoulos et al.'s cluster: 1 master + 8 workers (3 at V = 3, 5 at V = 1), Mandelbrot 4000x2000")
print("   scheme   dedicated: ours  document    loaded: ours  document")
for s, (doc_d, doc_l) in document.items():
    print(f"   {s:7}  {dedicated[s][0]:13.1f} s {doc_d:7.1f} s  {loaded[s][0]:11.1f} s {doc_l:7.1f} s")
print(f"   ideal    {dedicated['tss'][1]:13.1f} s {'':9}  {loaded['tss'][1]:11.1f} s")
simple = ["tss", "fss", "fiss", "tfss"]
gain = {c: sum(1 - t[f"d{s}"][0] / t[s][0] for s in simple) / len(simple) for c, t in (("dedicated", dedicated),
                                                                                      ("loaded", loaded))}
print(f"   The distributed schemes (d*), which follow each worker's power and run queue, are "
      f"{100 * gain['dedicated']:.0f}% faster than their simple twins on average dedicated and "
      f"{100 * gain['loaded']:.0f}% loaded (the document: 39% and 50%).\n")

# Ciorba, Table 5.9: S-A against SW-A on Floyd-Steinberg, 12 loaded workers of two speeds.
doacross = times("seed003-sw:m=12:loaded", "floyd-steinberg:size=10000x10000", ["s-tss", "sw-tss", "s-fss", "sw-fss"])
print("   Ciorba's DOACROSS cluster: 12 loaded workers of two speeds, Floyd-Steinberg 10000x10000")
for a in ("tss", "fss"):
    s, sw = doacross[f"s-{a}"][0], doacross[f"sw-{a}"][0]
    print(f"   S-{a.upper():4} {s:6.2f} s   SW-{a.upper():4} {sw:6.2f} s   weighting gains {100 * (1 - sw / s):.0f}%")
print("\n   Every table of the documents, with the claims checked: docs/reproduction/report.md "
      "(./run reproduce -- --check)")
