// How every program writes its output files (the partitioner's block file, tricount-count's
// --json, tricount-generate's edge file): the checks made before any work starts.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tricount::output {

// A path the program reads (or appends to), with the option that named it, for messages.
struct NamedPath {
  std::string path;
  std::string_view option;
};

// Throws UsageError when `path` (the file named by `option`) is one of `others`: the same
// path, or the same file (st_dev and st_ino) through a symlink, a hard link or /dev/stdout.
// Writing it would destroy that file. Empty paths are skipped.
void refuse_same_file(const std::string& path, std::string_view option, const std::vector<NamedPath>& others);

}  // namespace tricount::output
