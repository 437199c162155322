// Synthetic edge streams (Kronecker, uniform, 3D grid) and the edge-file writer.
//
// Randomness is counter-based: edge i of a stream is computed from (seed, i) alone, never
// from the edges before it. So any batch size, any split of the index range between
// threads, and a stream of more than 2^32 edges all give the same edges, and a source's
// only state is its position.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <utility>  // std::in_range, used by types.hpp
#include <vector>

#include "input/generators.hpp"
#include "input/kronecker_product.hpp"
#include "src/threads.hpp"
#include "src/output_file.hpp"
#include "src/types.hpp"

namespace tricount {
namespace {

// --- counter-based random numbers ------------------------------------------------------
//
// mix64 is the splitmix64 output function (Steele, Lea, Flood 2014; constants by
// Stafford, "variant 13"): a bijective 64-bit mixer with full avalanche.
//   edge_state(i)  = mix64(key + i * kGammaEdge)         -- the i-th output of splitmix64
//   draw(i, j)     = mix64(edge_state(i) + (j + 1) * kGammaDraw)
// i.e. each edge runs its own short splitmix64 stream, started at a pseudo-random point.
// Two edges' draw streams could only overlap if their states differed by a small multiple
// of kGammaDraw, which for 64-bit pseudo-random states is negligible.
constexpr std::uint64_t kGammaEdge = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio
constexpr std::uint64_t kGammaDraw = 0xD1B54A32D192ED03ull;  // another odd constant

inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Different generator kinds use different salts so that, say, uniform and Kronecker with
// the same seed are unrelated streams.
inline std::uint64_t stream_key(std::uint64_t seed, std::uint64_t salt) {
  return mix64(mix64(seed) ^ salt);
}

inline std::uint64_t edge_state(std::uint64_t key, std::uint64_t index) {
  return mix64(key + index * kGammaEdge);
}

inline std::uint64_t draw(std::uint64_t state, std::uint64_t j) {
  return mix64(state + (j + 1) * kGammaDraw);
}

// Uniform in [0, n) by multiply-high (Lemire): bias at most n / 2^64, far below anything
// a graph statistic could see, and no rejection loop that would break "one edge, a fixed
// number of draws".
inline std::uint64_t below(std::uint64_t r, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(r) * n) >> 64);
}

// Probability p in [0, 1] as a threshold for a 32-bit uniform: P(r < t) = t / 2^32.
std::uint64_t threshold32(double p) {
  const double t = std::nearbyint(std::clamp(p, 0.0, 1.0) * 4294967296.0);
  return static_cast<std::uint64_t>(t);
}

// A generator: its edges by index (IndexedEdges) and what it is, for messages.
class Generated : public IndexedEdges {
 public:
  virtual std::string description() const = 0;
};

// A generator's edges as a stream, in index order; each batch is computed on up to
// `threads` threads (0: all usable cores). Edges are pure functions of their index, so the
// batch is the same for any thread count; a thread gets at least 2^14 edges, so small
// batches stay on the calling thread.
class GeneratedSource final : public EdgeSource {
 public:
  GeneratedSource(std::unique_ptr<const Generated> edges, unsigned threads)
      : edges_(std::move(edges)), threads_(threads) {}

  bool next_batch(std::vector<RawEdge>& out, std::size_t max_edges) override {
    TRICOUNT_EXPECTS(max_edges > 0, "next_batch: max_edges must be positive");
    constexpr std::uint64_t kMinEdgesPerThread = std::uint64_t{1} << 14;
    const std::uint64_t n = std::min<std::uint64_t>(max_edges, edges_->edge_count() - next_);
    out.resize(static_cast<std::size_t>(n));
    const unsigned wanted = threads_ == 0 ? usable_cores() : threads_;
    const auto used = static_cast<unsigned>(std::min<std::uint64_t>(wanted, std::max<std::uint64_t>(1, n / kMinEdgesPerThread)));
    parallel_ranges(n, used, [&](std::uint64_t lo, std::uint64_t hi) {
      edges_->edges_at(next_ + lo, hi - lo, out.data() + lo);
    });
    next_ += n;
    return n > 0;
  }
  std::string description() const override { return edges_->description(); }
  const IndexedEdges* indexed() const override { return edges_.get(); }

 private:
  std::unique_ptr<const Generated> edges_;
  unsigned threads_;
  std::uint64_t next_ = 0;
};

std::string format_double(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

// --- vertex permutation ----------------------------------------------------------------
//
// A pseudo-random bijection on [0, 2^bits) that needs no memory: four rounds of
// (multiply by an odd constant, xor-shift right by about half the width, add a constant),
// all mod 2^bits. Each step is invertible mod 2^bits, so the composition is a bijection;
// the multiplications carry low bits upward and the shifts carry high bits downward, so
// after four rounds every output bit depends on every input bit. The constants come from
// the seed. This plays the role of Graph500's vertex scramble (hiding the Kronecker
// structure that puts the heavy vertices at small ids) but it is NOT the Graph500
// reference code's permutation, and ids will differ from that code's output.
class BitPermutation {
 public:
  BitPermutation(unsigned bits, std::uint64_t seed)
      : mask_(bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1),
        shift_(std::max(1u, (bits + 1) / 2)) {
    std::uint64_t s = stream_key(seed, 0x7065726D75746531ull);  // "permute1"
    for (std::size_t r = 0; r < kRounds; ++r) {
      s = mix64(s + kGammaEdge);
      mul_[r] = s | 1u;  // odd: invertible mod 2^bits
      s = mix64(s + kGammaEdge);
      add_[r] = s;
    }
  }

  std::uint64_t operator()(std::uint64_t x) const {
    for (std::size_t r = 0; r < kRounds; ++r) {
      x = (x * mul_[r]) & mask_;
      x ^= x >> shift_;
      x = (x + add_[r]) & mask_;
    }
    return x;
  }

 private:
  static constexpr std::size_t kRounds = 4;
  std::uint64_t mask_;
  unsigned shift_;
  std::uint64_t mul_[kRounds]{};
  std::uint64_t add_[kRounds]{};
};

// --- Kronecker -------------------------------------------------------------------------

class Kronecker final : public Generated {
 public:
  explicit Kronecker(const KroneckerSpec& spec)
      : spec_(validated(spec)), key_(stream_key(spec.seed, 0x6B726F6E65636B72ull)),  // "kroneckr"
        perm_(spec.scale, spec.seed) {
    total_ = spec.edge_factor << spec.scale;
    const double a = spec.a, b = spec.b, c = spec.c, d = 1.0 - a - b - c;
    if (!(a >= 0 && b >= 0 && c >= 0 && d >= -1e-12)) {
      throw Error("kronecker: initiator probabilities a, b, c must be non-negative with a + b + c <= 1 "
                  "(got " + format_double(a) + ", " + format_double(b) + ", " + format_double(c) + ")");
    }
    // Graph500's per-level draw (as in its reference generator's description): the row bit
    // is 1 with probability C + D; the column bit, given the row bit, is 1 with probability
    // B / (A + B) or D / (C + D). Together: quadrant (0,0) A, (0,1) B, (1,0) C, (1,1) D.
    t_row_ = threshold32(a + b);
    t_col0_ = threshold32(a + b > 0 ? a / (a + b) : 1.0);
    t_col1_ = threshold32(c + std::max(d, 0.0) > 0 ? c / (c + std::max(d, 0.0)) : 1.0);
  }

  // Checked before any member is built from the spec (the permutation shifts by scale).
  static const KroneckerSpec& validated(const KroneckerSpec& spec) {
    if (spec.scale < 1 || spec.scale > 62) {
      throw Error("kronecker: scale " + std::to_string(spec.scale) + " is out of range 1..62");
    }
    if (spec.edge_factor < 1) throw Error("kronecker: edge factor must be at least 1");
    if (spec.edge_factor > (std::numeric_limits<std::uint64_t>::max() >> spec.scale)) {
      throw Error("kronecker: edge_factor * 2^scale does not fit in 64 bits");
    }
    return spec;
  }

  std::uint64_t edge_count() const override { return total_; }
  void edges_at(std::uint64_t first, std::uint64_t n, RawEdge* out) const override {
    for (std::uint64_t k = 0; k < n; ++k) out[k] = edge(first + k);
  }

  std::string description() const override {
    return "kronecker scale=" + std::to_string(spec_.scale) +
           " edge_factor=" + std::to_string(spec_.edge_factor) +
           " seed=" + std::to_string(spec_.seed) + " a=" + format_double(spec_.a) +
           " b=" + format_double(spec_.b) + " c=" + format_double(spec_.c) +
           (spec_.permute ? "" : " permute=no");
  }

 private:
  RawEdge edge(std::uint64_t index) const {
    const std::uint64_t state = edge_state(key_, index);
    std::uint64_t u = 0, v = 0;
    for (unsigned level = 0; level < spec_.scale; ++level) {
      const std::uint64_t r = draw(state, level);  // two 32-bit uniforms per level
      const std::uint64_t row = (r >> 32) >= t_row_;
      const std::uint64_t col = (r & 0xFFFFFFFFu) >= (row ? t_col1_ : t_col0_);
      u = (u << 1) | row;
      v = (v << 1) | col;
    }
    if (spec_.permute) {
      u = perm_(u);
      v = perm_(v);
    }
    return {u, v};
  }

  KroneckerSpec spec_;
  std::uint64_t key_;
  BitPermutation perm_;
  std::uint64_t total_ = 0;
  std::uint64_t t_row_ = 0, t_col0_ = 0, t_col1_ = 0;
};

// --- uniform ---------------------------------------------------------------------------

class Uniform final : public Generated {
 public:
  explicit Uniform(const UniformSpec& spec)
      : spec_(spec), key_(stream_key(spec.seed, 0x756E69666F726D31ull)) {  // "uniform1"
    if (spec.vertices < 1) throw Error("uniform: the number of vertices must be at least 1");
  }

  std::uint64_t edge_count() const override { return spec_.edges; }
  void edges_at(std::uint64_t first, std::uint64_t n, RawEdge* out) const override {
    for (std::uint64_t k = 0; k < n; ++k) {
      const std::uint64_t state = edge_state(key_, first + k);
      out[k] = RawEdge{below(state, spec_.vertices), below(draw(state, 0), spec_.vertices)};
    }
  }

  std::string description() const override {
    return "uniform vertices=" + std::to_string(spec_.vertices) +
           " edges=" + std::to_string(spec_.edges) + " seed=" + std::to_string(spec_.seed);
  }

 private:
  UniformSpec spec_;
  std::uint64_t key_;
};

// --- 3D grid ---------------------------------------------------------------------------

class Grid3d final : public Generated {
 public:
  explicit Grid3d(const Grid3dSpec& spec) : spec_(spec) {
    if (spec.nx < 1 || spec.ny < 1 || spec.nz < 1) {
      throw Error("grid3d: every side must be at least 1 (got " + dims() + ")");
    }
    std::uint64_t plane = 0, all = 0;
    if (__builtin_mul_overflow(spec.nx, spec.ny, &plane) || __builtin_mul_overflow(plane, spec.nz, &all) ||
        all > (std::numeric_limits<std::uint64_t>::max() / 3)) {
      throw Error("grid3d: " + dims() + " vertices do not fit in 64-bit ids");
    }
    plane_ = plane;
    total_ = (spec.nx - 1) * spec.ny * spec.nz + spec.nx * (spec.ny - 1) * spec.nz + plane * (spec.nz - 1);
  }

  std::uint64_t edge_count() const override { return total_; }

  // Vertex (x, y, z) has id x + nx * (y + ny * z); each vertex in turn, in id order, emits
  // its +x, +y and +z edges where the neighbour exists. Edge `first` is found by counting
  // the edges of whole planes, rows and vertices before it, then the rest follow in order.
  void edges_at(std::uint64_t first, std::uint64_t n, RawEdge* out) const override {
    TRICOUNT_EXPECTS(first <= total_ && n <= total_ - first, "grid3d: edges past the last one asked for");
    if (n == 0) return;
    const std::uint64_t nx = spec_.nx, ny = spec_.ny, nz = spec_.nz;
    std::uint64_t i = first;
    // Every plane but the last has (nx-1) ny + nx (ny-1) in-plane edges and nx ny +z edges.
    const std::uint64_t per_plane = (nx - 1) * ny + nx * (ny - 1) + plane_;
    std::uint64_t z = std::min(i / per_plane, nz - 1);
    i -= z * per_plane;
    const bool z_ext = z + 1 < nz;
    // Every row but the last of plane z: nx - 1 edges +x, nx +y, and nx +z if z_ext.
    const std::uint64_t per_row = (nx - 1) + nx + (z_ext ? nx : 0);
    std::uint64_t y = std::min(i / per_row, ny - 1);
    i -= y * per_row;
    // Every vertex but the last of row y: one +x, and +y, +z where they exist.
    const std::uint64_t per_vertex = 1 + (y + 1 < ny) + z_ext;
    std::uint64_t x = std::min(i / per_vertex, nx - 1);
    i -= x * per_vertex;
    unsigned dir = 0;  // the i-th of the vertex's existing directions
    for (;; ++dir) {
      if (has(dir, x, y, z) && i-- == 0) break;
    }
    std::uint64_t k = 0;
    while (k < n) {
      const std::uint64_t id = x + nx * (y + ny * z);
      if (has(dir, x, y, z)) out[k++] = {id, id + (dir == 0 ? 1 : dir == 1 ? nx : plane_)};
      if (++dir == 3) {
        dir = 0;
        if (++x == nx) {
          x = 0;
          if (++y == ny) {
            y = 0;
            ++z;
          }
        }
      }
    }
  }

  std::string description() const override { return "grid3d " + dims(); }

 private:
  bool has(unsigned dir, std::uint64_t x, std::uint64_t y, std::uint64_t z) const {
    return dir == 0 ? x + 1 < spec_.nx : dir == 1 ? y + 1 < spec_.ny : z + 1 < spec_.nz;
  }
  std::string dims() const {
    return std::to_string(spec_.nx) + "x" + std::to_string(spec_.ny) + "x" + std::to_string(spec_.nz);
  }

  Grid3dSpec spec_;
  std::uint64_t plane_ = 0, total_ = 0;
};

// --- Kronecker product of small graphs ------------------------------------------------

class Product final : public Generated {
 public:
  explicit Product(std::shared_ptr<const KroneckerProduct> product) : product_(std::move(product)) {
    TRICOUNT_EXPECTS(product_ != nullptr, "kronecker-product: no product given");
  }
  std::uint64_t edge_count() const override { return product_->counts().edges; }
  void edges_at(std::uint64_t first, std::uint64_t n, RawEdge* out) const override {
    for (std::uint64_t k = 0; k < n; ++k) out[k] = product_->edge(first + k);
  }
  std::string description() const override { return product_->description(); }

 private:
  std::shared_ptr<const KroneckerProduct> product_;
};

// --- writer ----------------------------------------------------------------------------

class FileWriter {
 public:
  // An output::OutputFile: a temporary beside `path`, renamed in close(); a device or a
  // FIFO (or /dev/stdout) is written in place.
  explicit FileWriter(const std::string& path) : file_(path, "--output") { buf_.resize(kBufBytes); }
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  // Room for at least `n` more bytes (n is small: one edge).
  char* reserve(std::size_t n) {
    if (kBufBytes - used_ < n) flush();
    return buf_.data() + used_;
  }
  void commit(char* end) { used_ = static_cast<std::size_t>(end - buf_.data()); }

  void flush() {
    file_.write(std::string_view(buf_.data(), used_));
    used_ = 0;
  }

  void close() {
    flush();
    file_.commit();
  }

 private:
  static constexpr std::size_t kBufBytes = std::size_t{4} << 20;
  output::OutputFile file_;
  std::vector<char> buf_;
  std::size_t used_ = 0;
};

template <class Word>
char* store_le(char* p, Word w) {
  if constexpr (std::endian::native == std::endian::big) {
    if constexpr (sizeof(Word) == 4) w = __builtin_bswap32(w);
    else w = __builtin_bswap64(w);
  }
  std::memcpy(p, &w, sizeof w);
  return p + sizeof w;
}

}  // namespace

std::unique_ptr<EdgeSource> make_kronecker_source(const KroneckerSpec& spec) {
  return std::make_unique<GeneratedSource>(std::make_unique<Kronecker>(spec), spec.threads);
}

std::unique_ptr<EdgeSource> make_uniform_source(const UniformSpec& spec) {
  return std::make_unique<GeneratedSource>(std::make_unique<Uniform>(spec), spec.threads);
}

std::unique_ptr<EdgeSource> make_grid3d_source(const Grid3dSpec& spec) {
  return std::make_unique<GeneratedSource>(std::make_unique<Grid3d>(spec), 1);
}

std::unique_ptr<EdgeSource> make_kronecker_product_source(std::shared_ptr<const KroneckerProduct> product,
                                                          unsigned threads) {
  return std::make_unique<GeneratedSource>(std::make_unique<Product>(std::move(product)), threads);
}

std::uint64_t write_edge_file(EdgeSource& source, const std::string& path, EdgeFileKind kind) {
  // Written under a temporary name and renamed at the end, so a crash or an error never
  // leaves a truncated file under the real name for a later run to read.
  std::uint64_t written = 0;
  {
    FileWriter out(path);
    std::vector<RawEdge> batch;
    constexpr std::size_t kBatch = std::size_t{1} << 20;  // 16 MB: enough to share among threads
    while (source.next_batch(batch, kBatch)) {
      switch (kind) {
        case EdgeFileKind::Text:
          for (const RawEdge& e : batch) {
            char* p = out.reserve(2 * 20 + 2);  // two 20-digit ids, a space, a newline
            p = std::to_chars(p, p + 20, e.u).ptr;
            *p++ = ' ';
            p = std::to_chars(p, p + 20, e.v).ptr;
            *p++ = '\n';
            out.commit(p);
          }
          break;
        case EdgeFileKind::Bin32:
          for (std::size_t k = 0; k < batch.size(); ++k) {
            const RawEdge& e = batch[k];
            if (e.u > 0xFFFFFFFFu || e.v > 0xFFFFFFFFu) {
              throw Error("cannot write '" + path + "' as bin32: edge " +
                          std::to_string(written + k) + " has vertex id " +
                          std::to_string(std::max(e.u, e.v)) +
                          ", which needs more than 32 bits (use bin64)");
            }
            char* p = out.reserve(8);
            p = store_le(p, static_cast<std::uint32_t>(e.u));
            p = store_le(p, static_cast<std::uint32_t>(e.v));
            out.commit(p);
          }
          break;
        case EdgeFileKind::Bin64:
          for (const RawEdge& e : batch) {
            char* p = out.reserve(16);
            p = store_le(p, e.u);
            p = store_le(p, e.v);
            out.commit(p);
          }
          break;
      }
      written += batch.size();
    }
    out.close();
  }
  return written;
}

}  // namespace tricount
