#!/usr/bin/env bash
# Short loops side by side with DLS4LB (Mohammed and Ciorba's C self-scheduling
# library over MPI): builds a benchmark (benchmarks/short_loops.cpp, or with
# BENCHMARK=masterless benchmarks/masterless.cpp) together with DLS4LB's DLS.c
# in a temporary directory (nothing of DLS4LB is kept here) and runs it
# LAUNCHES times on 2 ranks; each launch prints its own medians. Without a
# DLS4LB directory, ours against the raw-MPI self-scheduler (or, masterless,
# against our loop with a master) only.
#   [BENCHMARK=masterless] bash benchmarks/short_loops.sh [DLS4LB_DIR] [LAUNCHES] [-- the benchmark's options]
# Example: bash benchmarks/short_loops.sh /tmp/DLS4LB 5 -- --schemes gss --iterations 200000 --no-dedicated
set -euo pipefail
cd "$(dirname "$0")/.."
benchmark=${BENCHMARK:-short_loops}
dls=""
if [ $# -gt 0 ] && [ "$1" != "--" ]; then dls=$1; shift; fi
launches=5
if [ $# -gt 0 ] && [ "$1" != "--" ]; then launches=$1; shift; fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-std=c++20 -O2 -DNDEBUG -Iinclude)
objects=()
if [ -n "$dls" ]; then
  mpicc -O2 -w -c "$dls/DLS.c" -I"$dls" -o "$tmp/DLS.o"
  mpicc -O2 -c benchmarks/short_loops_dls4lb.c -I"$dls" -o "$tmp/shim.o"
  flags+=(-DLOOPSCHED_WITH_DLS4LB)
  objects+=("$tmp/DLS.o" "$tmp/shim.o")
fi
# examples/cli.cpp holds the command line's CLI11 part (cli.hpp only declares it).
mpicxx "${flags[@]}" "benchmarks/$benchmark.cpp" examples/cli.cpp "${objects[@]}" -o "$tmp/$benchmark" \
  -lboost_mpi -lboost_serialization -lm
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for ((l = 1; l <= launches; l++)); do
  echo "launch $l of $launches"
  mpiexec -n 2 "$tmp/$benchmark" "$@"
done
