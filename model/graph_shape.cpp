#include "model/graph_shape.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "src/json.hpp"
#include "src/output_file.hpp"
#include "src/task_plan.hpp"

namespace tricount {

std::uint64_t GraphShape::total_work() const {
  std::uint64_t w = 0;
  for (std::uint64_t x : subtask_work) w += x;
  return w;
}

std::uint64_t GraphShape::max_block_bytes() const {
  return block_bytes.empty() ? 0 : *std::max_element(block_bytes.begin(), block_bytes.end());
}

std::string graph_shape_json(const GraphShape& shape) {
  auto list = [](const std::vector<std::uint64_t>& values) {
    std::string s = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i) s += ',';  // (not "," + to_string: GCC 12 warns falsely on it here, -Wrestrict)
      s += std::to_string(values[i]);
    }
    return s + "]";
  };
  JsonObject j;
  j.add("tricount_graph_shape", 1).add("description", shape.description).add("vertices", shape.vertices)
      .add("edges", shape.edges).add("parts", shape.parts).add_raw("block_bytes", list(shape.block_bytes))
      .add_raw("subtask_work", list(shape.subtask_work));
  return j.str() + "\n";
}

void save_graph_shape(const GraphShape& shape, const std::string& path) {
  output::write_text_file(path, "shape", graph_shape_json(shape));
}

GraphShape load_graph_shape(const std::string& path) {
  const std::string what = "a graph shape file";
  const JsonValue doc = read_json_file(path, what);
  auto field = [&](const JsonValue& object, const std::string& key, JsonValue::Kind kind) -> const JsonValue& {
    return json_field(object, key, kind, path, what);
  };
  auto count = [&](const JsonValue& v, const std::string& key) {
    if (v.kind != JsonValue::Number || !(v.number >= 0) || v.number > 1.8e19 || v.number != std::floor(v.number))
      throw Error("'" + path + "': field '" + key + "' holds a value that is not a count");
    return static_cast<std::uint64_t>(v.number);
  };
  auto counts = [&](const std::string& key) {
    std::vector<std::uint64_t> values;
    for (const JsonValue& v : field(doc, key, JsonValue::Array).items) values.push_back(count(v, key));
    return values;
  };
  if (count(field(doc, "tricount_graph_shape", JsonValue::Number), "tricount_graph_shape") != 1)
    throw Error("'" + path + "': graph shape version is not 1");
  GraphShape g;
  g.description = field(doc, "description", JsonValue::String).text;
  g.vertices = count(field(doc, "vertices", JsonValue::Number), "vertices");
  g.edges = count(field(doc, "edges", JsonValue::Number), "edges");
  const std::uint64_t parts = count(field(doc, "parts", JsonValue::Number), "parts");
  if (parts < 1 || parts > 1024) throw Error("'" + path + "': field 'parts' is not between 1 and 1024");
  g.parts = static_cast<std::uint32_t>(parts);
  g.block_bytes = counts("block_bytes");
  g.subtask_work = counts("subtask_work");
  if (g.block_bytes.size() != parts * parts || g.subtask_work.size() != parts * parts * parts)
    throw Error("'" + path + "': " + std::to_string(g.block_bytes.size()) + " block sizes and " +
                std::to_string(g.subtask_work.size()) + " subtask works for n = " + std::to_string(parts) +
                " (n^2 and n^3 expected)");
  return g;
}

std::uint64_t block_bytes_of(std::uint64_t vertices, std::uint32_t parts, std::uint32_t row_class, std::uint64_t nnz) {
  return csr_bytes(rows_in_class(vertices, parts, row_class), nnz);
}

GraphShape synthetic_shape(const std::string& description, std::uint64_t vertices, std::uint64_t edges,
                           std::uint64_t total_work, std::uint32_t parts) {
  check_parts(parts);
  GraphShape g;
  g.description = description, g.vertices = vertices, g.edges = edges, g.parts = parts;
  const std::uint64_t n = parts;
  g.subtask_work.assign(n * n * n, total_work / (n * n * n));
  g.block_bytes.resize(n * n);
  for (std::uint32_t i = 0; i < parts; ++i)
    for (std::uint32_t j = 0; j < parts; ++j) g.block_bytes[i * n + j] = block_bytes_of(vertices, parts, i, edges / (n * n));
  return g;
}

std::vector<std::uint64_t> file_block_bytes(const BlockFileReader& file) {
  const std::uint32_t n = file.header().parts;
  std::vector<std::uint64_t> bytes;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) bytes.push_back(block_bytes_of(file.header().vertices, n, i, file.block_nnz({i, j})));
  return bytes;
}

std::vector<std::uint64_t> count_block_bytes(const BlockFileReader& file, std::uint32_t count_parts, const std::string& journal) {
  const std::uint32_t n = file.header().parts;
  if (count_parts == 0 || n % count_parts != 0)
    throw Error("journal '" + journal + "' counts " + std::to_string(count_parts) + " parts, which do not divide the " +
                std::to_string(n) + " of its block file");
  return coarsen_block_nnz(file_block_bytes(file), n, n / count_parts);
}

namespace {
// Kronecker 26's packed files at n = 1 and 8 (one H200, run2 of results/h200-issue28-packed):
// their blocks' bytes fit about 1.82 bytes per edge plus 0.80 per row; a packed byte took
// about 1.43 times a CSR byte's upload time with its decode (run3).
constexpr double kPackedBytesPerEdge = 1.82, kPackedBytesPerRow = 0.80, kPackedUploadCost = 1.43;
}  // namespace

std::uint64_t packed_bytes_of(std::uint64_t vertices, std::uint32_t parts, std::uint32_t row_class, std::uint64_t nnz) {
  return static_cast<std::uint64_t>(kPackedBytesPerEdge * static_cast<double>(nnz) +
                                    kPackedBytesPerRow * static_cast<double>(rows_in_class(vertices, parts, row_class)));
}

namespace {
// Block b's neighbours (row-major b = i n + j), back from its CSR bytes.
std::uint64_t shape_block_nnz(const GraphShape& g, std::uint64_t b) {
  const std::uint64_t rows = rows_in_class(g.vertices, g.parts, static_cast<std::uint32_t>(b / g.parts));
  const std::uint64_t offsets = (rows + 1) * sizeof(eoff_t);
  return g.block_bytes[b] > offsets ? (g.block_bytes[b] - offsets) / sizeof(vid_t) : 0;
}
}  // namespace

void pack_shape(GraphShape& g) {
  const std::uint64_t n = g.parts;
  g.stored_bytes.assign(n * n, 0);
  for (std::uint64_t b = 0; b < n * n; ++b)
    g.stored_bytes[b] = packed_bytes_of(g.vertices, g.parts, static_cast<std::uint32_t>(b / n), shape_block_nnz(g, b));
  g.upload_cost = kPackedUploadCost;
}

GraphShape count_parts_shape(const GraphShape& g, std::uint32_t count_parts) {
  check_count_parts(count_parts, g.parts);
  if (count_parts == g.parts) return g;
  const std::uint32_t group = g.parts / count_parts;
  GraphShape c = g;
  c.description += ", counted as " + std::to_string(count_parts) + (count_parts == 1 ? " part" : " parts");
  c.parts = count_parts;
  c.subtask_work = coarsen_task_work(g.subtask_work, g.parts, group);
  std::vector<std::uint64_t> nnz(g.block_bytes.size());
  for (std::uint64_t b = 0; b < nnz.size(); ++b) nnz[b] = shape_block_nnz(g, b);
  const std::vector<std::uint64_t> count_nnz = coarsen_block_nnz(nnz, g.parts, group);
  c.block_bytes.assign(count_nnz.size(), 0);
  for (std::uint64_t b = 0; b < count_nnz.size(); ++b)
    c.block_bytes[b] = block_bytes_of(g.vertices, count_parts, static_cast<std::uint32_t>(b / count_parts), count_nnz[b]);
  // A count block is loaded as its file blocks: their stored bytes, summed alike.
  if (!g.stored_bytes.empty()) c.stored_bytes = coarsen_block_nnz(g.stored_bytes, g.parts, group);
  return c;
}

GraphShape file_shape(const std::string& path) {
  const BlockFileReader file(path);
  GraphShape g;
  g.description = "block file '" + path + "'";
  g.vertices = file.header().vertices, g.edges = file.header().edges, g.parts = file.header().parts;
  g.subtask_work = file.read_task_work();
  if (g.subtask_work.empty())
    throw Error("'" + path + "' has no /task_work estimates: partition it again with this tricount-partition");
  g.block_bytes = file_block_bytes(file);
  bool packed = false;
  for (std::uint32_t i = 0; i < g.parts; ++i)
    for (std::uint32_t j = 0; j < g.parts; ++j) {
      g.stored_bytes.push_back(file.block_stored_bytes({i, j}));
      packed = packed || file.is_packed({i, j});
    }
  if (packed) g.upload_cost = kPackedUploadCost;
  else g.stored_bytes.clear();
  return g;
}

GraphShape like_shape(const std::string& description, std::uint64_t vertices, std::uint64_t edges, std::uint64_t total_work,
                      const std::string& like) {
  const BlockFileReader file(like);
  const std::uint32_t n = file.header().parts;
  GraphShape g;
  g.description = description + ", task and block shape of '" + like + "'";
  g.vertices = vertices, g.edges = edges, g.parts = n;
  const std::vector<std::uint64_t> work = file.read_task_work();
  if (work.empty()) throw Error("--like '" + like + "' has no /task_work estimates: partition it again with this tricount-partition");
  double like_work = 0, like_nnz = 0;
  for (std::uint64_t w : work) like_work += static_cast<double>(w);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) like_nnz += static_cast<double>(file.block_nnz({i, j}));
  if (like_work <= 0 || like_nnz <= 0) throw Error("--like '" + like + "' has no work or no edges");
  for (std::uint64_t w : work) g.subtask_work.push_back(static_cast<std::uint64_t>(static_cast<double>(w) * total_work / like_work));
  char skew[96];
  std::snprintf(skew, sizeof skew, " (largest subtask %.2f x the mean)",
                static_cast<double>(*std::max_element(work.begin(), work.end())) * static_cast<double>(work.size()) / like_work);
  g.description += skew;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j)
      g.block_bytes.push_back(block_bytes_of(
          vertices, n, i, static_cast<std::uint64_t>(static_cast<double>(file.block_nnz({i, j})) * static_cast<double>(edges) / like_nnz)));
  return g;
}

}  // namespace tricount
