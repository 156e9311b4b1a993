#!/usr/bin/env bash
# Every comparison of cstsim with silicon, RTL or another simulator, in one table and one figure:
# runs validation/<study>/run.sh for each study, then validation/table.py. README.md (this
# directory) says what each study compares and which rows set a parameter.
#
#   validation/run.sh [build-dir] [out-dir]          (about 30 s on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OUT=${2:-out/validation}
mkdir -p "$OUT"
for study in eyeriss tpu-v1 gemmini hbm-ramulator2; do
  echo "== $study"
  "validation/$study/run.sh" "$BUILD" "$OUT/$study"
done
echo "== table"
# Debian's python3 has matplotlib (the figure); another first on PATH may not.
PY=${CSTSIM_PYTHON:-/usr/bin/python3}
[[ -x $PY ]] || PY=python3
"$PY" validation/table.py "$OUT"
echo "table: $OUT/table.md, figure: $OUT/validation.png"
