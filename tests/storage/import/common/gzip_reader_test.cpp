// GzipReader::mapContent: a plain file is mapped whole for readers that scan it in place
// (the Chrome importer); gzip files, files read from an offset and files already read from
// are not, and their readers stream them as before.

#include "storage/import/common/gzip_reader.h"

#include "tests/support/gzip_file.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

using namespace strata;

namespace {

std::string someText()
{
    std::string text;
    for (int i = 0; i < 200000; ++i)
        text += "line " + std::to_string(i) + "\n";
    return text;
}

}  // namespace

TEST_CASE("a plain file is mapped whole; what is given back counts as read", "[gzip]") {
    test::TempDir dir;
    const std::string text = someText();
    std::ofstream(dir / "plain.txt", std::ios::binary) << text;

    storage::GzipReader reader(dir / "plain.txt", true);
    const std::string_view mapped = reader.mapContent();
    REQUIRE(mapped.size() == text.size());
    CHECK(mapped == text);
    CHECK(reader.mapContent().data() == mapped.data());  // mapped once
    CHECK(reader.fileBytesRead() == 0);
    // Pages given back leave the mapping's memory, not the file: the view reads the same.
    reader.releaseMapped(text.size() / 2);
    CHECK(reader.fileBytesRead() == text.size() / 2);
    CHECK(mapped.substr(text.size() / 2) == std::string_view(text).substr(text.size() / 2));
    reader.releaseMapped(text.size() + 100);
    CHECK(reader.fileBytesRead() == text.size());
}

TEST_CASE("gzip, offset, empty and already-read files are not mapped", "[gzip]") {
    test::TempDir dir;
    const std::string text = someText();
    std::ofstream(dir / "plain.txt", std::ios::binary) << text;
    test::writeGzip(dir / "text.gz", text);
    std::ofstream(dir / "empty.txt", std::ios::binary);

    CHECK(storage::GzipReader(dir / "text.gz", true).mapContent().empty());
    CHECK(storage::GzipReader(dir / "plain.txt", false, 10).mapContent().empty());
    CHECK(storage::GzipReader(dir / "empty.txt", true).mapContent().empty());

    storage::GzipReader read(dir / "plain.txt", false);
    char first[16];
    REQUIRE(read.read(first, sizeof first) == sizeof first);
    CHECK(read.mapContent().empty());
    // Not mapped, it streams on where it was.
    std::string rest(text.size(), '\0');
    rest.resize(read.read(rest.data(), rest.size()));
    CHECK(rest == text.substr(sizeof first));
}
