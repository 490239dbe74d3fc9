#!/usr/bin/env bash
# Karamcheti and Wah's QuickSort on real MPI ranks with emulated speeds: every D_LPT
# placement and baseline, median seconds over ROUNDS runs (default 3).
#   bash benchmarks/dlpt_real.sh BUILD_DIR RANKS POWERS [SIZE] [ROUNDS]
#   bash benchmarks/dlpt_real.sh build/dev 4 4,1,1,1 2000000
set -euo pipefail
build=${1:?build directory} ranks=${2:?ranks} powers=${3:?powers, e.g. 4,1,1,1}
size=${4:-2000000} rounds=${5:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "quicksort of $size on $ranks ranks, powers $powers: median of $rounds runs (s)"
for placement in dlpt random round-robin objects messages kazouris steal; do
  times=()
  for ((r = 0; r < rounds; ++r)); do
    times+=("$(mpiexec -n "$ranks" --oversubscribe "$build/examples/divide" --problem quicksort --size "$size" \
      --placement "$placement" --powers "$powers" --no-check | sed -n 's/.*placement [a-z-]*: \([0-9.e+-]*\) s/\1/p')")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -g | sed -n "$(((rounds + 1) / 2))p")
  printf '%-12s %8.3f   (%s)\n' "$placement" "$median" "${times[*]}"
done
