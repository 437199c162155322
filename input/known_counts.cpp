// FILE.known: written with the project's JSON builder, read back with its reader (counts
// exactly, from their literals).
#include "input/known_counts.hpp"

#include <filesystem>
#include <fstream>
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
  KnownCounts k;
  try {
    const std::string what = "a known-counts file written by tricount-generate";
    const std::string name = printable(path);
    const JsonValue j = read_json_file(path, what);
    if (json_field(j, "format", JsonValue::String, name, what).text != kFormat || json_uint64(j, "version", name, what) != kVersion)
      throw Error(where + ": not a known-counts file of format '" + std::string(kFormat) + "' version " + std::to_string(kVersion));
    k.generator = json_field(j, "generator", JsonValue::String, name, what).text;
    k.file_bytes = json_uint64(j, "file_bytes", name, what);
    k.vertex_ids = json_uint64(j, "vertex_ids", name, what);
    k.vertices = json_uint64(j, "vertices", name, what);
    k.edges = json_uint64(j, "edges", name, what);
    k.triangles = json_uint64(j, "triangles", name, what);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + "; delete it or regenerate the graph with tricount-generate");
  }
  k.sidecar = path;
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
