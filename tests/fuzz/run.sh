#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/fuzz_*.cpp) with clang, ASan and UBSan into build-fuzz/,
# seeds each one's corpus from the shipped files of its kind, and runs every target for SECONDS
# (default 60), two at a time. A crash, an uncaught exception other than an input error, a
# sanitizer report, a leak or an input taking over 10 s fails the run; its input is kept under
# build-fuzz/artifacts/ (replay: build-fuzz/fuzz_X build-fuzz/artifacts/fuzz_X-crash-...).
# The mutation seed is fixed (FUZZ_SEED, default 1) and the corpus starts from the seeds alone, so
# CI explores what a local run of the same length explored, not a new random walk each time.
#   tests/fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
SECS=${1:-60}
SEED=${FUZZ_SEED:-1}
shift || true
B=build-fuzz
cmake -S tests/fuzz -B $B -G Ninja -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build $B -j 2 >/dev/null

rm -rf $B/corpus  # the seeds alone (a corpus grown by earlier runs would start elsewhere)
seed() {  # seed TARGET FILE...: copies the files into the target's corpus
  local dir=$B/corpus/$1
  shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/$(echo "$f" | tr / _)"; done
  return 0
}
seed fuzz_energy_table configs/energy/*.yaml
mkdir -p $B/corpus/fuzz_normalization
printf 'boundary: node\nreference:\n  C_ref: {value: 1024, unit: PE}\n  M_ref: {value: 2048, unit: byte}\n  N_ref: {value: 96, unit: link}\n  S_ref: {value: 1, unit: byte}\nweights: {w_C: 1, w_M: 1, w_N: 1, w_S: 1}\n' \
  > $B/corpus/fuzz_normalization/node
seed fuzz_workload_yaml configs/workloads/*.yaml configs/workloads/models/*.yaml configs/sweeps/workloads/*.yaml
seed fuzz_topology_csv configs/workloads/*.csv tests/golden/scalesim-v2/inputs/*.csv
seed fuzz_arch configs/arch/*.yaml tests/golden/scalesim-v2/inputs/*.cfg
mkdir -p $B/corpus/fuzz_constraint $B/corpus/fuzz_sweep_spec $B/corpus/fuzz_trace $B/corpus/fuzz_onnx  # onnx: seeds its own
printf 'array.rows == array.cols' > $B/corpus/fuzz_constraint/eq
printf "(array.rows + array.cols) * 1024 <= 2 * 1024 * 1024 && dataflow != 'is' || batch == 1" > $B/corpus/fuzz_constraint/mixed
printf "!(array.rows > 64 && dataflow == 'os')" > $B/corpus/fuzz_constraint/not
printf 'name: sw\nbase: a.yaml\nworkloads: [w.yaml]\nbatch: [1, 2]\ngrid:\n  array.rows: [8, 16]\n  dataflow: [ws, os]\nconstraints:\n  - array.rows == array.cols\n' \
  > $B/corpus/fuzz_sweep_spec/grid
printf 'name: sw\nbase: a.yaml\nworkloads: [w.yaml]\ngrid:\n  array.rows: {from: 8, to: 64, times: 2}\n' > $B/corpus/fuzz_sweep_spec/range
cstsim_bin=$(ls build/cstsim build-asan/cstsim 2>/dev/null | head -1 || true)
if [ -n "$cstsim_bin" ]; then  # a real trace, its files joined as fuzz_trace.cpp cuts them
  t=$(mktemp -d)
  printf 'name: t\narray: {rows: 8, cols: 8}\ndataflow: ws\n' > $t/a.yaml
  printf 'name: w\nlayers:\n  - {name: g1, M: 16, N: 16, K: 16}\n  - {name: g2, M: 8, N: 24, K: 12}\n' > $t/w.yaml
  SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$cstsim_bin" run -q --arch $t/a.yaml --workload $t/w.yaml --out $t/r --window 64
  for f in manifest.json resources.csv layers.csv actions.csv; do cat $t/r/trace/$f; printf '\n%%%%\n'; done \
    > $B/corpus/fuzz_trace/run
  cat $t/r/trace/rt.bin >> $B/corpus/fuzz_trace/run
  rm -rf $t
fi

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(cd $B && ls fuzz_* | grep -v '\.'))
mkdir -p $B/artifacts $B/logs
status=0
run() {  # in a directory of its own, its scratch files too: libFuzzer may write there, and exits without cleaning
  mkdir -p "$ROOT/$B/work/$1"
  (cd "$ROOT/$B/work/$1" && TMPDIR="$ROOT/$B/work/$1" ASAN_OPTIONS=detect_leaks=1 "$ROOT/$B/$1" "$ROOT/$B/corpus/$1" -max_total_time=$SECS -seed=$SEED \
     -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
     -artifact_prefix="$ROOT/$B/artifacts/$1-" > "$ROOT/$B/logs/$1.log" 2>&1)
}
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  pids=()
  for t in "${targets[@]:i:2}"; do run "$t" & pids+=($!); done
  for k in "${!pids[@]}"; do
    t=${targets[$((i + k))]}
    if wait "${pids[$k]}"; then
      echo "$t: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' $B/logs/$t.log | grep -o '[0-9]*$') runs in ${SECS} s, final $(grep -o 'cov: [0-9]*' $B/logs/$t.log | tail -1) ok"
    else
      echo "$t: FAILED (see $B/logs/$t.log; input in $B/artifacts/)"
      grep -m3 -E 'ERROR|terminate|deadly|SUMMARY' $B/logs/$t.log || true
      status=1
    fi
  done
done
exit $status
