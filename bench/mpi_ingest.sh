#!/bin/sh
# Distributed ingest, variability and metrics on Open MPI (issue 17), measured on this
# machine: a 64-rank synthetic run written as 16 Kineto-style files of 4 ranks each,
# ingested by `mpirun -n 1` and `-n 2` strata-mpi (median of 3 wall times each), then the
# variability report and the metrics (GPU level, and thread level as JSON) computed by 1
# and 2 ranks (metrics: median of 3), outputs compared byte for byte with each other and
# with `strata`.
#
#   bench/mpi_ingest.sh [BUILD_DIR] [EVENTS_PER_FILE]     (defaults: build, 250000)
set -eu
build=$(cd "${1:-build}" && pwd)
events=${2:-250000}
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-mpi-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
mpirun="mpirun --allow-run-as-root --oversubscribe"
files=""
for k in $(seq 0 15); do
    "$build/bin/strata" synth -o "ranks$k.json" --events "$events" --ranks 4 --seed $((k + 1)) 2>/dev/null
    files="$files ranks$k.json"
done
bytes=$(cat $files | wc -c)
echo "input: 16 files, 64 ranks, $((bytes / 1000000)) MB"
median() { sort -g | sed -n 2p; }
for n in 1 2; do
    for i in 1 2 3; do
        start=$(date +%s.%N)
        $mpirun -n $n "$build/bin/strata-mpi" ingest $files -o "run$n.strata" --threads 1 2>/dev/null
        end=$(date +%s.%N)
        awk "BEGIN { print $end - $start }"
    done | median > "ingest$n.s"
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
