// The scheduler's journal: one line per finished task, flushed and fsynced as it is
// written, so that a run that dies keeps everything finished before it and `--resume`
// redoes nothing. The header names the graph (content checksum), n and m; a journal of
// another graph or other parameters is refused. A torn last line (a kill mid-write) is
// ignored; damage anywhere else is an error, and each record's check value (16 hex digits
// of the checksum of the text before it) finds a changed digit that would still parse.
//
//   # tricount-journal 2
//   # graph_checksum=<u64> parts=<n> splits=<m> vertices=<|V|> edges=<|E|> input=<path>
//   # run schedule=<dynamic|static> workers=<W>
//   <task> <triangles> <seconds> <rank> <estimate> <load seconds> <check>
//   ...
//   # run schedule=... workers=...      (a --resume run: its records follow)
//
// input= is the block file relative to the journal's folder (or absolute), so that a folder
// of journals and block files can move; the reader resolves it there. Each run writes a
// "# run" line before its records (the resume boundaries, and how the run was scheduled, so
// that tricount-simulate replays a static run as static). Journals written before the load
// column have five fields (load unknown), and before the run lines none (schedule unknown);
// version 1 journals (records without check values) are read as they are.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/block_format.hpp"

namespace tricount {

struct JournalIdentity {
  std::uint64_t graph_checksum = 0;
  std::uint32_t parts = 0;
  std::uint32_t splits = 0;
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;
  std::string input;  // informational
};

struct JournalRecord {
  std::uint64_t task = 0;
  count_t triangles = 0;
  double seconds = 0;
  int rank = 0;
  double estimate = 0;
  double load_seconds = -1;  // part of `seconds` spent reading blocks; < 0: not recorded
};

// One run that appended to the journal: its "# run" line, and where its records start.
struct JournalRun {
  std::string schedule;            // "dynamic" or "static"
  std::uint32_t workers = 0;
  std::uint64_t first_record = 0;  // index into JournalContents::records
};

struct JournalContents {
  JournalIdentity identity;        // input resolved against the journal's folder
  std::vector<JournalRecord> records;
  std::vector<JournalRun> runs;    // empty for journals written before runs were recorded
  bool torn_last_line = false;
};

// The line the writer appends for `r` (without its '\n'): the fields, then their check value.
std::string journal_record_line(const JournalRecord& r);

// Reads a journal. Throws Error naming the file and line for damage other than a torn
// last line.
JournalContents read_journal(const std::string& path);
// Its header alone (the same errors for it), without reading the records.
JournalIdentity read_journal_identity(const std::string& path);

// Refuses (Error) a journal whose identity differs from `expected`, naming what differs.
void check_journal_identity(const std::string& path, const JournalIdentity& found, const JournalIdentity& expected);

// The journal, open and locked for the whole run: an exclusive flock on its descriptor, so
// that a second count on the same journal (a --resume started while this one still appends)
// is refused instead of interleaving its records with ours. Where the file system has no
// locks (flock fails with ENOLCK, EOPNOTSUPP or ENOSYS), it warns on stderr and goes on.
class JournalWriter {
 public:
  // Opens the journal (creating an empty one) and takes its lock. Throws Error naming the
  // journal when another process holds the lock.
  explicit JournalWriter(const std::string& path);
  // Opens and locks, then start(identity) (fresh) or resume() (append).
  JournalWriter(const std::string& path, const JournalIdentity& identity, bool append);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  bool empty() const;                            // no bytes yet (a new journal)
  void start(const JournalIdentity& identity);   // truncates, writes the header
  void resume();                                 // drops a torn last line; records follow
  void append(const JournalRecord& record);      // write + flush + fsync
  // The "# run" line that starts a run's records (write + flush + fsync).
  void begin_run(const std::string& schedule, std::uint32_t workers);
  const std::string& path() const { return path_; }
  bool locked() const { return locked_; }        // false where the file system has no locks

 private:
  std::string path_;
  std::FILE* file_ = nullptr;  // owns the locked descriptor (O_APPEND)
  bool locked_ = false;
};

}  // namespace tricount
