#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer: the `asan` preset's build
# (CMakePresets.json, clang, -O2, asserts on), every test and every cstsim process a test starts.
# Reports go to files under BUILD/sanitizer-logs/ (stderr stays what the tests compare); the run
# fails if a test fails or any report was written, and prints the reports. Then the CLI smoke set
# (tools/cli_smoke.sh) under the same options.
#   tools/test_sanitize.sh [BUILD] [ctest arguments...]
# The `long` label is sampled: every long test but the three-minute Llama block at tensor
# parallelism 2/4/8 (about 12 minutes instrumented; the Release suite runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-asan}
shift || true
logs=$PWD/$B/sanitizer-logs
rm -rf "$logs" && mkdir -p "$logs"
# detect_stack_use_after_return stays off: SystemC switches stacks under the sanitizer's fake stacks.
export ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_invalid_pointer_pairs=0:abort_on_error=0"
export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tools/sanitizers/lsan.supp:print_suppressions=0"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
status=0
ctest --test-dir "$B" -j "${JOBS:-2}" --output-on-failure -E 'LongLlamaBlockAtTensorParallel248' "$@" || status=1
tools/cli_smoke.sh "$B/cstsim" || status=1
if compgen -G "$logs/*" > /dev/null; then
  echo "sanitizer reports:"
  for f in "$logs"/*; do echo "== $f"; head -40 "$f"; done
  status=1
else
  echo "no sanitizer report"
fi
exit $status
