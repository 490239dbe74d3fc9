#!/usr/bin/env bash
# Same-binary A/B of this tree's engines against an earlier commit's:
#   bash benchmarks/ab.sh [COMMIT] [ROUNDS]     (default: the commit before the runtime core)
# The old headers are taken with git archive, renamed to loopsched_old, and
# compiled with the current ones into one program (benchmarks/ab/ab.cpp), run
# on 2 ranks. Needs the packages ./run installs. Another MPI: MPICXX and
# MPIEXEC name its wrapper and launcher, MPIEXEC_FLAGS adds launcher flags
# (Open MPI 5 with ULFM from ./run failures:
#   MPICXX=build/ompi5-venv/bin/mpicxx MPIEXEC=build/ompi5-venv/bin/mpirun \
#   MPIEXEC_FLAGS="--with-ft ulfm" LD_LIBRARY_PATH=build/ompi5-venv/lib bash benchmarks/ab.sh COMMIT).
set -euo pipefail
cd "$(dirname "$0")/.."
commit=${1:-3d4b741}
rounds=${2:-41}
work=build/ab
rm -rf "$work" && mkdir -p "$work/old"
git archive "$commit" include | tar -x -C "$work/old"
mv "$work/old/include/loopsched" "$work/old/include/loopsched_old"
grep -rl . "$work/old/include/loopsched_old" | xargs sed -i \
  -e 's|<loopsched/|<loopsched_old/|g' -e 's|namespace loopsched\b|namespace loopsched_old|g' \
  -e 's|loopsched::|loopsched_old::|g'
mpicxx=${MPICXX:-mpicxx}
mpi_flags=$($mpicxx --showme:compile)
mpi_libs=$($mpicxx --showme:link)
# examples/cli.cpp holds the command line's CLI11 part (cli.hpp only declares it).
g++ -std=c++20 -O2 -g -DNDEBUG -Iinclude -I"$work/old/include" $mpi_flags benchmarks/ab/ab.cpp examples/cli.cpp \
  -o "$work/ab" -lboost_mpi -lboost_serialization $mpi_libs
# shellcheck disable=SC2086 # the flags are words
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ${MPIEXEC:-mpiexec} ${MPIEXEC_FLAGS:-} -n 2 "$work/ab" "$rounds"
