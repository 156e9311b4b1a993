#!/bin/bash
# Stops the one-node cluster of tools/slurm/up.sh: slurmd, slurmctld, munged, each by its pid
# file (never by name). `--purge` also deletes $CSTSIM_SLURM_DIR (default /tmp/cstsim-slurm).
D=${CSTSIM_SLURM_DIR:-/tmp/cstsim-slurm}
for f in "$D/run/slurmd.pid" "$D/run/slurmctld.pid" /run/munge/munged.pid; do
  [ -s "$f" ] || continue
  pid=$(cat "$f")
  kill "$pid" 2>/dev/null || { rm -f "$f"; continue; }
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
  rm -f "$f"
done
[ "${1:-}" = --purge ] && rm -rf "$D"
echo "slurm down"
