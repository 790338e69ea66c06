#pragma once
// Errors a user can act on. InputError is bad input: a file that is truncated, malformed,
// of the wrong format or with impossible values. Its message is one line naming the
// file, the position (byte offset or line) and what was expected, e.g.
//     trace.json: byte 1234: expected ',' or ']' after an event
// The CLI prints it and exits with code 1. Cancelled is thrown when a progress callback
// asks to stop; builders clean up and rethrow.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace strata::storage {

class InputError : public std::runtime_error
{
public:
    explicit InputError(const std::string& message)
        : std::runtime_error(message)
    {
    }
    /// "FILE: byte OFFSET: WHAT"
    static InputError atByte(const std::string& file, std::uint64_t offset, const std::string& what)
    {
        return InputError(file + ": byte " + std::to_string(offset) + ": " + what);
    }
    /// "FILE: line LINE: WHAT"
    static InputError atLine(const std::string& file, std::uint64_t line, const std::string& what)
    {
        return InputError(file + ": line " + std::to_string(line) + ": " + what);
    }
};

class Cancelled : public std::runtime_error
{
public:
    Cancelled()
        : std::runtime_error("cancelled")
    {
    }
};

} // namespace strata::storage
