#include "attnflow/io/atomic_file.hpp"

#include "attnflow/errors.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace attnflow {

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> temporaries;
  auto drop_temporaries = [&temporaries] {
    std::error_code ignored;
    for (const auto& tmp : temporaries) fs::remove(tmp, ignored);
  };
  // Every file is written in full before any is renamed: a full disk leaves all the old files.
  for (const auto& [path, content] : files) {
    const fs::path target(path);
    if (target.has_parent_path()) {
      fs::create_directories(target.parent_path(), ec);
      if (ec) {
        drop_temporaries();
        input_error(target.parent_path().string(), "cannot create directory (" + ec.message() + ")");
      }
    }
    temporaries.push_back(target.string() + ".tmp-" + std::to_string(::getpid()));
    std::ofstream out(temporaries.back(), std::ios::binary | std::ios::trunc);
    if (!out) {
      temporaries.pop_back();
      drop_temporaries();
      input_error(path, "cannot be written");
    }
    out << content;
    out.flush();
    if (!out) {
      drop_temporaries();
      input_error(path, "write failed (disk full?)");
    }
  }
  for (std::size_t k = 0; k < files.size(); ++k) {
    fs::rename(temporaries[k], files[k].first, ec);
    if (ec) {
      const std::string why = ec.message();  // before remove() overwrites ec ("Success")
      temporaries.erase(temporaries.begin(), temporaries.begin() + static_cast<std::ptrdiff_t>(k));
      drop_temporaries();
      input_error(files[k].first, "cannot be replaced (" + why + ")");
    }
  }
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_files_atomically({{path, content}});
}

}  // namespace attnflow
