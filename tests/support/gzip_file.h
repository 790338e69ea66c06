#pragma once
// Writes test files gzip-compressed (zlib's gzip writer), for importers that read `.gz`.

#include <catch2/catch.hpp>
#include <zlib.h>

#include <filesystem>
#include <string>

namespace strata::test {

inline void writeGzip(const std::filesystem::path& path, const std::string& bytes)
{
    gzFile f = gzopen(path.c_str(), "wb");
    REQUIRE(f);
    REQUIRE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()))
        == static_cast<int>(bytes.size()));
    gzclose(f);
}

}  // namespace strata::test
