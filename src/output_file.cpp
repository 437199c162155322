#include "src/output_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include "src/types.hpp"

namespace tricount::output {

namespace {

// The file `path` names (following symlinks; "-" is standard output), if it exists.
bool identify(const std::string& path, struct stat& st) {
  if (path == "-") return ::fstat(STDOUT_FILENO, &st) == 0;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

void refuse_same_file(const std::string& path, std::string_view option, const std::vector<NamedPath>& others) {
  if (path.empty()) return;
  struct stat mine {};
  const bool exists = identify(path, mine);
  for (const NamedPath& other : others) {
    if (other.path.empty()) continue;
    struct stat theirs {};
    const bool same = (path == other.path && path != "-") ||
                      (exists && identify(other.path, theirs) && mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino);
    if (same)
      throw UsageError(std::string(option) + " '" + path + "' is the same file as " + std::string(other.option) + " '" +
                       other.path + "': writing it would destroy that file; choose another path");
  }
}

}  // namespace tricount::output
