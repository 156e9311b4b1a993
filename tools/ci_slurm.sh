#!/usr/bin/env bash
# CI check of the Slurm path: brings up the one-node cluster (tools/slurm/up.sh), runs the small
# sweep configs/sweeps/ci-small.yaml through Slurm (job array + afterany reducer, --wait) and
# through the local pool, and requires identical results.csv once the host_* timing columns are
# dropped; then runs the SweepSlurm gtest with CSTSIM_REQUIRE_SLURM=1 (it may not skip). Fails if
# the whole check takes 2 minutes or more.
#
#   tools/ci_slurm.sh [--keep-up] [build-dir]     # as root; build-dir defaults to build
#
# The cluster is stopped again at the end unless it was already up or --keep-up is given.
set -euo pipefail
cd "$(dirname "$0")/.."
KEEP=0
if [ "${1:-}" = --keep-up ]; then KEEP=1; shift; fi
BUILD=${1:-build}
BIN=$(realpath "$BUILD/cstsim")
TESTS=$BUILD/tests/cstsim_tests
start=$(date +%s.%N)

was_up=0
if command -v scontrol >/dev/null && scontrol ping 2>/dev/null | grep -q UP; then was_up=1; fi
tools/slurm/up.sh
T=$(mktemp -d /tmp/cstsim-ci-slurm.XXXXXX)
cleanup() {
  rm -rf "$T"
  if [ "$was_up" = 0 ] && [ "$KEEP" = 0 ]; then tools/slurm/down.sh >/dev/null || true; fi
}
trap cleanup EXIT

SPEC=configs/sweeps/ci-small.yaml
echo "ci_slurm: $SPEC through Slurm"
timeout 110 "$BIN" sweep "$SPEC" --out "$T/slurm" --slurm --chunk 2 --max-running 2 --wait
echo "ci_slurm: $SPEC through the local pool"
"$BIN" sweep "$SPEC" --out "$T/local" --jobs 2

strip() {  # results.csv without host_* columns
  /usr/bin/python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
keep = [i for i, c in enumerate(rows[0]) if not c.startswith("host_")]
w = csv.writer(sys.stdout, lineterminator="\n")
for r in rows:
    w.writerow([r[i] for i in keep])
PY
}
strip "$T/slurm/results.csv" > "$T/slurm.csv"
strip "$T/local/results.csv" > "$T/local.csv"
if ! diff -q "$T/slurm.csv" "$T/local.csv" >/dev/null; then
  echo "error: ci_slurm: results.csv differs between Slurm and the local pool:" >&2
  diff "$T/slurm.csv" "$T/local.csv" | head -20 >&2
  exit 1
fi
rows=$(($(wc -l < "$T/slurm.csv") - 1))
if [ -x "$TESTS" ]; then
  CSTSIM_REQUIRE_SLURM=1 SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$TESTS" --gtest_filter='SweepSlurm.*' --gtest_brief=1
fi
elapsed=$(echo "$start $(date +%s.%N)" | awk '{printf "%.1f", $2-$1}')
if awk -v e="$elapsed" 'BEGIN{exit !(e >= 120)}'; then
  echo "error: ci_slurm: took $elapsed s (limit 120 s)" >&2
  exit 1
fi
echo "ci_slurm: OK: identical results.csv ($rows points) through Slurm and the local pool; $elapsed s in all"
