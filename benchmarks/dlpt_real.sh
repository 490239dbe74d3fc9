#!/usr/bin/env bash
# Karamcheti and Wah's QuickSort on real MPI ranks with emulated speeds: every D_LPT
# placement and baseline, median seconds over ROUNDS runs (default 3), each against
# the fast rank alone (the sequential recursion in a process of its own, the median
# of ROUNDS: timed after a parallel run, it would find the heap already faulted in).
#   bash benchmarks/dlpt_real.sh BUILD_DIR RANKS POWERS [SIZE] [ROUNDS]
#   bash benchmarks/dlpt_real.sh build/dev 4 4,1,1,1 2000000
# The speedup over the fast rank cannot pass the speed sum over the fastest
# speed: 1.25 at 4,1 and 1.75 at 4,1,1,1.
set -euo pipefail
build=${1:?build directory} ranks=${2:?ranks} powers=${3:?powers, e.g. 4,1,1,1}
size=${4:-2000000} rounds=${5:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
divide=("$build/examples/divide" --problem quicksort --size "$size")
median() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }
alone=()
for ((r = 0; r < rounds; ++r)); do
  alone+=("$(mpiexec -n 1 "${divide[@]}" --sequential | sed -n 's/.*sequential \([0-9.e+-]*\) s.*/\1/p')")
done
base=$(median "${alone[@]}")
echo "quicksort of $size on $ranks ranks, powers $powers: median of $rounds runs (s), speedup over the fast rank alone"
printf '%-12s %8.3f   %5s   (%s)\n' "fast alone" "$base" "1.00" "${alone[*]}"
for placement in dlpt random round-robin objects messages kazouris steal; do
  times=()
  for ((r = 0; r < rounds; ++r)); do
    times+=("$(mpiexec -n "$ranks" --oversubscribe "${divide[@]}" --placement "$placement" --powers "$powers" \
      --no-check | sed -n 's/.*placement [a-z-]*: \([0-9.e+-]*\) s/\1/p')")
  done
  m=$(median "${times[@]}")
  printf '%-12s %8.3f   %5.2f   (%s)\n' "$placement" "$m" "$(awk -v a="$base" -v b="$m" 'BEGIN { print a / b }')" "${times[*]}"
done
