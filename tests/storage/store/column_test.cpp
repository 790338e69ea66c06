// Column<T> keeps what it holds as it grows from the heap into a mapping of its own and
// on through mremap, and behaves as the vector it replaces.

#include "storage/store/column.h"

#include "model/events.h"
#include "storage/store/mapping_pool.h"

#include <catch2/catch.hpp>

#include <vector>

using strata::storage::Column;

TEST_CASE("a column keeps its rows as it grows past its mapping threshold", "[store][column]") {
    Column<strata::model::Flow> flows;  // 48-byte rows: a mapping's pages hold no whole number
    std::vector<strata::model::Flow> expected;
    const std::size_t rows =
        3 * Column<strata::model::Flow>::kMappedBytes / sizeof(strata::model::Flow) + 17;
    for (std::size_t i = 0; i < rows; ++i) {
        const strata::model::Flow f { .fromNs = static_cast<std::int64_t>(i),
            .toTrack = 3,
            .toNs = static_cast<std::int64_t>(2 * i),
            .tag = -static_cast<std::int64_t>(i) };
        flows.push_back(f);
        expected.push_back(f);
        if (i == 1000 || i == rows / 2) {  // in the heap, then mapped
            REQUIRE(flows.size() == expected.size());
            REQUIRE(std::equal(flows.begin(), flows.end(), expected.begin()));
        }
    }
    CHECK(
        flows.capacity() * sizeof(strata::model::Flow) > Column<strata::model::Flow>::kMappedBytes);
    CHECK(std::equal(flows.begin(), flows.end(), expected.begin(), expected.end()));

    Column<strata::model::Flow> copy = flows;
    CHECK(copy == flows);
    Column<strata::model::Flow> moved = std::move(copy);
    CHECK(moved == flows);
    CHECK(copy.empty());
    Column<strata::model::Flow>().swap(moved);
    CHECK(moved.empty());
    CHECK(moved.capacity() == 0);
}

TEST_CASE("a column resizes, appends and inserts at its end like a vector", "[store][column]") {
    Column<char> bytes;
    bytes.append("abc", 3);
    bytes.resize(5, 'x');
    bytes.push_back('!');
    CHECK(strata::storage::view(bytes) == "abcxx!");
    const std::string more(Column<char>::kMappedBytes, 'm');
    bytes.insert(bytes.end(), more.begin(), more.end());
    CHECK(bytes.size() == 6 + more.size());
    CHECK(strata::storage::view(bytes).substr(0, 7) == "abcxx!m");
    CHECK_THROWS_AS(bytes.insert(bytes.begin(), more.begin(), more.end()), std::logic_error);
    Column<char> copied;  // from another column's rows: one copy
    copied.push_back('<');
    copied.insert(copied.end(), bytes.begin(), bytes.end());
    CHECK(copied.size() == bytes.size() + 1);
    CHECK(strata::storage::view(copied).substr(1) == strata::storage::view(bytes));
    bytes.clear();
    CHECK(bytes.empty());
    bytes.resize(2);
    CHECK(strata::storage::view(bytes) == std::string_view("\0\0", 2));

    Column<std::uint64_t> ends(4, 7);
    ends.reserve(1 << 20);  // mapped at once
    CHECK(ends.size() == 4);
    CHECK(ends.back() == 7);
    ends.emplace_back(9) += 1;
    CHECK(ends[4] == 10);
}

TEST_CASE("while a builder tiles, a column that outgrows the heap takes a mapping a released "
          "column left",
    "[store][column]") {
    using strata::storage::kPooledBytes;
    using strata::storage::pooledMappingBytes;
    REQUIRE(pooledMappingBytes() == 0);
    {
        Column<char> viewers(3 * Column<char>::kMappedBytes, 'v');
        Column<char>().swap(viewers);  // no builder tiles: unmapped at once
        CHECK(pooledMappingBytes() == 0);
    }
    {
        const strata::storage::PooledMappings tiling;
        Column<char> parsed(3 * Column<char>::kMappedBytes, 'p');
        const char* mapping = parsed.data();
        const std::size_t capacity = parsed.capacity();
        Column<char>().swap(parsed);  // released: pooled
        CHECK(pooledMappingBytes() == capacity);

        Column<char> spool;
        spool.append("head", 4);  // in the heap
        const std::string tiles(Column<char>::kMappedBytes, 't');
        spool.append(tiles.data(), tiles.size());  // past the heap: the pooled mapping
        CHECK(spool.data() == mapping);
        CHECK(spool.capacity() == capacity);
        CHECK(pooledMappingBytes() == 0);
        CHECK(strata::storage::view(spool) == "head" + tiles);  // its rows, not the last column's

        {
            const strata::storage::PooledMappings otherShard;  // the pool lasts while one lives
            Column<char> big(12 * Column<char>::kMappedBytes, 'b');
            Column<char>().swap(big);
        }
        CHECK(pooledMappingBytes() >= 12 * Column<char>::kMappedBytes);
        Column<char> small;  // more than 4 times what it asks for: a mapping of its own
        small.append(tiles.data(), tiles.size());
        small.push_back('!');
        CHECK(small.capacity() < 4 * Column<char>::kMappedBytes);

        Column<char> huge(kPooledBytes + 1, 'h');  // larger than the pool holds: unmapped
        const std::size_t before = pooledMappingBytes();
        Column<char>().swap(huge);
        CHECK(pooledMappingBytes() == before);
    }
    CHECK(pooledMappingBytes() == 0);  // the last builder's end empties it
}
