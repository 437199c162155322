// The edge-file readers by format: the format's name, the format a file's name or first
// bytes say, and the reader for each (input/text_edges.cpp, input/binary_edges.cpp,
// input/webgraph.cpp; their byte inputs in input/byte_input.cpp).
#include <array>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "input/binary_edges.hpp"
#include "input/byte_input.hpp"
#include "input/edge_source.hpp"
#include "input/known_counts.hpp"
#include "input/text_edges.hpp"
#include "input/text_scan.hpp"
#include "input/webgraph.hpp"
#include "src/output_file.hpp"
#include "src/types.hpp"

namespace tricount {
namespace {

using namespace text_scan;

// The first bytes of a (possibly gzip-compressed) text file, decompressed.
std::string text_head(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) == 0 && !ec)
    return "";  // nothing to sniff: reading it says what is wrong (an empty .gz is an error)
  GzInput in(path);
  std::array<char, 32> head{};
  std::size_t n = 0;
  while (n < head.size()) {
    const std::size_t got = in.read(head.data() + n, head.size() - n);
    if (got == 0) break;
    n += got;
  }
  return std::string(head.data(), n);
}

}  // namespace

InputFormat sniff_text_format(std::string_view head, const std::string& path) {
  // A block file given where an edge file belongs: said, not parsed as a malformed line.
  if (head.starts_with(output::kHdf5Signature))
    throw Error(printable(path) + ": an HDF5 file (a tricount block file?), not an edge file: count it with tricount-count " +
                printable(path) + ", or give the edge file");
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);
  return starts_with_ci(head, "%%MatrixMarket") ? InputFormat::MatrixMarket : InputFormat::EdgeList;
}

InputFormat parse_input_format(std::string_view name) {
  const std::string n = to_lower(name);
  if (n == "auto") return InputFormat::Auto;
  if (n == "edgelist" || n == "text" || n == "txt") return InputFormat::EdgeList;
  if (n == "mtx" || n == "mm" || n == "matrixmarket") return InputFormat::MatrixMarket;
  if (n == "bin32") return InputFormat::Bin32;
  if (n == "bin64" || n == "bin") return InputFormat::Bin64;
  if (n == "webgraph" || n == "bvgraph") return InputFormat::WebGraph;
  throw UsageError("unknown input format '" + std::string(name) +
                   "'; choose one of auto, edgelist, mtx, bin32, bin64, webgraph");
}

std::string_view to_string(InputFormat f) {
  switch (f) {
    case InputFormat::Auto: return "auto";
    case InputFormat::EdgeList: return "edgelist";
    case InputFormat::MatrixMarket: return "mtx";
    case InputFormat::Bin32: return "bin32";
    case InputFormat::Bin64: return "bin64";
    case InputFormat::WebGraph: return "webgraph";
  }
  return "unknown";
}

InputFormat format_from_name(const std::string& path) {
  if (is_webgraph_input(path)) return InputFormat::WebGraph;
  std::string_view name = path;
  if (ends_with_ci(name, ".gz")) name.remove_suffix(3);
  if (ends_with_ci(name, ".mtx") || ends_with_ci(name, ".mm")) return InputFormat::MatrixMarket;
  if (ends_with_ci(name, ".bin32")) return InputFormat::Bin32;
  if (ends_with_ci(name, ".bin64") || ends_with_ci(name, ".bin")) return InputFormat::Bin64;
  return InputFormat::Auto;
}

InputFormat detect_input_format(const std::string& path) {
  const InputFormat by_name = format_from_name(path);
  return by_name != InputFormat::Auto ? by_name : sniff_text_format(text_head(path), path);
}

bool splits_into_shares(const std::string& path, InputFormat format) {
  if (format == InputFormat::WebGraph || format == InputFormat::Auto)
    if (is_webgraph_input(path)) return true;
  if (!is_uncompressed_regular_file(path)) return false;
  if (format == InputFormat::Auto) format = detect_input_format(path);
  return format == InputFormat::EdgeList || format == InputFormat::MatrixMarket;
}

std::vector<std::string> input_companion_files(const std::string& path) {
  std::vector<std::string> files;
  if (const std::string base = webgraph_basename(path); !base.empty())
    for (const char* ext : {".graph", ".properties", ".offsets"})
      if (base + ext != path) files.push_back(base + ext);
  files.push_back(known_sidecar_path(path));
  return files;
}

std::unique_ptr<EdgeSource> open_edge_file(const std::string& path, InputFormat format) {
  return open_edge_file(path, format, EdgeFileOptions{});
}

std::unique_ptr<EdgeSource> open_edge_file(const std::string& path, InputFormat format,
                                           const EdgeFileOptions& options) {
  // The input is opened once: a name that does not say leaves the choice between the text
  // formats to the text reader, which sniffs its own first bytes (pipes, FIFOs, /dev/stdin).
  if (format == InputFormat::Auto) format = format_from_name(path);
  switch (format) {
    case InputFormat::Auto:
    case InputFormat::EdgeList:
    case InputFormat::MatrixMarket: return open_text_edges(path, format, options);
    case InputFormat::Bin32: return open_binary_edges(path, 4);
    case InputFormat::Bin64: return open_binary_edges(path, 8);
    case InputFormat::WebGraph: return open_webgraph(path, options);
  }
  throw Error("open_edge_file: unhandled input format");
}

}  // namespace tricount
