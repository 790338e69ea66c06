// HelperThread runs every item of a loop once, on the caller and on its helper thread,
// and returns only when the items the helper took are done.

#include "storage/store/helper_thread.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace strata;

TEST_CASE("a helper thread shares a loop's items and is waited for", "[store][helper]") {
    storage::HelperThread helper;
    for (int round = 0; round < 3; ++round) {
        constexpr std::size_t kItems = 64;
        std::vector<std::atomic<int>> runs(kItems);
        std::atomic<bool> helperTook = false;
        std::atomic<bool> helperDone = false;
        helper.run(kItems, [&](std::size_t item, int worker) {
            ++runs[item];
            if (worker == 1 && !helperTook.exchange(true)) {
                // The caller must wait for this item, which ends after it ran out of items.
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                helperDone = true;
            }
            if (worker == 0 && item == 0) {
                // Hold the caller on its first item until the helper has joined in.
                const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
                while (!helperTook && std::chrono::steady_clock::now() < deadline)
                    std::this_thread::yield();
            }
        });
        CHECK(helperTook);
        CHECK(helperDone);
        for (const auto& r : runs)
            CHECK(r == 1);
    }
    // A loop of no items, and one the caller finishes before the helper wakes.
    helper.run(0, [](std::size_t, int) { FAIL("no item"); });
    std::atomic<int> total = 0;
    helper.run(1, [&](std::size_t, int) { ++total; });
    CHECK(total == 1);
}

TEST_CASE(
    "a call that throws ends a helper thread's loop, and the loop rethrows it", "[store][helper]") {
    // The reader's query runs its halves through a helper: a corrupted tile read on either
    // core must come back to the caller as the error, not end the process.
    storage::HelperThread helper;
    for (const int throwing : { 0, 1 }) {
        std::atomic<int> ran = 0;
        auto loop = [&] {
            helper.run(2, [&](std::size_t item, int) {
                ++ran;
                if (static_cast<int>(item) == throwing)
                    throw std::runtime_error("item " + std::to_string(item));
            });
        };
        CHECK_THROWS_WITH(loop(), "item " + std::to_string(throwing));
        CHECK(ran >= 1);
    }
    // Still serves loops afterwards.
    std::atomic<int> total = 0;
    helper.run(16, [&](std::size_t, int) { ++total; });
    CHECK(total == 16);
}
