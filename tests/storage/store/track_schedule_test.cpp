// The store builder's workers take, of the tracks the writer lets them start, the one
// with the most events first, so that short tracks are what is left at the end.

#include "storage/store/track_schedule.h"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

using strata::storage::TrackSchedule;

TEST_CASE("tracks are taken heaviest first within what may start, the first of equals first",
    "[store][schedule]") {
    TrackSchedule schedule({ 1, 5, 3, 5, 2, 9 });
    CHECK(schedule.firstUntaken() == 0);
    CHECK(schedule.take(5) == 1);  // 9 lies past the end given
    CHECK(schedule.take(5) == 3);
    CHECK(schedule.take(5) == 2);
    CHECK(schedule.firstUntaken() == 0);
    CHECK(schedule.take(6) == 5);
    CHECK(schedule.take(6) == 4);
    CHECK(schedule.take(6) == 0);
    CHECK(schedule.firstUntaken() == 6);
    CHECK_THROWS_AS(schedule.take(6), std::logic_error);
}

TEST_CASE("the first untaken track moves past every taken one", "[store][schedule]") {
    TrackSchedule schedule({ 0, 0, 7, 0 });
    CHECK(schedule.take(2) == 0);  // equal weights: in track order
    CHECK(schedule.firstUntaken() == 1);
    CHECK(schedule.take(4) == 2);
    CHECK(schedule.firstUntaken() == 1);
    CHECK(schedule.take(4) == 1);
    CHECK(schedule.firstUntaken() == 3);  // 2 was taken already
    CHECK_THROWS_AS(schedule.take(3), std::logic_error);
    CHECK(schedule.take(4) == 3);
    CHECK(schedule.firstUntaken() == 4);
}
