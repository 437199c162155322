// The version every program reports (--version, the block file's creator, the JSON report):
// CMake's project VERSION and the git commit the build was made from (cmake/version.cmake
// writes both at build time; "-dirty" when tracked files had uncommitted changes, "unknown"
// outside a git checkout).
#pragma once

namespace tricount {

extern const char* const kVersion;  // e.g. "0.1.0"
extern const char* const kCommit;   // e.g. "a36e466f1c2b", "a36e466f1c2b-dirty" or "unknown"

}  // namespace tricount
