#!/bin/sh
# Distributed ingest, variability and metrics on Open MPI (issue 17), measured on this
# machine: a 64-rank synthetic run written as 16 Kineto-style files of 4 ranks each,
# ingested by `mpirun -n 1` and `-n 2` strata-mpi (median of 3 wall times each), then the
# variability report and the metrics (GPU level, and thread level as JSON) computed by 1
# and 2 ranks (metrics: median of 3), outputs compared byte for byte with each other and
# with `strata`. Then one big file: a 64-rank synthetic Paraver .prv (16 nodes) ingested by
# `mpirun -n 1` (one rank reads it all) and `-n 2` (the file split between the ranks,
# app/mpi/paraver_split.h), median of 3 each, and the runs compared with `strata ingest`
# of the same file: info figures, metrics and a cut of the first 50 ms, byte for byte; then
# the same .prv gzipped, and with a ring of messages between all its nodes added
# ("prvtalk"). The same for one big synthetic Chrome/Kineto .json of 64 ranks
# (app/mpi/chrome_split.h).
#
#   bench/mpi_ingest.sh [BUILD_DIR] [EVENTS_PER_FILE] [PRV_EVENTS] [JSON_EVENTS]
#   (defaults: build, 250000, 4000000, 4000000; 0 skips that case)
set -eu
build=$(cd "${1:-build}" && pwd)
events=${2:-250000}
prvEvents=${3:-4000000}
jsonEvents=${4:-4000000}
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

# One big file split between the ranks: `splitCase EXT FILE WHAT` ingests FILE with
# `mpirun -n 1` (one rank reads it all) and `-n 2` (the file split between the ranks),
# median of 3 each, and compares the runs with `strata ingest` of the same file.
# info --json from its first figure up to the store's bytes (what names the files, and a
# single store's format version against a run's, differ).
figures() { "$build/bin/strata" info "$1" --json | sed 's/"store_bytes".*//; s/^.*"format_version":[0-9]*//'; }
splitCase() {
    ext=$1
    file=$2
    bytes=$(wc -c < "$file")
    echo "one .$ext: $3, $((bytes / 1000000)) MB"
    for n in 1 2; do
        median3 ${ext}$n $mpirun -n $n "$build/bin/strata-mpi" ingest "$file" -o "${ext}$n/run.strata" --threads 1 > "${ext}$n.s"
        echo "one .$ext, ingest with $n rank(s): $(cat ${ext}$n.s) s (median of 3), $(awk "BEGIN { printf \"%.1f\", $bytes / $(cat ${ext}$n.s) / 1e6 }") MB/s"
    done
    echo "one .$ext, speedup 2 ranks / 1 rank: $(awk "BEGIN { printf \"%.2f\", $(cat ${ext}1.s) / $(cat ${ext}2.s) }")"
    mkdir ${ext}0
    "$build/bin/strata" ingest "$file" -o ${ext}0/run.strata --threads 1 2>/dev/null
    for n in 0 1 2; do
        (cd ${ext}$n && "$build/bin/strata" cut run.strata -o cut.json --window 0:50ms 2>/dev/null)
        "$build/bin/strata" metrics ${ext}$n/run.strata --json | sed 's/"store":"[^"]*"//' > ${ext}$n/metrics.json
        figures ${ext}$n/run.strata > ${ext}$n/figures
    done
    echo "one .$ext, shards with 2 ranks: $("$build/bin/strata" info ${ext}2/run.strata --json | grep -o '"path"' | wc -l)"
    for n in 1 2; do
        cmp ${ext}0/figures ${ext}$n/figures && cmp ${ext}0/metrics.json ${ext}$n/metrics.json \
            && cmp ${ext}0/cut.json ${ext}$n/cut.json \
            && echo "one .$ext, $n rank(s): info figures, metrics and cut identical to strata ingest"
    done
}
if [ "$prvEvents" -gt 0 ]; then
    "$build/bin/strata" synth -o big.prv --events "$prvEvents" --ranks 64 2>/dev/null
    splitCase prv big.prv "64 ranks on 16 nodes"
    # The same gzipped: every rank inflates it, keeping its chunks.
    gzip -n -k big.prv
    splitCase prvgz big.prv.gz "the same .prv gzipped"
    # The same with every node talking: a ring of MPI messages, each rank (the odd tasks
    # of the synthetic run; the even ones are their GPUs) to the next and the last to the
    # first, 2000 rounds over the run's span, so that no cut between nodes is free of
    # messages (a message's sender's owner stores it, docs/scale.md).
    awk 'NR == 1 {
            match($0, /:[0-9]+_ns:/); end = substr($0, RSTART + 1, RLENGTH - 5) + 0
            match($0, /\):1:[0-9]+\(/); tasks = substr($0, RSTART + 4, RLENGTH - 5) + 0
         }
         { print }
         END {
            ranks = int(tasks / 2)
            for (r = 0; r < 2000; ++r)
                for (k = 0; k < ranks; ++k) {
                    t = int(end * (r + k / ranks) / 2000)
                    printf "3:1:1:%d:1:%d:%d:1:1:%d:1:%d:%d:64:%d\n", 2 * k + 1, t, t, 2 * ((k + 1) % ranks) + 1, t + 5000, t + 5000, k
                }
         }' big.prv > talk.prv
    echo "talk.prv: $(grep -c "^3:" talk.prv) messages, $(grep -c "^3:" big.prv) in big.prv"
    cp big.pcf talk.pcf
    cp big.row talk.row
    splitCase prvtalk talk.prv "64 ranks on 16 nodes that all exchange messages"
fi
if [ "$jsonEvents" -gt 0 ]; then
    "$build/bin/strata" synth -o big.json --events "$jsonEvents" --ranks 64 2>/dev/null
    splitCase json big.json "64 ranks (Kineto-style pids)"
fi
