#!/usr/bin/env bash
# Builds tests/consumer/main_mpi.cpp as a user without CMake would, with the
# engines compiled once (docs/install.md): every translation unit is compiled
# with -DLOOPSCHED_COMPILED, one more holds <loopsched/impl/compiled.ipp>, and
# the program links Boost.MPI and Boost.Serialization; then runs it on 2 ranks.
#   without_cmake.sh SOURCE_DIR WORK_DIR MPICXX MPIEXEC
set -euo pipefail
source_dir=$1 work=$2 mpicxx=$3 mpiexec=$4
rm -rf "$work" && mkdir -p "$work"
printf '#include <loopsched/impl/compiled.ipp>\n' > "$work/loopsched_library.cpp"
flags=(-std=c++20 -O0 -g0 -DLOOPSCHED_COMPILED -I"$source_dir/include")
"$mpicxx" "${flags[@]}" -c "$work/loopsched_library.cpp" -o "$work/loopsched_library.o" &
"$mpicxx" "${flags[@]}" -c "$source_dir/tests/consumer/main_mpi.cpp" -o "$work/main_mpi.o"
wait $!
"$mpicxx" "$work/main_mpi.o" "$work/loopsched_library.o" -lboost_mpi -lboost_serialization -o "$work/app"
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$mpiexec" -n 2 "$work/app"
# Without the macro, the implementation file says what is missing.
if "$mpicxx" -std=c++20 -fsyntax-only -I"$source_dir/include" "$work/loopsched_library.cpp" 2> "$work/error.txt"; then
  echo "without_cmake: impl/compiled.ipp compiled without LOOPSCHED_COMPILED" >&2; exit 1
fi
grep -q "define LOOPSCHED_COMPILED in every translation unit" "$work/error.txt"
echo "without_cmake: built with -DLOOPSCHED_COMPILED and impl/compiled.ipp, ran on 2 ranks"
