#include "scheduler/journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace tricount {
namespace {

constexpr const char* kMagic = "# tricount-journal 1";

std::string identity_line(const JournalIdentity& id) {
  return "# graph_checksum=" + std::to_string(id.graph_checksum) + " parts=" + std::to_string(id.parts) +
         " splits=" + std::to_string(id.splits) + " vertices=" + std::to_string(id.vertices) +
         " edges=" + std::to_string(id.edges) + " input=" + printable(id.input);  // one line, whatever the name
}

constexpr const char* kDamaged = "the journal is damaged; remove it to count every task again";

// Strict field parsers: exactly what the writer's printf produces, nothing else (no sign,
// no spaces, no wrapping: istream >> uint64 reads "-5" as 2^64 - 5).
bool parse_u64(std::string_view text, std::uint64_t& value) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

bool parse_u32(std::string_view text, std::uint32_t& value) {
  std::uint64_t wide = 0;
  if (!parse_u64(text, wide) || wide > UINT32_MAX) return false;
  value = static_cast<std::uint32_t>(wide);
  return true;
}

// A finite decimal (the writer's %.9g); `allow_unknown` also takes the -1 of an unknown load.
bool parse_seconds(std::string_view text, double& value, bool allow_unknown = false) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return false;
  return value >= 0 || (allow_unknown && value == -1);
}

std::vector<std::string_view> split_on_spaces(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t space = line.find(' ', start);
    fields.push_back(line.substr(start, space == std::string_view::npos ? std::string_view::npos : space - start));
    if (space == std::string_view::npos) return fields;
    start = space + 1;
  }
}

// "<task> <triangles> <seconds> <rank> <estimate> [<load seconds>]", single spaces.
bool parse_record(std::string_view line, JournalRecord& r) {
  const std::vector<std::string_view> f = split_on_spaces(line);
  if (f.size() != 5 && f.size() != 6) return false;
  std::uint32_t rank = 0;
  if (!parse_u64(f[0], r.task) || !parse_u64(f[1], r.triangles) || !parse_seconds(f[2], r.seconds) ||
      !parse_u32(f[3], rank) || rank > INT32_MAX || !parse_seconds(f[4], r.estimate))
    return false;
  r.rank = static_cast<int>(rank);
  r.load_seconds = -1;  // a five-field record (written before the load column)
  return f.size() == 5 || parse_seconds(f[5], r.load_seconds, /*allow_unknown=*/true);
}

// The identity line exactly as identity_line writes it (input= is the rest of the line).
bool parse_identity_line(std::string_view line, JournalIdentity& id) {
  const char* const keys[] = {"# graph_checksum=", " parts=", " splits=", " vertices=", " edges=", " input="};
  std::string_view values[6];
  for (int k = 0; k < 6; ++k) {
    if (line.substr(0, std::strlen(keys[k])) != keys[k]) return false;
    line.remove_prefix(std::strlen(keys[k]));
    const std::size_t end = k == 5 ? line.size() : line.find(' ');
    values[k] = line.substr(0, end);
    line.remove_prefix(values[k].size());
  }
  id.input = std::string(values[5]);
  return parse_u64(values[0], id.graph_checksum) && parse_u32(values[1], id.parts) && parse_u32(values[2], id.splits) &&
         parse_u64(values[3], id.vertices) && parse_u64(values[4], id.edges);
}

}  // namespace

JournalContents read_journal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open journal '" + path + "': " + std::strerror(errno));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  JournalContents j;
  std::size_t pos = 0;
  std::uint64_t line_no = 0;
  bool have_magic = false, have_identity = false;
  std::unordered_set<std::uint64_t> seen;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const bool complete = nl != std::string::npos;
    std::string line = text.substr(pos, complete ? nl - pos : std::string::npos);
    pos = complete ? nl + 1 : text.size();
    ++line_no;
    if (complete && !line.empty() && line.back() == '\r') line.pop_back();  // CRLF line endings
    const std::string at = "journal '" + path + "':" + std::to_string(line_no);
    if (!have_magic) {
      if (line != kMagic) throw Error(at + ": not a tricount journal (expected '" + kMagic + "')");
      have_magic = true;
      continue;
    }
    if (!have_identity) {
      if (!complete || !parse_identity_line(line, j.identity))
        throw Error(at + ": malformed journal header '" + line + "' (expected '" +
                    identity_line({0, 0, 0, 0, 0, "PATH"}) + "' with decimal numbers): " + kDamaged);
      have_identity = true;
      continue;
    }
    if (line.empty() && complete) continue;
    // Only the last line may be torn (a kill or a full disk mid-write leaves no newline).
    if (!complete) {
      j.torn_last_line = true;
      break;
    }
    JournalRecord r;
    if (!parse_record(line, r))
      throw Error(at + ": malformed journal record '" + line +
                  "' (expected 'task triangles seconds rank estimate [load seconds]', unsigned integers and "
                  "non-negative decimals): " + kDamaged);
    if (!seen.insert(r.task).second) throw Error(at + ": task " + std::to_string(r.task) + " is recorded twice: " + kDamaged);
    j.records.push_back(r);
  }
  if (!have_identity) throw Error("journal '" + path + "' has no header (empty or not a tricount journal)");
  return j;
}

void check_journal_identity(const std::string& path, const JournalIdentity& found, const JournalIdentity& expected) {
  auto refuse = [&](const std::string& what) {
    throw Error("journal '" + path + "' belongs to another run (" + what + "): it was written for '" + found.input +
                "'; remove it or give another --journal");
  };
  if (found.graph_checksum != expected.graph_checksum || found.vertices != expected.vertices || found.edges != expected.edges)
    refuse("graph checksum " + std::to_string(found.graph_checksum) + ", this input has " +
           std::to_string(expected.graph_checksum));
  if (found.parts != expected.parts) refuse("parts " + std::to_string(found.parts) + " vs " + std::to_string(expected.parts));
  if (found.splits != expected.splits)
    refuse("workload splits " + std::to_string(found.splits) + " vs " + std::to_string(expected.splits));
}

JournalWriter::JournalWriter(const std::string& path) : path_(path) {
  // O_APPEND: every record goes to the end, whatever else happened to the file.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0) throw Error("cannot write journal '" + path + "': " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    locked_ = true;
  } else if (errno == EWOULDBLOCK) {
    ::close(fd);
    throw Error("journal '" + path + "' is in use: another tricount-count is writing it (it holds the journal's lock). "
                "Wait for that count to end (then --resume), or give another --journal");
  } else if (errno == ENOLCK || errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL) {
    std::fprintf(stderr,
                 "tricount-count: warning: cannot lock journal '%s' (%s): this file system has no file locks, so a "
                 "second count on the same journal would not be refused; run one count per journal\n",
                 path.c_str(), std::strerror(errno));
  } else {
    const int err = errno;
    ::close(fd);
    throw Error("cannot lock journal '" + path + "': " + std::strerror(err));
  }
  file_ = ::fdopen(fd, "ab");
  if (!file_) {
    const int err = errno;
    ::close(fd);
    throw Error("cannot write journal '" + path + "': " + std::strerror(err));
  }
}

JournalWriter::JournalWriter(const std::string& path, const JournalIdentity& identity, bool append) : JournalWriter(path) {
  if (append) resume();
  else start(identity);
}

bool JournalWriter::empty() const {
  struct stat st {};
  if (::fstat(::fileno(file_), &st) != 0) throw Error("cannot stat journal '" + path_ + "': " + std::strerror(errno));
  return st.st_size == 0;
}

void JournalWriter::start(const JournalIdentity& identity) {
  // (a device such as /dev/null cannot be truncated, and needs not be)
  if ((!empty() && ::ftruncate(::fileno(file_), 0) != 0) ||
      std::fprintf(file_, "%s\n%s\n", kMagic, identity_line(identity).c_str()) < 0 || std::fflush(file_) != 0 ||
      ::fsync(::fileno(file_)) != 0)
    throw Error("cannot write journal '" + path_ + "': " + std::strerror(errno));
}

void JournalWriter::resume() {
  // Drop a torn last line so that the next record starts on a line of its own.
  const JournalContents existing = read_journal(path_);
  if (!existing.torn_last_line) return;
  std::ifstream in(path_, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t keep = text.rfind('\n', text.size() - 2);
  if (::ftruncate(::fileno(file_), static_cast<off_t>(keep == std::string::npos ? 0 : keep + 1)) != 0)
    throw Error("cannot write journal '" + path_ + "': " + std::strerror(errno));
}

JournalWriter::~JournalWriter() {
  if (file_) std::fclose(file_);  // closes the descriptor: the lock goes with it
}

void JournalWriter::append(const JournalRecord& r) {
  std::fprintf(file_, "%llu %llu %.9g %d %.9g %.9g\n", static_cast<unsigned long long>(r.task),
               static_cast<unsigned long long>(r.triangles), r.seconds, r.rank, r.estimate, r.load_seconds);
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0)
    throw Error("cannot write journal '" + path_ + "': " + std::strerror(errno));
}

}  // namespace tricount
