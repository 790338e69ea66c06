#!/bin/sh
# Distributed ingest and variability on Open MPI (issue 17), measured on this machine:
# a 64-rank synthetic run written as 16 Kineto-style files of 4 ranks each, ingested by
# `mpirun -n 1` and `-n 2` strata-mpi (median of 3 wall times each), and the variability
# report computed by 1 and 2 ranks (outputs compared byte for byte).
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
