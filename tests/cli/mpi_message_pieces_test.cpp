// strata-mpi's messages of any size (issue 17): the pieces of a collective's rounds keep
// every MPI count and displacement within the limit, and cover every byte once.

#include "app/mpi/message_pieces.h"

#include <catch2/catch.hpp>

#include <climits>
#include <cstdlib>

using strata::app::mpi::MessagePieces;

TEST_CASE("MPI message pieces: rounds within the limit cover each byte once", "[cli][mpi]") {
    for (const int ranks : { 1, 2, 3, 7 }) {
        for (const std::size_t limit : { std::size_t(1), std::size_t(7), std::size_t(64) }) {
            const MessagePieces pieces(limit, ranks);
            INFO("ranks " << ranks << ", limit " << limit);
            CHECK(pieces.piece() >= 1);
            // A round's pieces of all ranks, side by side, stay within the limit (one
            // byte each at least).
            CHECK(pieces.piece() * static_cast<std::size_t>(ranks)
                <= std::max<std::size_t>(limit, ranks));
            for (std::size_t bytes = 0; bytes < 200; ++bytes) {
                std::size_t next = 0;
                for (std::size_t r = 0; r < pieces.rounds(bytes); ++r) {
                    CHECK(pieces.offset(bytes, r) == next);
                    CHECK(pieces.count(bytes, r) >= 1);
                    CHECK(pieces.count(bytes, r) <= pieces.piece());
                    next += pieces.count(bytes, r);
                }
                CHECK(next == bytes);
                // Past its last round a rank sends nothing (others may still have rounds).
                CHECK(pieces.count(bytes, pieces.rounds(bytes)) == 0);
            }
        }
    }
}

TEST_CASE("MPI message pieces: 5 GB to 64 ranks fits int counts", "[cli][mpi]") {
    const MessagePieces pieces(INT_MAX, 64);
    const std::size_t bytes = std::size_t(5) << 30;
    CHECK(pieces.rounds(bytes) > 1);
    CHECK(pieces.piece() * 64 <= std::size_t(INT_MAX));
    std::size_t sum = 0;
    for (std::size_t r = 0; r < pieces.rounds(bytes); ++r) {
        CHECK(pieces.count(bytes, r) <= std::size_t(INT_MAX));
        CHECK(pieces.offset(bytes, r) == sum);
        sum += pieces.count(bytes, r);
    }
    CHECK(sum == bytes);
}

TEST_CASE("MPI message pieces: STRATA_MPI_MAX_MESSAGE lowers the limit", "[cli][mpi]") {
    ::setenv("STRATA_MPI_MAX_MESSAGE", "100", 1);
    CHECK(strata::app::mpi::maxMessageBytes() == 100);
    ::setenv("STRATA_MPI_MAX_MESSAGE", "junk", 1);
    CHECK(strata::app::mpi::maxMessageBytes() == std::size_t(INT_MAX));
    ::unsetenv("STRATA_MPI_MAX_MESSAGE");
    CHECK(strata::app::mpi::maxMessageBytes() == std::size_t(INT_MAX));
}
