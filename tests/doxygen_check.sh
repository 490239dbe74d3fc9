#!/usr/bin/env bash
# The API reference (docs/Doxyfile) and its checks, run by `./run docs`
# and by the tests:
#  1. the reference over every public header, failing on any Doxygen warning;
#  2. the entry points, the options, the outcomes and statistics, the errors,
#     the spec parsers and the concepts once more
#     with Doxygen's warnings for undocumented entities, failing on any:
#     every public entity there has a doc comment.
#   doxygen_check.sh SOURCE_DIR OUTPUT_DIR
set -euo pipefail
source_dir=$(cd "$1" && pwd) out=$2
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$source_dir"
{ cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = $out"; } | doxygen - > "$out/reference.log" 2>&1 || {
  cat "$out/reference.log" >&2; echo "doxygen_check: the reference has warnings (above)" >&2; exit 1; }
documented=(include/loopsched/algorithm include/loopsched/mpi include/loopsched/options.hpp
            include/loopsched/task_options.hpp include/loopsched/outcome.hpp include/loopsched/statistics.hpp
            include/loopsched/concepts.hpp include/loopsched/mapping/concepts.hpp include/loopsched/error.hpp
            include/loopsched/spec.hpp include/loopsched/placement_spec.hpp include/loopsched/hierarchical.hpp
            include/loopsched/departure.hpp include/loopsched/this_task.hpp)
{ cat docs/Doxyfile
  echo "INPUT = ${documented[*]}"
  echo "WARN_IF_UNDOCUMENTED = YES"
  echo "HIDE_UNDOC_MEMBERS = NO"
  echo "HIDE_UNDOC_CLASSES = NO"
  echo "GENERATE_HTML = YES"
  echo "OUTPUT_DIRECTORY = $out/check"; } | doxygen - > "$out/undocumented.log" 2>&1 || {
  cat "$out/undocumented.log" >&2; echo "doxygen_check: undocumented public entities (above)" >&2; exit 1; }
echo "doxygen_check: the reference in $out/html/index.html, no warnings; every entry point, option, outcome, error and concept documented"
