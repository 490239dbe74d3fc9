#!/usr/bin/env bash
# UTS T1 and T3 on 2 real ranks for every placement against the sequential
# traversal, run side by side in rounds: nodes per second and the fraction of
# the ideal speedup (the round's sequential time / parallel time / 2), medians
# over the rounds.
#   bash benchmarks/uts.sh BUILD_DIR [ROUNDS]
set -euo pipefail
build=${1:?build directory}
rounds=${2:-5}
uts="$build/examples/uts"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
placements=(kazouris steal steal-half april)
seconds() { sed -n 's/.* time \([0-9.e+-]*\) s.*/\1/p'; }
rows=$(mktemp)
for tree in T1 T3; do
  for ((r = 0; r < rounds; r++)); do
    seq=$("$uts" --tree "$tree" --sequential | seconds)
    echo "$tree sequential $seq $seq" >>"$rows"
    for p in "${placements[@]}"; do
      echo "$tree $p $(mpiexec -n 2 "$uts" --tree "$tree" --placement "$p" | seconds) $seq" >>"$rows"
    done
  done
done
echo "UTS on 2 ranks, medians of $rounds rounds (each round runs the sequential count and every placement)"
python3 - "$rows" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    tree, placement, t, seq = line.split()
    rows.setdefault((tree, placement), []).append((float(t), float(seq)))
for (tree, placement), runs in rows.items():
    nodes = 4130071 if tree == "T1" else 4112897
    t = statistics.median(r[0] for r in runs)
    line = f"{tree:5} {placement:11} {t:9.3f} s {nodes / t:12.0f} nodes/s"
    if placement != "sequential":
        line += f" {statistics.median(s / p / 2 for p, s in runs):7.3f} of ideal speedup"
    print(line)
PY
rm -f "$rows"
