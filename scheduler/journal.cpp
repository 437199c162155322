#include "scheduler/journal.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>

namespace tricount {
namespace {

constexpr const char* kMagic = "# tricount-journal 1";

std::string identity_line(const JournalIdentity& id) {
  return "# graph_checksum=" + std::to_string(id.graph_checksum) + " parts=" + std::to_string(id.parts) +
         " splits=" + std::to_string(id.splits) + " vertices=" + std::to_string(id.vertices) +
         " edges=" + std::to_string(id.edges) + " input=" + id.input;
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
    const std::string line = text.substr(pos, complete ? nl - pos : std::string::npos);
    pos = complete ? nl + 1 : text.size();
    ++line_no;
    const std::string at = "journal '" + path + "':" + std::to_string(line_no);
    if (!have_magic) {
      if (line != kMagic) throw Error(at + ": not a tricount journal (expected '" + kMagic + "')");
      have_magic = true;
      continue;
    }
    if (!have_identity) {
      std::istringstream fields(line.substr(line.rfind('#', 0) == 0 ? 1 : 0));
      std::string field;
      int found = 0;
      while (fields >> field) {
        const auto eq = field.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = field.substr(0, eq), value = field.substr(eq + 1);
        try {
          if (key == "graph_checksum") j.identity.graph_checksum = std::stoull(value), ++found;
          else if (key == "parts") j.identity.parts = static_cast<std::uint32_t>(std::stoul(value)), ++found;
          else if (key == "splits") j.identity.splits = static_cast<std::uint32_t>(std::stoul(value)), ++found;
          else if (key == "vertices") j.identity.vertices = std::stoull(value), ++found;
          else if (key == "edges") j.identity.edges = std::stoull(value), ++found;
          else if (key == "input") j.identity.input = line.substr(line.find("input=") + 6), ++found;
        } catch (const std::exception&) {
          throw Error(at + ": bad header field '" + field + "'");
        }
        if (key == "input") break;
      }
      if (found < 5) throw Error(at + ": incomplete journal header");
      have_identity = true;
      continue;
    }
    if (line.empty() && complete) continue;
    JournalRecord r;
    std::istringstream fields(line);
    const bool parsed = static_cast<bool>(fields >> r.task >> r.triangles >> r.seconds >> r.rank >> r.estimate);
    if (parsed && !(fields >> r.load_seconds)) r.load_seconds = -1;  // a five-field record
    if (!complete || !parsed) {
      if (pos >= text.size()) {  // the last line, torn by a kill mid-write
        j.torn_last_line = true;
        break;
      }
      throw Error(at + ": malformed journal record '" + line + "'");
    }
    if (!seen.insert(r.task).second) throw Error(at + ": task " + std::to_string(r.task) + " is recorded twice");
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

JournalWriter::JournalWriter(const std::string& path, const JournalIdentity& identity, bool append) : path_(path) {
  if (append) {
    // Drop a torn last line so that the next record starts on a line of its own.
    const JournalContents existing = read_journal(path);
    if (existing.torn_last_line) {
      std::ifstream in(path, std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const std::size_t keep = text.rfind('\n', text.size() - 2);
      std::filesystem::resize_file(path, keep == std::string::npos ? 0 : keep + 1);
    }
    file_ = std::fopen(path.c_str(), "ab");
  } else {
    file_ = std::fopen(path.c_str(), "wb");
    if (file_) {
      std::fprintf(file_, "%s\n%s\n", kMagic, identity_line(identity).c_str());
      if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) {
        std::fclose(file_);
        file_ = nullptr;
      }
    }
  }
  if (!file_) throw Error("cannot write journal '" + path + "': " + std::strerror(errno));
}

JournalWriter::~JournalWriter() {
  if (file_) std::fclose(file_);
}

void JournalWriter::append(const JournalRecord& r) {
  std::fprintf(file_, "%llu %llu %.9g %d %.9g %.9g\n", static_cast<unsigned long long>(r.task),
               static_cast<unsigned long long>(r.triangles), r.seconds, r.rank, r.estimate, r.load_seconds);
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0)
    throw Error("cannot write journal '" + path_ + "': " + std::strerror(errno));
}

}  // namespace tricount
