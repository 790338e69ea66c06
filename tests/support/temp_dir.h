#pragma once
// A fresh temporary folder for one test, removed with everything in it when it goes out
// of scope.

#include <filesystem>
#include <string>

namespace strata::test {

class TempDir
{
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return m_path; }
    std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

private:
    std::filesystem::path m_path;
};

/// The bytes of a file ("" when it cannot be read).
std::string readFile(const std::filesystem::path& path);

/// A real trace under ../shared/data/real, or an empty path when that folder is absent.
std::filesystem::path realTrace(const std::string& relative);

} // namespace strata::test
