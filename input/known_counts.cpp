// FILE.known: written with the JSON builder, read back by a reader of exactly that shape (one
// flat object of strings and non-negative integers), which refuses anything else.
#include "input/known_counts.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>  // std::in_range, used by types.hpp

#include "src/json.hpp"
#include "src/output_file.hpp"
#include "src/types.hpp"

namespace tricount {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kFormat = "tricount-known";
constexpr std::uint64_t kVersion = 1;

struct Value {
  bool is_number = false;
  std::uint64_t number = 0;
  std::string text;
};

// One flat JSON object: {"key": "string" or non-negative integer, ...}.
class FlatJson {
 public:
  FlatJson(std::string_view text, std::string where) : s_(text), where_(std::move(where)) {}

  std::map<std::string, Value> parse() {
    std::map<std::string, Value> out;
    expect('{');
    skip();
    if (peek() == '}') return ++p_, end(out);
    while (true) {
      std::string key = string();
      expect(':');
      skip();
      Value v;
      if (peek() == '"') {
        v.text = string();
      } else {
        const char* first = s_.data() + p_;
        const auto [ptr, ec] = std::from_chars(first, s_.data() + s_.size(), v.number);
        if (ec != std::errc() || ptr == first) fail("the value of \"" + key + "\" is not a string or a non-negative integer");
        p_ += static_cast<std::size_t>(ptr - first);
        v.is_number = true;
      }
      if (!out.emplace(key, std::move(v)).second) fail("\"" + key + "\" appears twice");
      skip();
      if (peek() == ',') {
        ++p_;
        continue;
      }
      expect('}');
      return end(out);
    }
  }

 private:
  std::map<std::string, Value>& end(std::map<std::string, Value>& out) {
    skip();
    if (p_ != s_.size()) fail("text after the closing brace");
    return out;
  }
  void skip() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\n' || s_[p_] == '\r' || s_[p_] == '\t')) ++p_;
  }
  char peek() const { return p_ < s_.size() ? s_[p_] : '\0'; }
  void expect(char c) {
    skip();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++p_;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (p_ < s_.size() && s_[p_] != '"') {
      char c = s_[p_++];
      if (c == '\\') {
        if (p_ >= s_.size()) break;
        const char e = s_[p_++];
        if (e == 'n') c = '\n';
        else if (e == 'r') c = '\r';
        else if (e == 't') c = '\t';
        else if (e == '"' || e == '\\' || e == '/') c = e;
        else if (e == 'u' && p_ + 4 <= s_.size()) {
          unsigned code = 0;
          const auto [ptr, ec] = std::from_chars(s_.data() + p_, s_.data() + p_ + 4, code, 16);
          if (ec != std::errc() || ptr != s_.data() + p_ + 4) fail("a bad \\u escape");
          p_ += 4;
          c = code < 0x80 ? static_cast<char>(code) : '?';  // the writer escapes control bytes only
        } else {
          fail("a bad escape in a string");
        }
      }
      out += c;
    }
    if (p_ >= s_.size()) fail("a string without its closing quote");
    ++p_;
    return out;
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(where_ + " is not a known-counts file written by tricount-generate (" + why + " at byte " +
                std::to_string(p_) + "): delete it or regenerate the graph with tricount-generate");
  }

  std::string_view s_;
  std::string where_;
  std::size_t p_ = 0;
};

std::string read_small_file(const std::string& path, const std::string& where) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + where + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error("cannot read " + where);
  return text.str();
}

}  // namespace

std::string known_sidecar_path(const std::string& edge_file) { return edge_file + ".known"; }

void write_known_sidecar(const std::string& edge_file, KnownCounts known) {
  std::error_code ec;
  known.file_bytes = fs::file_size(edge_file, ec);
  if (ec) throw Error("cannot size '" + printable(edge_file) + "' for its known counts: " + ec.message());
  JsonObject j;
  j.add("format", kFormat)
      .add("version", kVersion)
      .add("file", fs::path(edge_file).filename().string())
      .add("file_bytes", known.file_bytes)
      .add("generator", known.generator)
      .add("vertex_ids", known.vertex_ids)
      .add("vertices", known.vertices)
      .add("edges", known.edges)
      .add("triangles", known.triangles);
  output::write_text_file(known_sidecar_path(edge_file), "--output", j.str() + "\n");
}

std::optional<KnownCounts> read_known_sidecar(const std::string& edge_file) {
  std::error_code ec;
  const std::string path = known_sidecar_path(edge_file);
  if (!fs::is_regular_file(edge_file, ec) || !fs::exists(fs::symlink_status(path, ec))) return std::nullopt;
  const std::string where = "'" + printable(path) + "'";
  const std::map<std::string, Value> fields = FlatJson(read_small_file(path, where), where).parse();
  const auto field = [&](const char* key, bool number) -> const Value& {
    const auto it = fields.find(key);
    if (it == fields.end() || it->second.is_number != number)
      throw Error(where + " is not a known-counts file written by tricount-generate (no " + (number ? "number" : "string") +
                  " \"" + key + "\"): delete it or regenerate the graph with tricount-generate");
    return it->second;
  };
  if (field("format", false).text != kFormat || field("version", true).number != kVersion)
    throw Error(where + " is not a known-counts file of format '" + std::string(kFormat) + "' version " + std::to_string(kVersion) +
                ": delete it or regenerate the graph with tricount-generate");
  KnownCounts k;
  k.sidecar = path;
  k.generator = field("generator", false).text;
  k.file_bytes = field("file_bytes", true).number;
  k.vertex_ids = field("vertex_ids", true).number;
  k.vertices = field("vertices", true).number;
  k.edges = field("edges", true).number;
  k.triangles = field("triangles", true).number;
  const std::uint64_t size = fs::file_size(edge_file, ec);
  if (ec) throw Error("cannot size '" + printable(edge_file) + "': " + ec.message());
  if (size != k.file_bytes)
    throw Error(where + " gives the known counts of a file of " + std::to_string(k.file_bytes) + " bytes, but '" +
                printable(edge_file) + "' has " + std::to_string(size) +
                ": it belongs to another graph; delete it, or regenerate the graph and its counts with tricount-generate");
  return k;
}

void remove_known_sidecar(const std::string& edge_file) {
  const std::string path = known_sidecar_path(edge_file);
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(path, ec))) return;
  std::ifstream in(path, std::ios::binary);
  std::string head(64, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (head.find("\"format\": \"" + std::string(kFormat) + "\"") == std::string::npos) return;
  if (!fs::remove(path, ec) && ec)
    throw Error("cannot remove the stale '" + printable(path) + "' (it describes the graph written there before): " + ec.message());
}

}  // namespace tricount
