#include "attnflow/build_id.hpp"

#include "attnflow/version.hpp"

#include <cstring>
#include <elf.h>
#include <fmt/format.h>
#include <link.h>

namespace attnflow {

namespace {

/// The main program's build ID (the first object dl_iterate_phdr reports), hex; empty when none.
int find_build_id(dl_phdr_info* info, std::size_t, void* data) {
  auto& out = *static_cast<std::string*>(data);
  for (int k = 0; k < info->dlpi_phnum; ++k) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[k];
    if (segment.p_type != PT_NOTE) continue;
    const char* at = reinterpret_cast<const char*>(info->dlpi_addr + segment.p_vaddr);
    const char* const end = at + segment.p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(at);
      const char* name = at + sizeof(ElfW(Nhdr));
      const char* desc = name + ((note->n_namesz + 3) & ~3U);
      if (desc + note->n_descsz > end) break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        for (unsigned i = 0; i < note->n_descsz; ++i) out += fmt::format("{:02x}", static_cast<unsigned char>(desc[i]));
        return 1;
      }
      at = desc + ((note->n_descsz + 3) & ~3U);
    }
  }
  return 1;  // only the main program counts
}

}  // namespace

std::string program_build_id() {
  std::string id;
  dl_iterate_phdr(find_build_id, &id);
  return id.empty() ? std::string("commit:") + git_commit() : "build-id:" + id;
}

}  // namespace attnflow
