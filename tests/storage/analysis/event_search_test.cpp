// Search finds every interval of a matching name once, whatever the chunking.

#include "storage/analysis/event_search.h"
#include "storage/store/store_builder.h"
#include "tests/support/temp_dir.h"

#include <catch2/catch.hpp>

using namespace strata;

namespace {

storage::SearchRequest request(std::string pattern, bool regex = false)
{
    storage::SearchRequest r;
    r.pattern = std::move(pattern);
    r.regex = regex;
    return r;
}

} // namespace

TEST_CASE("search counts each matching interval once, by substring or regex, in a window", "[search]")
{
    test::TempDir dir;
    const auto path = dir / "s.strata";
    {
        storage::StoreBuilder b(path);
        const auto t1 = b.addTrack(model::kNoTrack, model::ResourceKind::Thread, "t1");
        const auto t2 = b.addTrack(model::kNoTrack, model::ResourceKind::Thread, "t2");
        // A long interval spanning every search chunk, then 1000 short ones per track.
        b.addInterval(t1, {0, 1'000'000, b.intern("ncclAllReduce_long"), {}, model::kAutoDepth});
        for (int i = 0; i < 1000; ++i) {
            const model::TimeNs t = i * 1000;
            b.addInterval(t1, {t, t + 500, b.intern(i % 10 ? "gemm" : "ncclKernel_AllReduce"), {}, model::kAutoDepth});
            b.addInterval(t2, {t + 100, t + 300, b.intern(i % 2 ? "GEMM_big" : "memcpy"), {}, model::kAutoDepth});
        }
        b.finish();
    }
    storage::StoreReader store(path);

    storage::SearchRequest nccl = request("nccl");
    auto r = storage::searchIntervals(store, nccl);
    CHECK(r.count == 101);  // the long one once, plus 100 kernels
    CHECK(r.names.size() == 2);
    REQUIRE(r.matches.size() == 101);
    CHECK(std::is_sorted(r.matches.begin(), r.matches.end(),
                         [](const auto& a, const auto& b) { return a.interval.startNs < b.interval.startNs; }));

    storage::SearchRequest gemm = request("gemm");  // case-insensitive substring
    CHECK(storage::searchIntervals(store, gemm).count == 900 + 500);
    storage::SearchRequest exact = request("^gemm$", true);
    CHECK(storage::searchIntervals(store, exact).count == 900);

    storage::SearchRequest window = request("memcpy");
    window.window = model::TimeRange{0, 10'000};  // kernels starting at 100, 2100, ... 8100
    CHECK(storage::searchIntervals(store, window).count == 5);

    storage::SearchRequest limited = request("gemm");
    limited.limit = 10;
    r = storage::searchIntervals(store, limited);
    CHECK(r.count == 1400);
    CHECK(r.matches.size() == 10);

    CHECK_THROWS_AS(storage::searchIntervals(store, request("(", true)), std::regex_error);
    CHECK(storage::searchIntervals(store, request("no such name")).count == 0);
}
