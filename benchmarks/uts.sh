#!/usr/bin/env bash
# UTS on 2 real ranks for every placement against the sequential traversal,
# run side by side in rounds: nodes per second and the fraction of the ideal
# speedup (the round's sequential time / parallel time / 2), medians over the
# rounds. Given the reference implementation's source (github perarnau/uts;
# none of its code is in this repository), it is built in a temporary
# directory (uts-seq, and uts-mpi-ws: its work stealing, with the Makefile's
# flags, -O3 -DBRG_RNG, less its trace output) and run in the same rounds.
#   bash benchmarks/uts.sh BUILD_DIR [ROUNDS] [REFERENCE_SOURCE_DIR]
#   TREES="T1 T3 T1L" bash benchmarks/uts.sh build/dev 5 /tmp/uts     (default TREES: T1 T3)
set -euo pipefail
build=${1:?build directory}
rounds=${2:-5}
reference=${3:-}
trees=(${TREES:-T1 T3})
uts="$build/examples/uts"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
placements=(kazouris steal steal-half april)
seconds() { sed -n 's/.* time \([0-9.e+-]*\) s.*/\1/p'; }
reference_seconds() { sed -n 's/^Wallclock time = \([0-9.e+-]*\) sec.*/\1/p'; }
declare -A reference_tree=([T1]="-t 1 -a 3 -d 10 -b 4 -r 19" [T3]="-t 0 -b 2000 -q 0.124875 -m 8 -r 42"
                           [T1L]="-t 1 -a 3 -d 13 -b 4 -r 29")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "$reference" ]; then
  cp -r "$reference"/. "$work/reference"
  (cd "$work/reference" &&
    gcc -O3 -std=c99 -DBRG_RNG -o uts-seq uts_shm.c rng/brg_sha1.c uts.c -lm &&
    mpicc -O3 -std=c99 -DBRG_RNG -D__VS_ORIG__ -D__MPI__ -o uts-mpi-ws uts_dm.c stats.c dequeue.c dlist.c \
      mpi_workstealing.c rng/brg_sha1.c uts.c -lm) >/dev/null
fi
rows="$work/rows"
for tree in "${trees[@]}"; do
  for ((r = 0; r < rounds; r++)); do
    seq=$("$uts" --tree "$tree" --sequential | seconds)
    echo "$tree sequential $seq $seq" >>"$rows"
    for p in "${placements[@]}"; do
      echo "$tree $p $(mpiexec -n 2 "$uts" --tree "$tree" --placement "$p" | seconds) $seq" >>"$rows"
    done
    if [ -n "$reference" ]; then
      ref_seq=$("$work/reference/uts-seq" ${reference_tree[$tree]} | reference_seconds)
      echo "$tree reference-sequential $ref_seq $ref_seq" >>"$rows"
      echo "$tree reference-ws $(mpiexec -n 2 "$work/reference/uts-mpi-ws" ${reference_tree[$tree]} 2>&1 |
        reference_seconds) $ref_seq" >>"$rows"
    fi
  done
done
echo "UTS on 2 ranks, medians of $rounds rounds (each round runs the sequential counts and every placement)"
python3 - "$rows" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    tree, placement, t, seq = line.split()
    rows.setdefault((tree, placement), []).append((float(t), float(seq)))
nodes = {"T1": 4130071, "T3": 4112897, "T1L": 102181082}
best = {}
for (tree, placement), runs in rows.items():
    t = statistics.median(r[0] for r in runs)
    line = f"{tree:5} {placement:21} {t:9.3f} s {nodes[tree] / t:12.0f} nodes/s"
    if "sequential" not in placement:
        line += f" {statistics.median(s / p / 2 for p, s in runs):7.3f} of ideal speedup"
    print(line)
    kind = "reference" if placement.startswith("reference") else "ours"
    key = (tree, kind, "sequential" in placement)
    best[key] = min(best.get(key, t), t)
for tree in dict.fromkeys(k[0] for k in rows):
    if (tree, "reference", True) in best:
        print(f"{tree:5} ours / reference: sequential time per node {best[(tree, 'ours', True)] / best[(tree, 'reference', True)]:.2f}x, "
              f"2-rank nodes/s (best placement / work stealing) {best[(tree, 'reference', False)] / best[(tree, 'ours', False)]:.2f}x")
PY
