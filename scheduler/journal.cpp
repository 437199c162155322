#include "scheduler/journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "src/checksum.hpp"
#include "src/task_plan.hpp"

namespace tricount {
namespace {

// Version 2 ends every record with its check value; version 1 journals (records without it,
// or with it where a newer run resumed one) are still read.
constexpr const char* kMagic = "# tricount-journal 2";
constexpr const char* kMagicV1 = "# tricount-journal 1";

constexpr const char* kRunPrefix = "# run schedule=";

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

// No task takes longer (115 days), and no work estimate exceeds 2^64: a record beyond is
// damage, and fed to the simulator's fits it gave infinities (R^2 nan).
constexpr double kMaxTaskSeconds = 1e7;
constexpr double kMaxEstimate = 18446744073709551616.0;

// A finite decimal (the writer's %.9g) up to `most`; `allow_unknown` also takes the -1 of an
// unknown load.
bool parse_seconds(std::string_view text, double& value, double most, bool allow_unknown = false) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value > most) return false;
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

// A record's check value: 16 hex digits of the checksum of its fields' text, so that a
// changed digit (a triangle count) is found, not added to the total.
std::string record_check(std::string_view fields) {
  Checksum64 sum;
  sum.add(fields.data(), fields.size());
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(sum.value()));
  return hex;
}

// The five or six fields of a record (without its check value), exactly as the writer's printf.
bool parse_fields(const std::vector<std::string_view>& f, JournalRecord& r) {
  if (f.size() != 5 && f.size() != 6) return false;
  std::uint32_t rank = 0;
  if (!parse_u64(f[0], r.task) || !parse_u64(f[1], r.triangles) || !parse_seconds(f[2], r.seconds, kMaxTaskSeconds) ||
      !parse_u32(f[3], rank) || rank > INT32_MAX || !parse_seconds(f[4], r.estimate, kMaxEstimate))
    return false;
  r.rank = static_cast<int>(rank);
  r.load_seconds = -1;  // a five-field record (written before the load column)
  return f.size() == 5 || parse_seconds(f[5], r.load_seconds, kMaxTaskSeconds, /*allow_unknown=*/true);
}

// What a record line is: fields that parse, with or without their check value, or not.
enum class RecordLine { checked, unchecked, malformed, bad_check };

// "<task> <triangles> <seconds> <rank> <estimate> [<load seconds> [<check>]]", single spaces.
RecordLine parse_record(std::string_view line, JournalRecord& r) {
  std::vector<std::string_view> f = split_on_spaces(line);
  const bool checked = f.size() == 7;
  if (checked) {
    if (f[6] != record_check(line.substr(0, line.rfind(' ')))) return RecordLine::bad_check;
    f.pop_back();
  }
  if (!parse_fields(f, r)) return RecordLine::malformed;
  return checked ? RecordLine::checked : RecordLine::unchecked;
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

// "# run schedule=<dynamic|static> workers=<W>", exactly as begin_run writes it.
bool parse_run_line(std::string_view line, JournalRun& run) {
  if (line.substr(0, std::strlen(kRunPrefix)) != kRunPrefix) return false;
  line.remove_prefix(std::strlen(kRunPrefix));
  const std::size_t space = line.find(' ');
  if (space == std::string_view::npos) return false;
  run.schedule = std::string(line.substr(0, space));
  line.remove_prefix(space);
  constexpr std::string_view kWorkers = " workers=";
  if (line.substr(0, kWorkers.size()) != kWorkers) return false;
  line.remove_prefix(kWorkers.size());
  return (run.schedule == "dynamic" || run.schedule == "static") && parse_u32(line, run.workers);
}

// A relative input= names the block file from the journal's folder; older journals named it
// from the folder the count ran in, so a name with no file beside the journal stays as written.
std::string resolve_input(const std::string& journal_path, const std::string& input) {
  namespace fs = std::filesystem;
  if (input.empty() || fs::path(input).is_absolute()) return input;
  const fs::path beside = (fs::path(journal_path).parent_path() / input).lexically_normal();
  std::error_code ec;
  return fs::exists(beside, ec) ? beside.string() : input;
}

// input= as the writer stores it: an existing block file relative to the journal's folder
// (a name that is no file stays as given).
std::string input_from_journal(const std::string& journal_path, const std::string& input) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (input.empty() || !fs::exists(input, ec)) return input;
  const fs::path folder = fs::absolute(fs::path(journal_path), ec).parent_path().lexically_normal();
  const fs::path target = fs::absolute(fs::path(input), ec).lexically_normal();
  if (ec) return input;
  const fs::path relative = target.lexically_relative(folder);
  return relative.empty() ? target.string() : relative.string();
}

}  // namespace

namespace {

// Longest lines a writer writes: the identity line (the input's name, escaped) and a record
// (six numbers). Longer is damage, or not a journal (/dev/zero has no line end at all).
constexpr std::size_t kMaxHeaderLine = std::size_t{1} << 16;
constexpr std::size_t kMaxRecordLine = 256;

// The journal's lines, read in pieces with each line's length bounded.
class LineReader {
 public:
  explicit LineReader(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error("cannot open journal '" + path + "': " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && S_ISDIR(st.st_mode)) {
      ::close(fd_);
      throw Error("journal '" + path + "' is a directory: give the journal file tricount-count --journal wrote");
    }
  }
  ~LineReader() { ::close(fd_); }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  // The next line (without its newline) into `line`; false at the end. `complete`: it ended
  // with a newline. A line longer than `limit` is an Error naming the journal and line.
  bool next(std::string& line, bool& complete, std::size_t limit, const std::string& at) {
    line.clear();
    while (true) {
      if (pos_ == end_ && !fill()) {
        complete = false;
        return !line.empty();
      }
      const char* start = buffer_ + pos_;
      const void* nl = std::memchr(start, '\n', end_ - pos_);
      const std::size_t take = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : end_ - pos_;
      if (line.size() + take > limit)
        throw Error(at + ": a line longer than " + std::to_string(limit) + " bytes: not a tricount journal, or damaged");
      line.append(start, take);
      pos_ += take;
      if (nl) {
        ++pos_;
        complete = true;
        return true;
      }
    }
  }

 private:
  bool fill() {
    while (true) {
      const ssize_t got = ::read(fd_, buffer_, sizeof buffer_);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw Error("cannot read journal '" + path_ + "': " + std::strerror(errno));
      pos_ = 0, end_ = static_cast<std::size_t>(got);
      return got > 0;
    }
  }
  std::string path_;
  int fd_ = -1;
  char buffer_[1 << 16];
  std::size_t pos_ = 0, end_ = 0;
};

// read_journal, or only its header (`identity_only`: the records are neither read nor checked).
JournalContents read_journal_lines(const std::string& path, bool identity_only) {
  LineReader in(path);
  JournalContents j;
  std::uint64_t line_no = 0, tasks = 0;
  bool have_magic = false, have_identity = false, checks_required = false;
  std::unordered_set<std::uint64_t> seen;
  std::string line;
  bool complete = false;
  while (true) {
    const std::string at = "journal '" + path + "':" + std::to_string(line_no + 1);
    if (!in.next(line, complete, have_identity ? kMaxRecordLine : kMaxHeaderLine, at)) break;
    ++line_no;
    if (complete && !line.empty() && line.back() == '\r') line.pop_back();  // CRLF line endings
    if (!have_magic) {
      if (line != kMagic && line != kMagicV1) throw Error(at + ": not a tricount journal (expected '" + kMagic + "')");
      checks_required = line == kMagic;
      have_magic = true;
      continue;
    }
    if (!have_identity) {
      if (!complete || !parse_identity_line(line, j.identity))
        throw Error(at + ": malformed journal header '" + line + "' (expected '" +
                    identity_line({0, 0, 0, 0, 0, "PATH"}) + "' with decimal numbers): " + kDamaged);
      // The plan the header declares bounds the records: each task of it at most once.
      if (j.identity.parts < 1 || j.identity.parts > kMaxParts)
        throw Error(at + ": parts=" + std::to_string(j.identity.parts) + " in the journal header is out of range (1 to " +
                    std::to_string(kMaxParts) + "): " + kDamaged);
      if (j.identity.splits < 1 || j.identity.splits > kMaxWorkloadSplits)
        throw Error(at + ": splits=" + std::to_string(j.identity.splits) + " in the journal header is out of range (1 to " +
                    std::to_string(kMaxWorkloadSplits) + "): " + kDamaged);
      tasks = std::uint64_t{j.identity.parts} * j.identity.parts * j.identity.parts * j.identity.splits;
      have_identity = true;
      if (identity_only) break;
      continue;
    }
    if (line.empty() && complete) continue;
    // Only the last line may be torn (a kill or a full disk mid-write leaves no newline).
    if (!complete) {
      j.torn_last_line = true;
      break;
    }
    if (line.rfind("# run ", 0) == 0) {
      JournalRun run;
      if (!parse_run_line(line, run))
        throw Error(at + ": malformed run line '" + line + "' (expected '" + kRunPrefix + "dynamic|static workers=W'): " +
                    kDamaged);
      run.first_record = j.records.size();
      j.runs.push_back(run);
      continue;
    }
    JournalRecord r;
    const RecordLine parsed = parse_record(line, r);
    if (parsed == RecordLine::bad_check)
      throw Error(at + ": journal record '" + line + "' does not match its check value (a changed or lost character): " +
                  kDamaged);
    if (parsed == RecordLine::malformed)
      throw Error(at + ": malformed journal record '" + line +
                  "' (expected 'task triangles seconds rank estimate load check', unsigned integers, non-negative "
                  "decimals, seconds at most 1e7, and 16 hex digits): " + kDamaged);
    if (checks_required && parsed == RecordLine::unchecked)
      throw Error(at + ": journal record '" + line + "' has no check value (every record of a version 2 journal has one): " +
                  kDamaged);
    if (r.task >= tasks)
      throw Error(at + ": task " + std::to_string(r.task) + " is outside the plan of the journal's header (parts=" +
                  std::to_string(j.identity.parts) + " splits=" + std::to_string(j.identity.splits) + ": " +
                  std::to_string(tasks) + " tasks): " + kDamaged);
    if (!seen.insert(r.task).second) throw Error(at + ": task " + std::to_string(r.task) + " is recorded twice: " + kDamaged);
    j.records.push_back(r);
  }
  if (!have_identity) throw Error("journal '" + path + "' has no header (empty or not a tricount journal)");
  j.identity.input = resolve_input(path, j.identity.input);
  return j;
}
}  // namespace

JournalContents read_journal(const std::string& path) { return read_journal_lines(path, false); }

std::string journal_record_line(const JournalRecord& r) {
  char fields[256];
  std::snprintf(fields, sizeof fields, "%llu %llu %.9g %d %.9g %.9g", static_cast<unsigned long long>(r.task),
                static_cast<unsigned long long>(r.triangles), r.seconds, r.rank, r.estimate, r.load_seconds);
  return std::string(fields) + " " + record_check(fields);
}

JournalIdentity read_journal_identity(const std::string& path) { return read_journal_lines(path, true).identity; }

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
  JournalIdentity stored = identity;
  stored.input = input_from_journal(path_, identity.input);
  // (a device such as /dev/null cannot be truncated, and needs not be)
  if ((!empty() && ::ftruncate(::fileno(file_), 0) != 0) ||
      std::fprintf(file_, "%s\n%s\n", kMagic, identity_line(stored).c_str()) < 0 || std::fflush(file_) != 0 ||
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

void JournalWriter::begin_run(const std::string& schedule, std::uint32_t workers) {
  std::fprintf(file_, "%s%s workers=%u\n", kRunPrefix, schedule.c_str(), workers);
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0)
    throw Error("cannot write journal '" + path_ + "': " + std::strerror(errno));
}

void JournalWriter::append(const JournalRecord& r) {
  std::fprintf(file_, "%s\n", journal_record_line(r).c_str());
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0)
    throw Error("cannot write journal '" + path_ + "': " + std::strerror(errno));
}

}  // namespace tricount
