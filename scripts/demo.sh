#!/usr/bin/env bash
# The main job on a bundled example: count a workload with pmukit stat, show
# how events encode on an Intel hybrid machine from its bundled PMU tree, and
# TopDown on the PMU model's hybrid scenario, with its intervals as an SVG.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh build
pmukit=build/tools/pmukit/pmukit
echo "### pmukit stat on the bundled workload (touches 2000 pages)"
"$pmukit" stat -e task-clock,page-faults,context-switches,cpu-migrations,cycles,instructions \
  -- build/examples/workload 2000 || true
echo
echo "### The same events on an Alder Lake hybrid machine (tests/data/sysfs/alderlake): what would be opened"
PMUKIT_SYSFS=tests/data/sysfs/alderlake PMUKIT_CPUID=GenuineIntel-6-97-2 \
  "$pmukit" encode -e '{cycles,instructions},cpu_atom/topdown-retiring/,inst_retired.any'
echo
echo "### TopDown on the PMU model (Alder Lake hybrid scenario), every 250 ms, drawn as an SVG"
svg=build/demo-topdown.svg
"$pmukit" stat --topdown --td-level 2 --model examples/model/alderlake-hybrid.json -I 250 \
  --plot "$svg"
echo "The chart is in $svg (open it in a browser: a panel per core type, Level 1 and 2)"
