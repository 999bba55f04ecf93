#include "attnflow/io/atomic_file.hpp"

#include "attnflow/errors.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace attnflow {

void write_file_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) input_error(target.parent_path().string(), "cannot create directory (" + ec.message() + ")");
  }
  const fs::path tmp = target.string() + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) input_error(path, "cannot be written");
    out << content;
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      input_error(path, "write failed (disk full?)");
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    const std::string why = ec.message();  // before remove() overwrites ec ("Success")
    fs::remove(tmp, ec);
    input_error(path, "cannot be replaced (" + why + ")");
  }
}

}  // namespace attnflow
