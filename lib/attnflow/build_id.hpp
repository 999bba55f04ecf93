#pragma once
// The running program's identity, for what it keeps on disk to resume from (the instance journal,
// whose records are its own binary layouts): the build ID the linker computed from the program's
// contents, so a program rebuilt from other sources has another, even at the same commit.
#include <string>

namespace attnflow {

/// "build-id:" and the ELF NT_GNU_BUILD_ID note of the main program in hex; when it has none,
/// "commit:" and the commit it was built from (git_commit(), "+dirty" for a modified tree).
std::string program_build_id();

}  // namespace attnflow
