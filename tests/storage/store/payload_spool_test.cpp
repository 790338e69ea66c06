// A track's encoded tiles wait for the writer in a PayloadSpool: in memory up to its limit,
// past it in a file without a name, and every payload reads back as it went in.

#include "storage/store/payload_spool.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <iterator>
#include <vector>

using namespace strata;

namespace {

std::size_t filesIn(const std::filesystem::path& folder)
{
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(folder), {}));
}

}  // namespace

TEST_CASE("a payload spool moves to a nameless file past its memory limit and reads back every "
          "payload",
    "[store][spool]") {
    test::TempDir dir;
    storage::PayloadSpool spool(dir.path(), 1000);
    std::vector<std::string> payloads;
    std::vector<storage::SpooledPayload> handles;
    for (int i = 0; i < 200; ++i) {
        payloads.push_back(std::string(static_cast<std::size_t>(i % 37), char('a' + i % 26)));
        handles.push_back(spool.add(payloads.back()));
        CHECK(spool.onDisk() == (spool.bytes() > 1000));
    }
    REQUIRE(spool.onDisk());
    CHECK(filesIn(dir.path()) == 0);  // nothing a crash could leave behind

    // Moved to the writer, it reads back in any order.
    storage::PayloadSpool writer = std::move(spool);
    std::string buffer;
    for (std::size_t i = payloads.size(); i-- > 0;)
        CHECK(writer.read(handles[i], buffer) == payloads[i]);

    storage::PayloadSpool inMemory;  // no folder: memory only, whatever the size
    const auto big = inMemory.add(std::string(1 << 20, 'x'));
    CHECK_FALSE(inMemory.onDisk());
    CHECK(inMemory.read(big, buffer).size() == std::size_t(1) << 20);
}
