#pragma once
// Results are written to a temporary file beside the target and renamed over it, so an
// interrupted run never leaves a half-written file and never destroys the previous one.
#include <string>

namespace attnflow {

/// Creates the parent directory if needed. Throws InputError when the directory cannot be made
/// or the file cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace attnflow
