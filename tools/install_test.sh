#!/bin/bash
# `cmake --install` into a fresh prefix gives a cstsim that runs from any directory on the presets
# installed beside it (share/cstsim/configs), not on the source tree's. Usage: install_test.sh BUILD
set -euo pipefail
build=$1
prefix=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
cd "$work"
version=$("$prefix/bin/cstsim" --version)
grep -qF "configs: $prefix/share/cstsim/configs" <<<"$version" || { echo "not the installed configs: $version"; exit 1; }
grep -qF "plot scripts: $prefix/share/cstsim/plot" <<<"$version" || { echo "not the installed scripts: $version"; exit 1; }
c="$prefix/share/cstsim/configs"
# The arch names its HBM, NoC and energy files relative to itself: all of them installed.
"$prefix/bin/cstsim" run -q --arch "$c/arch/npu-128-hbm3.yaml" --workload "$c/workloads/gemm-1024.yaml" --out run --no-trace
test -f run/summary.json
test -s run/energy.yaml
test -f "$prefix/share/doc/cstsim/LICENSE"
# man cstsim: the page renders, and has a section for every command `cstsim --help` lists.
page="$prefix/share/man/man1/cstsim.1"
MANWIDTH=100 man -l "$page" > "$work/man.txt" 2> "$work/man.err" || { cat "$work/man.err"; exit 1; }
for cmd in $("$prefix/bin/cstsim" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}'); do
  grep -q "^   $cmd\$" "$work/man.txt" || { echo "man page has no section for $cmd"; exit 1; }
done
echo "install_test: OK ($prefix)"
