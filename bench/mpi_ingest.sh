#!/bin/sh
# Distributed ingest, variability and metrics on Open MPI (issue 17), measured on this
# machine: a 64-rank synthetic run written as 16 Kineto-style files of 4 ranks each,
# ingested by `mpirun -n 1` and `-n 2` strata-mpi (median of 3 wall times each), then the
# variability report and the metrics (GPU level, and thread level as JSON) computed by 1
# and 2 ranks (metrics: median of 3), outputs compared byte for byte with each other and
# with `strata`. Then one big file: a 64-rank synthetic Paraver .prv (16 nodes) ingested by
# `mpirun -n 1` (one rank reads it all) and `-n 2` (the file split between the ranks,
# app/mpi/paraver_split.h), median of 3 each, and the runs compared with `strata ingest`
# of the same file: info figures, metrics and a cut of the first 50 ms, byte for byte.
#
#   bench/mpi_ingest.sh [BUILD_DIR] [EVENTS_PER_FILE] [PRV_EVENTS]
#   (defaults: build, 250000, 4000000; EVENTS_PER_FILE 0 skips the rank files)
set -eu
build=$(cd "${1:-build}" && pwd)
events=${2:-250000}
prvEvents=${3:-4000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-mpi-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
mpirun="mpirun --allow-run-as-root --oversubscribe"
median() { sort -g | sed -n 2p; }
# Wall seconds of a command, the median of 3 runs; `fresh` (a folder) is emptied before each.
median3() {
    fresh=$1
    shift
    for i in 1 2 3; do
        [ -z "$fresh" ] || { rm -rf "$fresh" && mkdir "$fresh"; }
        start=$(date +%s.%N)
        "$@" 2>/dev/null
        end=$(date +%s.%N)
        awk "BEGIN { print $end - $start }"
    done | median
}
if [ "$events" -gt 0 ]; then
files=""
for k in $(seq 0 15); do
    "$build/bin/strata" synth -o "ranks$k.json" --events "$events" --ranks 4 --seed $((k + 1)) 2>/dev/null
    files="$files ranks$k.json"
done
bytes=$(cat $files | wc -c)
echo "input: 16 files, 64 ranks, $((bytes / 1000000)) MB"
for n in 1 2; do
    median3 "" $mpirun -n $n "$build/bin/strata-mpi" ingest $files -o "run$n.strata" --threads 1 > "ingest$n.s"
    echo "ingest with $n rank(s): $(cat ingest$n.s) s (median of 3), $(awk "BEGIN { printf \"%.1f\", $bytes / $(cat ingest$n.s) / 1e6 }") MB/s"
done
echo "speedup 2 ranks / 1 rank: $(awk "BEGIN { printf \"%.2f\", $(cat ingest1.s) / $(cat ingest2.s) }")"
for n in 1 2; do
    start=$(date +%s.%N)
    $mpirun -n $n "$build/bin/strata-mpi" variability run2.strata --json > "variability$n.json"
    end=$(date +%s.%N)
    echo "variability with $n rank(s): $(awk "BEGIN { print $end - $start }") s"
done
cmp variability1.json variability2.json && echo "variability: identical outputs with 1 and 2 ranks"
"$build/bin/strata" variability run2.strata --json | cmp - variability2.json && echo "variability: identical to strata variability"
# metrics: the default (GPU level) table and the thread level as JSON.
for n in 1 2; do
    for opts in "" "--level thread --json"; do
        tag=$(echo "$n $opts" | tr -c 'a-z0-9\n' '_')
        for i in 1 2 3; do
            start=$(date +%s.%N)
            $mpirun -n $n "$build/bin/strata-mpi" metrics run2.strata $opts > "metrics$tag.out"
            end=$(date +%s.%N)
            awk "BEGIN { print $end - $start }"
        done | median > "metrics$tag.s"
        echo "metrics ${opts:-(gpu level)} with $n rank(s): $(cat metrics$tag.s) s (median of 3)"
    done
done
for opts in "" "--level thread --json"; do
    one=$(echo "1 $opts" | tr -c 'a-z0-9\n' '_')
    two=$(echo "2 $opts" | tr -c 'a-z0-9\n' '_')
    cmp "metrics$one.out" "metrics$two.out" && echo "metrics ${opts:-(gpu level)}: identical outputs with 1 and 2 ranks"
    "$build/bin/strata" metrics run2.strata $opts | cmp - "metrics$two.out" && echo "metrics ${opts:-(gpu level)}: identical to strata metrics"
done
fi

# One big file split between the ranks.
"$build/bin/strata" synth -o big.prv --events "$prvEvents" --ranks 64 2>/dev/null
bytes=$(wc -c < big.prv)
echo "one .prv: 64 ranks on 16 nodes, $((bytes / 1000000)) MB"
for n in 1 2; do
    median3 prv$n $mpirun -n $n "$build/bin/strata-mpi" ingest big.prv -o "prv$n/run.strata" --threads 1 > "prv$n.s"
    echo "one .prv, ingest with $n rank(s): $(cat prv$n.s) s (median of 3), $(awk "BEGIN { printf \"%.1f\", $bytes / $(cat prv$n.s) / 1e6 }") MB/s"
done
echo "one .prv, speedup 2 ranks / 1 rank: $(awk "BEGIN { printf \"%.2f\", $(cat prv1.s) / $(cat prv2.s) }")"
mkdir prv0
"$build/bin/strata" ingest big.prv -o prv0/run.strata --threads 1 2>/dev/null
# info --json from its first figure up to the store's bytes (what names the files differs).
figures() { "$build/bin/strata" info "$1" --json | sed 's/"store_bytes".*//; s/^.*"format_version"//'; }
for n in 0 1 2; do
    (cd prv$n && "$build/bin/strata" cut run.strata -o cut.json --window 0:50ms 2>/dev/null)
    "$build/bin/strata" metrics prv$n/run.strata --json | sed 's/"store":"[^"]*"//' > prv$n/metrics.json
    figures prv$n/run.strata > prv$n/figures
done
echo "one .prv, shards with 2 ranks: $("$build/bin/strata" info prv2/run.strata --json | grep -o '"path"' | wc -l)"
for n in 1 2; do
    cmp prv0/figures prv$n/figures && cmp prv0/metrics.json prv$n/metrics.json && cmp prv0/cut.json prv$n/cut.json \
        && echo "one .prv, $n rank(s): info figures, metrics and cut identical to strata ingest"
done
