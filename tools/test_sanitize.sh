#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer: the `asan` preset's build
# (CMakePresets.json, clang, -O2, asserts on), every test and every cstsim process a test starts.
# Reports go to files under BUILD/sanitizer-logs/ (stderr stays what the tests compare); the run
# fails if a test fails or any report was written, and prints the reports. Then the CLI smoke set
# (tools/cli_smoke.sh) under the same options.
#   tools/test_sanitize.sh [BUILD] [ctest arguments...]
# The `long` label is sampled (CI's 30 minutes on 2 cores): the long tests below 20 s instrumented
# run; the heavy ones are left to the Release suite (`make test`): each is a larger or longer
# instance of a check the default suite makes on smaller shapes (Equivalence.ThousandRandomShapes,
# Sampled.RandomHierarchiesShortSample and RandomKernelsShortSample,
# the NoC, vector-unit, pipeline, decode and preset tests; the validation table reruns whole
# studies), and together they took 520 s of the
# instrumented suite's 1,540 s.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-asan}
shift || true
logs=$PWD/$B/sanitizer-logs
rm -rf "$logs" && mkdir -p "$logs"
# Nothing is suppressed (tests/README.md, "Sanitizers"). detect_stack_use_after_return stays off:
# its fake stacks are per thread, and SystemC's coroutines share the one thread.
export ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_invalid_pointer_pairs=0:abort_on_error=0"
export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
status=0
heavy='LongLlamaBlockAtTensorParallel248|Equivalence\.LongLargerShapes|NocThroughput\.LongSaturationCurves'
heavy+='|VectorUnit\.LongRmsNormAtTheSeedsShape|Cli\.LongPipelineVerifiesOnRandomChains|MemoryPhysics\.LongDecodeGemv'
heavy+='|GoldenPresetLong\.MatchesItsGolden/npu_128_hbm3__resnet50 |Verify\.LongThousandRandomCases|Sampled\.LongRandomHierarchies|Sampled\.LongRandomKernels'
heavy+='|Cli\.ValidationLongTableHoldsItsRows'  # validation/run.sh, every study: 14 s in Release
ctest --test-dir "$B" -j "${JOBS:-2}" --output-on-failure -E "$heavy" "$@" || status=1
tools/cli_smoke.sh "$B/cstsim" || status=1
if compgen -G "$logs/*" > /dev/null; then
  echo "sanitizer reports:"
  for f in "$logs"/*; do echo "== $f"; head -40 "$f"; done
  status=1
else
  echo "no sanitizer report"
fi
exit $status
