#pragma once
// SampleFlameSummarizer builds the flame pyramid of a track's stack samples from pieces of
// them in time order (track_pieces.h), in bounded memory: the pyramid
// summarizeFlameSamples() gives for the samples held whole, bucket for bucket.
//
// Three passes over the pieces, each piece sorted by time (stably: the pieces in order are
// the track's samples sorted):
//   1. count(): the samples' first and last times, and per level how many buckets they
//      fill, which give the pyramid's top and its first level (summarizeFlameSamples'
//      rule);
//   2. measure(): each level built and counted (its buckets and entries), which gives the
//      first level worth storing (flame_summarizer.cpp's buildLevels rule);
//   3. build(): the levels stored, handed to the sink a bucket at a time, a level's
//      buckets in time order.
// A level is built as the samples pass: one open bucket per level, closed when a sample
// (or a closed bucket of the level below) falls past it, its entries then added to the
// open bucket of the level above. Memory holds an open bucket per level: its paths.

#include "storage/store/flame_summarizer.h"

#include <cstdint>
#include <memory>
#include <span>

namespace strata::storage {

class SampleFlameSummarizer
{
public:
    /// `events`: the track's samples in all.
    SampleFlameSummarizer(
        const model::LodGrid& grid, const FlameSummaryOptions& options, std::int64_t events);
    ~SampleFlameSummarizer();
    SampleFlameSummarizer(const SampleFlameSummarizer&) = delete;
    SampleFlameSummarizer& operator=(const SampleFlameSummarizer&) = delete;

    /// Whether there is a pyramid to build: samples enough (options.minEvents). When not,
    /// the passes need not be made.
    bool wanted() const;
    void count(std::span<const model::StackSample> piece);
    void measure(std::span<const model::StackSample> piece);
    /// After the second pass: the levels stored (none: build() and finish() do nothing).
    FlameStoredLevels levels();
    void build(std::span<const model::StackSample> piece, const FlameBucketSink& sink);
    void finish(const FlameBucketSink& sink);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

}  // namespace strata::storage
