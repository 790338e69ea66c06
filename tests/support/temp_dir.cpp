#include "tests/support/temp_dir.h"

#include <fstream>
#include <iterator>

#include <cstdlib>
#include <stdexcept>
#include <unistd.h>

namespace strata::test {

TempDir::TempDir()
{
    std::string pattern = (std::filesystem::temp_directory_path() / "strata-test-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
        throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
}

TempDir::~TempDir()
{
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
}

std::string readFile(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

std::filesystem::path realTrace(const std::string& relative)
{
    std::filesystem::path p = std::filesystem::path(STRATA_REAL_DATA_DIR) / relative;
    return std::filesystem::exists(p) ? p : std::filesystem::path();
}

} // namespace strata::test
