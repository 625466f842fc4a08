#!/usr/bin/env bash
# Runs one fuzz target for SECONDS of wall time with its corpus and
# dictionary: fuzz/run.sh TARGET SECONDS [BUILDDIR] [extra libFuzzer args]
# Build first (see fuzz/meson.build). New inputs go to a scratch corpus so the
# seed corpus in the tree stays small; crashes land in $PK_FUZZ_WORK/artifacts
# (default /tmp/pmukit-fuzz-TARGET/artifacts).
# Each target has its own input size limit (-max_len): event strings, cpu
# lists and format specs are short; perf.data files need room for real
# recordings (the seeds in corpus/perfdata_fuzz are real files of up to
# ~11 KiB; 1 MiB leaves room to grow them); scenarios (JSON, seeds from
# examples/model, under 1.5 KiB) get 4 KiB; ELF files (seeds: small programs and a
# library, gcc's and lld's layouts, 7-16 KiB) 64 KiB. A -max_len among the extra
# arguments overrides it (libFuzzer takes the last one given).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target=${1:?usage: fuzz/run.sh TARGET SECONDS [BUILDDIR]}
seconds=${2:?usage: fuzz/run.sh TARGET SECONDS [BUILDDIR]}
build=${3:-$here/../build-fuzz}
shift $(( $# < 3 ? $# : 3 ))
exe=$build/fuzz/$target
[ -x "$exe" ] || { echo "no $exe: build with -Dfuzz=true (see fuzz/meson.build)" >&2; exit 2; }
work=${PK_FUZZ_WORK:-/tmp/pmukit-fuzz-$target}
mkdir -p "$work/corpus" "$work/artifacts"
case $target in
  perfdata_fuzz|spe_perfdata_fuzz) max_len=1048576 ;;
  stat_perfdata_fuzz) max_len=65536 ;;
  spe_packet_fuzz|intelpt_packet_fuzz) max_len=65536 ;;
  scenario_fuzz) max_len=4096 ;;
  sampling_fuzz) max_len=4096 ;;
  kcache_fuzz) max_len=8192 ;;
  trace_fuzz) max_len=131072 ;;
  unwind_fuzz) max_len=16384 ;;
  elf_fuzz) max_len=65536 ;;
  *) max_len=512 ;;
esac
dict=()
[ -f "$here/dict/$target.dict" ] && dict=(-dict="$here/dict/$target.dict")
seeds=()
[ -d "$here/corpus/$target" ] && seeds=("$here/corpus/$target")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
exec "$exe" "$work/corpus" "${seeds[@]}" "${dict[@]}" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=$max_len \
  -artifact_prefix="$work/artifacts/$target-" -print_final_stats=1 "$@"
