#pragma once
// Results are written to a temporary file beside the target and renamed over it, so an
// interrupted run never leaves a half-written file and never destroys the previous one.
#include <string>
#include <utility>
#include <vector>

namespace attnflow {

/// Creates the parent directory if needed. Throws InputError when the directory cannot be made
/// or the file cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);
/// Several files that belong together (trajectory.json and .csv): all are written to temporary
/// names first, and only when every write succeeded are they renamed, so an old pair is never
/// left half replaced by a full disk.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace attnflow
