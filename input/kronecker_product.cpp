// Kronecker products of small graphs and their counts in closed form.
//
// The closed form (Kepner et al., "Design, Generation, and Validation of Extreme Scale
// Power-Law Graphs", IPDPSW 2018, which gives the triangle count of products without
// self-loops through tr(A^3) and builds power-law graphs from stars with self-loops):
// A = A1 ⊗ ... ⊗ Ak is symmetric 0/1 with diagonal D = diag(A) = D1 ⊗ ... ⊗ Dk (a diagonal
// entry of A is a product of diagonal entries). tricount counts B = A - D, undirected, with
// the vertices that have no edge dropped. With (X ⊗ Y)(Z ⊗ W) = XZ ⊗ YW and
// tr(X ⊗ Y) = tr(X) tr(Y), every term below is a product over the factors:
//   ids       = prod n_i
//   edges     = (nnz(A) - tr(A)) / 2 = (prod nnz(A_i) - prod tr(A_i)) / 2
//   vertices: x has deg_B(x) = prod deg_i(x_i) - prod loop_i(x_i) (deg_i counts the self-loop),
//             which is 0 iff some x_i has no entry or every x_i has only its self-loop, so
//             vertices = prod (n_i - isolated_i) - prod loop_only_i
//   triangles = tr(B^3) / 6, and since the trace is cyclic,
//     tr((A - D)^3) = tr(A^3) - 3 tr(D A^2) + 3 tr(D^2 A) - tr(D^3);
//     D^2 = D and tr(D A) = tr(D) for a 0/1 diagonal, so 3 tr(D^2 A) - tr(D^3) = 2 tr(A), and
//     tr(B^3) = prod tr(A_i^3) - 3 prod tr(D_i A_i^2) + 2 prod tr(A_i).
// A factor's own terms come from its triangles t (self-loops left out) and its degrees
// without self-loops: tr(A_i^3) = 6 t + 3 sum_{looped v} deg(v) + tr(A_i) (the same expansion
// with A_i = B_i + D_i, and tr(D_i B_i) = 0), and tr(D_i A_i^2) = sum_{looped v} (deg(v) + 1).
//
// Edge enumeration, one index per undirected edge {x, y}, x != y: let j be the first factor
// where x_j != y_j, with x_j < y_j. Factors before j contribute a self-loop (x_i = y_i,
// looped), factor j an entry above the diagonal, factors after j any entry. Level j thus
// holds prod_{i<j} tr(A_i) * (nnz(A_j) - tr(A_j)) / 2 * prod_{i>j} nnz(A_i) edges, an index
// within it is a mixed-radix number over those choices, and the levels sum to the edge
// count above. No edge is written twice and none is a self-loop.
#include "input/kronecker_product.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <random>
#include <string_view>
#include <system_error>
#include <utility>  // std::in_range, used by types.hpp

namespace tricount {

const char* const kFactorSyntax =
    "FACTOR,FACTOR,...: each FACTOR is a built-in graph -- triangle, K<n> (complete, 1 <= n <= 1024), "
    "star<n> (a hub and n leaves), path<n> (n >= 2 vertices in a line), cycle<n> (n >= 3), "
    "random<n>:<m>:<seed> (m distinct edges drawn uniformly among n vertices) -- or an edge-list file "
    "(any format tricount-partition reads; ids renumbered densely in ascending order; self-loops kept; "
    "a name without a comma, and ./NAME for a file named like a built-in); FACTOR+loops gives every "
    "vertex of it a self-loop; FACTOR^k repeats it k times (star3+loops^4)";

namespace {

constexpr std::uint64_t kMaxBuiltinVertices = std::uint64_t{1} << 24;
constexpr std::uint64_t kMaxCompleteVertices = 1024;
constexpr std::uint64_t kMaxRandomEdges = std::uint64_t{1} << 22;
constexpr std::size_t kMaxFactors = 64;
constexpr std::uint64_t kMaxRepeat = 64;

using u128 = unsigned __int128;

std::string u128_string(u128 x) {
  if (x == 0) return "0";
  std::string s;
  while (x > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(x % 10)));
    x /= 10;
  }
  return s;
}

// `text` as a whole decimal number, or false.
bool parse_number(std::string_view text, std::uint64_t& value) {
  if (text.empty()) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && ptr == text.data() + text.size();
}

[[noreturn]] void bad_factor(const std::string& spec, const std::string& why) {
  throw UsageError("--factors: '" + printable(spec) + "': " + why);
}

std::uint64_t bounded(const std::string& spec, std::string_view text, std::uint64_t lo, std::uint64_t hi,
                      const char* what) {
  std::uint64_t v = 0;
  if (!parse_number(text, v)) bad_factor(spec, std::string(what) + " '" + std::string(text) + "' is not a number");
  if (v < lo || v > hi)
    bad_factor(spec, std::string(what) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  return v;
}

void add(ProductFactor& f, std::uint64_t u, std::uint64_t v) {
  if (u > v) std::swap(u, v);
  f.edges.emplace_back(static_cast<vid_t>(u), static_cast<vid_t>(v));
}

// m distinct pairs u < v among n vertices, from the seed alone: mt19937_64's output is fixed
// by the C++ standard (distributions are not, hence the multiply-high below). Drawn in rounds
// (draw what is missing, sort, drop repeats) rather than into a hash set: sorting is fast.
void random_edges(ProductFactor& f, std::uint64_t n, std::uint64_t m, std::uint64_t seed) {
  const std::uint64_t pairs = n * (n - 1) / 2;
  const bool complement = m > pairs / 2;  // dense: draw the pairs to leave out
  const std::uint64_t wanted = complement ? pairs - m : m;
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> drawn;
  while (drawn.size() < wanted) {
    for (std::uint64_t missing = wanted - drawn.size(); missing > 0;) {
      const auto u = static_cast<std::uint64_t>((static_cast<u128>(rng()) * n) >> 64);
      const auto v = static_cast<std::uint64_t>((static_cast<u128>(rng()) * n) >> 64);
      if (u == v) continue;
      drawn.push_back(std::min(u, v) << 32 | std::max(u, v));
      --missing;
    }
    std::sort(drawn.begin(), drawn.end());
    drawn.erase(std::unique(drawn.begin(), drawn.end()), drawn.end());
  }
  if (complement) {
    for (std::uint64_t u = 0; u < n; ++u)
      for (std::uint64_t v = u + 1; v < n; ++v)
        if (!std::binary_search(drawn.begin(), drawn.end(), u << 32 | v)) add(f, u, v);
  } else {
    for (const std::uint64_t p : drawn) add(f, p >> 32, p & 0xFFFFFFFFu);
  }
}

// A built-in factor, or false when `base` names none.
bool builtin(const std::string& spec, const std::string& base, ProductFactor& f) {
  // NAME followed by digits (and, for random, colons) only: "K4.txt" is a file.
  const auto after = [&](std::string_view prefix, std::string_view& rest) {
    if (base.size() <= prefix.size() || base.compare(0, prefix.size(), prefix) != 0) return false;
    rest = std::string_view(base).substr(prefix.size());
    const bool colons = prefix == "random";
    return std::all_of(rest.begin(), rest.end(), [&](char c) { return (c >= '0' && c <= '9') || (colons && c == ':'); });
  };
  std::string_view rest;
  if (base == "triangle" || after("K", rest)) {
    const std::uint64_t n = base == "triangle" ? 3 : bounded(spec, rest, 1, kMaxCompleteVertices, "K<n>: n");
    f.vertices = n;
    for (std::uint64_t u = 0; u < n; ++u)
      for (std::uint64_t v = u + 1; v < n; ++v) add(f, u, v);
  } else if (after("star", rest)) {
    const std::uint64_t leaves = bounded(spec, rest, 1, kMaxBuiltinVertices - 1, "star<n>: n");
    f.vertices = leaves + 1;
    for (std::uint64_t v = 1; v <= leaves; ++v) add(f, 0, v);
  } else if (after("path", rest)) {
    f.vertices = bounded(spec, rest, 2, kMaxBuiltinVertices, "path<n>: n");
    for (std::uint64_t v = 1; v < f.vertices; ++v) add(f, v - 1, v);
  } else if (after("cycle", rest)) {
    f.vertices = bounded(spec, rest, 3, kMaxBuiltinVertices, "cycle<n>: n");
    for (std::uint64_t v = 1; v < f.vertices; ++v) add(f, v - 1, v);
    add(f, 0, f.vertices - 1);
  } else if (after("random", rest)) {
    const std::size_t c1 = rest.find(':');
    const std::size_t c2 = c1 == std::string_view::npos ? c1 : rest.find(':', c1 + 1);
    if (c2 == std::string_view::npos) bad_factor(spec, "write random<n>:<m>:<seed>, e.g. random12:30:7");
    const std::uint64_t n = bounded(spec, rest.substr(0, c1), 2, kMaxBuiltinVertices, "random<n>:<m>:<seed>: n");
    const std::uint64_t pairs = n * (n - 1) / 2;
    const std::uint64_t m = bounded(spec, rest.substr(c1 + 1, c2 - c1 - 1), 1, std::min(pairs, kMaxRandomEdges),
                                    "random<n>:<m>:<seed>: m (at most n(n-1)/2)");
    std::uint64_t seed = 0;
    if (!parse_number(rest.substr(c2 + 1), seed)) bad_factor(spec, "random<n>:<m>:<seed>: the seed is not a number");
    f.vertices = n;
    random_edges(f, n, m, seed);
  } else {
    return false;
  }
  return true;
}

// An edge-list file, ids renumbered densely in ascending order.
void file_factor(const std::string& spec, const std::string& path, ProductFactor& f) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    bad_factor(spec, "not a built-in factor and no file of that name (" + std::string(kFactorSyntax) + ")");
  const auto source = open_edge_file(path, InputFormat::Auto);
  std::vector<RawEdge> raw, batch;
  while (source->next_batch(batch, 1 << 16)) raw.insert(raw.end(), batch.begin(), batch.end());
  if (raw.empty())
    throw Error("--factors: the factor file '" + printable(path) + "' has no edges: give it at least one edge or self-loop");
  std::vector<raw_id_t> ids;
  ids.reserve(2 * raw.size());
  for (const RawEdge& e : raw) ids.push_back(e.u), ids.push_back(e.v);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() > kMaxVertices)
    throw Error("--factors: the factor file '" + printable(path) + "' has more than 2^32 - 1 vertices");
  const auto id = [&](raw_id_t x) { return static_cast<std::uint64_t>(std::lower_bound(ids.begin(), ids.end(), x) - ids.begin()); };
  f.vertices = ids.size();
  for (const RawEdge& e : raw) add(f, id(e.u), id(e.v));
}

std::uint64_t fit64(u128 x, const std::string& what) {
  if (x > UINT64_MAX) throw Error("the product's " + what + " (" + u128_string(x) + ") does not fit in 64 bits: use fewer or smaller factors");
  return static_cast<std::uint64_t>(x);
}

u128 times(u128 a, std::uint64_t b, const std::string& what) {
  u128 r = 0;
  if (__builtin_mul_overflow(a, static_cast<u128>(b), &r))
    throw Error("the product's " + what + " overflows 128 bits: use fewer or smaller factors");
  return r;
}

}  // namespace

std::vector<ProductFactor> parse_factor(const std::string& spec) {
  std::string base = spec;
  std::uint64_t copies = 1;
  if (const std::size_t caret = base.rfind('^'); caret != std::string::npos) {
    copies = bounded(spec, std::string_view(base).substr(caret + 1), 1, kMaxRepeat, "FACTOR^k: k");
    base.resize(caret);
  }
  bool loops = false;
  constexpr std::string_view kLoops = "+loops";
  if (base.size() > kLoops.size() && base.compare(base.size() - kLoops.size(), kLoops.size(), kLoops) == 0) {
    loops = true;
    base.resize(base.size() - kLoops.size());
  }
  if (base.empty()) bad_factor(spec, "an empty factor (" + std::string(kFactorSyntax) + ")");
  ProductFactor f;
  f.name = spec.substr(0, spec.rfind('^') == std::string::npos ? spec.size() : spec.rfind('^'));
  if (!builtin(spec, base, f)) file_factor(spec, base, f);
  if (loops)
    for (std::uint64_t v = 0; v < f.vertices; ++v) add(f, v, v);
  std::sort(f.edges.begin(), f.edges.end());
  f.edges.erase(std::unique(f.edges.begin(), f.edges.end()), f.edges.end());
  if (f.edges.empty()) bad_factor(spec, "it has no edge and no self-loop, so the product would have no edges");
  return std::vector<ProductFactor>(copies, f);
}

std::vector<ProductFactor> parse_factor_list(const std::string& list) {
  std::vector<ProductFactor> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = list.find(',', start);
    const std::string spec = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (spec.empty()) throw UsageError("--factors: an empty factor in '" + printable(list) + "' (" + kFactorSyntax + ")");
    for (ProductFactor& f : parse_factor(spec)) {
      if (out.size() == kMaxFactors) throw UsageError("--factors: more than " + std::to_string(kMaxFactors) + " factors");
      out.push_back(std::move(f));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

FactorStats factor_stats(const ProductFactor& f) {
  FactorStats s;
  s.vertices = f.vertices;
  const std::size_t n = static_cast<std::size_t>(f.vertices);
  std::vector<std::uint64_t> degree(n, 0);  // without the self-loop
  std::vector<char> looped(n, 0);
  for (const auto& [u, v] : f.edges) {
    if (u == v) {
      looped[u] = 1;
      ++s.loops;
    } else {
      ++degree[u], ++degree[v];
      s.entries += 2;
    }
  }
  s.entries += s.loops;
  u128 loop_degree_sum = 0;  // sum over looped v of deg(v), self-loop left out
  for (std::size_t v = 0; v < n; ++v) {
    if (degree[v] == 0 && !looped[v]) ++s.isolated;
    if (degree[v] == 0 && looped[v]) ++s.loop_only;
    if (looped[v]) loop_degree_sum += degree[v];
  }
  // Triangles without self-loops: orient each edge towards the larger (degree, id) and sum
  // |out(u) ∩ out(v)| over oriented edges u -> v; every triangle has exactly one such edge.
  const auto before = [&](vid_t a, vid_t b) { return degree[a] != degree[b] ? degree[a] < degree[b] : a < b; };
  std::vector<std::uint64_t> first(n + 1, 0);
  for (const auto& [u, v] : f.edges)
    if (u != v) ++first[(before(u, v) ? u : v) + 1];
  for (std::size_t v = 0; v < n; ++v) first[v + 1] += first[v];
  std::vector<vid_t> out(first[n]);
  std::vector<std::uint64_t> fill(first.begin(), first.end() - 1);
  for (const auto& [u, v] : f.edges)
    if (u != v) {
      const bool forward = before(u, v);
      out[fill[forward ? u : v]++] = forward ? v : u;
    }
  for (std::size_t v = 0; v < n; ++v) std::sort(out.begin() + first[v], out.begin() + first[v + 1]);
  u128 triangles = 0;
  for (std::size_t u = 0; u < n; ++u) {
    for (std::uint64_t p = first[u]; p < first[u + 1]; ++p) {
      const vid_t v = out[p];
      std::uint64_t a = first[u], b = first[v];
      while (a < first[u + 1] && b < first[v + 1]) {
        if (out[a] < out[b]) ++a;
        else if (out[b] < out[a]) ++b;
        else ++triangles, ++a, ++b;
      }
    }
  }
  const std::string what = "factor '" + f.name + "' trace";
  s.triangles = fit64(triangles, what);
  s.trace_a3 = fit64(6 * triangles + 3 * loop_degree_sum + s.loops, what);
  s.loop_degrees = fit64(loop_degree_sum + s.loops, what);
  return s;
}

ProductCounts product_counts(const std::vector<FactorStats>& factors) {
  u128 ids = 1, with_entry = 1, loop_only = 1, entries = 1, loops = 1, trace_a3 = 1, loop_degrees = 1;
  for (const FactorStats& s : factors) {
    ids = times(ids, s.vertices, "vertex count");
    with_entry = times(with_entry, s.vertices - s.isolated, "vertex count");
    loop_only = times(loop_only, s.loop_only, "vertex count");
    entries = times(entries, s.entries, "edge count");
    loops = times(loops, s.loops, "edge count");
    trace_a3 = times(trace_a3, s.trace_a3, "tr(A^3)");
    loop_degrees = times(loop_degrees, s.loop_degrees, "tr(D A^2)");
  }
  if (ids > kMaxVertices)
    throw UsageError("--factors: the product has " + u128_string(ids) + " vertices, more than tricount's 32-bit vertex ids hold (at most " +
                     std::to_string(kMaxVertices) + " = 2^32 - 1): use fewer or smaller factors");
  ProductCounts c;
  c.vertex_ids = static_cast<std::uint64_t>(ids);
  c.vertices = static_cast<std::uint64_t>(with_entry - loop_only);
  c.edges = fit64((entries - loops) / 2, "edge count");
  u128 trace_b3 = 0;  // tr(B^3) = tr(A^3) + 2 tr(A) - 3 tr(D A^2), never negative
  if (__builtin_add_overflow(trace_a3, 2 * loops, &trace_b3))
    throw Error("the product's tr(A^3) overflows 128 bits: use fewer or smaller factors");
  trace_b3 -= 3 * loop_degrees;
  TRICOUNT_EXPECTS(trace_b3 % 6 == 0, "kronecker-product: tr(B^3) = " + u128_string(trace_b3) + " is not a multiple of 6 (a bug)");
  c.triangles = fit64(trace_b3 / 6, "triangle count");
  return c;
}

KroneckerProduct::KroneckerProduct(std::vector<ProductFactor> factors) : factors_(std::move(factors)) {
  if (factors_.empty()) throw UsageError("--factors: give at least one factor (" + std::string(kFactorSyntax) + ")");
  if (factors_.size() > kMaxFactors) throw UsageError("--factors: more than " + std::to_string(kMaxFactors) + " factors");
  std::vector<FactorStats> stats;
  for (const ProductFactor& f : factors_) stats.push_back(factor_stats(f));
  counts_ = product_counts(stats);
  if (counts_.edges == 0)
    throw UsageError("--factors: the product has no edges (a product of graphs that have only self-loops has none): give a "
                     "factor with an edge between two vertices");
  const std::size_t k = factors_.size();
  tables_.resize(k);
  for (std::size_t i = 0; i < k; ++i) {
    Table& t = tables_[i];
    for (const auto& [u, v] : factors_[i].edges) {
      const std::uint64_t uv = std::uint64_t{u} << 32 | v, vu = std::uint64_t{v} << 32 | u;
      if (u == v) {
        t.loops.push_back(uv);
        t.all.push_back(uv);
      } else {
        t.upper.push_back(uv);
        t.all.push_back(uv);
        t.all.push_back(vu);
      }
    }
    std::sort(t.all.begin(), t.all.end());
  }
  stride_.assign(k, 1);
  for (std::size_t i = k - 1; i > 0; --i) stride_[i - 1] = stride_[i] * factors_[i].vertices;
  level_first_.assign(k + 1, 0);
  for (std::size_t j = 0; j < k; ++j) {
    u128 level = tables_[j].upper.size();
    for (std::size_t i = 0; i < k; ++i) {
      if (i < j) level *= tables_[i].loops.size();
      if (i > j) level *= tables_[i].all.size();
    }
    level_first_[j + 1] = level_first_[j] + static_cast<std::uint64_t>(level);  // levels sum to counts_.edges
  }
  TRICOUNT_EXPECTS(level_first_[k] == counts_.edges, "kronecker-product: the enumeration's edge count differs from the closed form (a bug)");
}

std::string KroneckerProduct::description() const {
  std::string d = "kronecker-product";
  for (std::size_t i = 0; i < factors_.size(); ++i) d += (i ? " x " : " ") + factors_[i].name;
  return d;
}

RawEdge KroneckerProduct::edge(std::uint64_t index) const {
  const std::size_t k = factors_.size();
  std::size_t j = 0;
  while (index >= level_first_[j + 1]) ++j;
  std::uint64_t r = index - level_first_[j];
  std::uint64_t u = 0, v = 0;
  const auto take = [&](std::size_t i, const std::vector<std::uint64_t>& choices) {
    const std::uint64_t size = choices.size();
    const std::uint64_t q = r / size;
    const std::uint64_t e = choices[r - q * size];
    r = q;
    u += (e >> 32) * stride_[i];
    v += (e & 0xFFFFFFFFu) * stride_[i];
  };
  for (std::size_t i = k; i-- > j + 1;) take(i, tables_[i].all);
  take(j, tables_[j].upper);
  for (std::size_t i = j; i-- > 0;) take(i, tables_[i].loops);
  return {u, v};
}

}  // namespace tricount
