// WebGraph BV decoder: properties, the successor-list decoder, and the edge source that
// decodes ranges of nodes (cut by .offsets) on several threads and hands out their arcs in
// node order.
#include "input/webgraph.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "input/webgraph_bits.hpp"
#include "src/md5.hpp"
#include "src/threads.hpp"

namespace tricount {

void BvStats::add(const BvStats& o) {
  bits_for_outdegrees += o.bits_for_outdegrees;
  bits_for_references += o.bits_for_references;
  bits_for_blocks += o.bits_for_blocks;
  bits_for_intervals += o.bits_for_intervals;
  bits_for_residuals += o.bits_for_residuals;
  copied_arcs += o.copied_arcs;
  intervalised_arcs += o.intervalised_arcs;
  residual_arcs += o.residual_arcs;
  for (std::size_t b = 0; b < successor_gaps.size(); ++b) {
    successor_gaps[b] += o.successor_gaps[b];
    residual_gaps[b] += o.residual_gaps[b];
  }
}

std::map<std::string, std::string> BvStats::as_properties() const {
  const auto bins = [](const std::array<std::uint64_t, 64>& h) {
    std::size_t last = h.size();
    while (last > 0 && h[last - 1] == 0) --last;
    std::string text;
    for (std::size_t b = 0; b < last; ++b) {
      if (b) text += ',';
      text += std::to_string(h[b]);
    }
    return text;
  };
  return {{"bitsforoutdegrees", std::to_string(bits_for_outdegrees)},
          {"bitsforreferences", std::to_string(bits_for_references)},
          {"bitsforblocks", std::to_string(bits_for_blocks)},
          {"bitsforintervals", std::to_string(bits_for_intervals)},
          {"bitsforresiduals", std::to_string(bits_for_residuals)},
          {"copiedarcs", std::to_string(copied_arcs)},
          {"intervalisedarcs", std::to_string(intervalised_arcs)},
          {"residualarcs", std::to_string(residual_arcs)},
          {"successorexpstats", bins(successor_gaps)},
          {"residualexpstats", bins(residual_gaps)}};
}

namespace {

namespace fs = std::filesystem;
using bv::BitReader;

// Writers pad the streams with zeros to a byte (Java) or to 64-bit words (webgraph-rs; its
// cnr-2000.offsets ends with 94 bits of zeros): more, or anything not zero, is an error.
constexpr std::uint64_t kMaxPaddingBits = 128;

bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n\f");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n\f") - b + 1);
}

// key=value lines of a Java properties file (comments # and !, separator = or :).
std::map<std::string, std::string> read_properties_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open the properties file of the BV graph (does it exist?)");
  std::map<std::string, std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == '!') continue;
    const auto sep = t.find_first_of("=:");
    if (sep == std::string::npos) continue;
    out[trim(t.substr(0, sep))] = trim(t.substr(sep + 1));
  }
  return out;
}

std::string graphclass_of(const std::map<std::string, std::string>& p) {
  auto it = p.find("graphclass");
  return it == p.end() ? "" : it->second;
}

bool is_bv_graphclass(const std::string& c) {
  return c == "it.unimi.dsi.webgraph.BVGraph" || c == "class it.unimi.dsi.webgraph.BVGraph" || c == "BVGraph";
}

std::uint64_t property_number(const std::map<std::string, std::string>& p, const std::string& file,
                              const std::string& key, std::optional<std::uint64_t> fallback) {
  auto it = p.find(key);
  if (it == p.end()) {
    if (fallback) return *fallback;
    throw Error(file + ": no '" + key + "' property (a BV graph's properties name nodes, arcs and its parameters)");
  }
  const std::string& v = it->second;
  std::uint64_t x = 0;
  if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
    throw Error(file + ": property " + key + "=" + v + " is not a non-negative integer");
  for (char c : v) x = x * 10 + static_cast<std::uint64_t>(c - '0');
  return x;
}

// One compression flag, COMPONENT_CODE as Java's BVGraph names them (e.g. RESIDUALS_ZETA,
// BLOCK_COUNT_GAMMA), set into `p`.
void apply_flag(BvProperties& p, const std::string& file, const std::string& flag) {
  // BLOCK_COUNT is the one component whose name has an underscore of its own.
  const auto us = flag.rfind("BLOCK_COUNT_", 0) == 0 ? std::string("BLOCK_COUNT").size() : flag.find('_');
  const std::string part = us == std::string::npos ? flag : flag.substr(0, us);
  const std::string code_name = us == std::string::npos ? "" : flag.substr(us + 1);
  BvCode code;
  if (code_name == "UNARY") code = BvCode::Unary;
  else if (code_name == "GAMMA") code = BvCode::Gamma;
  else if (code_name == "DELTA") code = BvCode::Delta;
  else if (code_name == "ZETA") code = BvCode::Zeta;
  else if (code_name == "NIBBLE") code = BvCode::Nibble;
  else
    throw Error(file + ": compression flag '" + flag + "' is not supported (codes: UNARY, GAMMA, DELTA, ZETA, NIBBLE): "
                "recompress the graph with one of them");
  if (part == "OUTDEGREES") p.outdegree_code = code;
  else if (part == "REFERENCES") p.reference_code = code;
  else if (part == "BLOCK_COUNT") p.block_count_code = code;
  else if (part == "BLOCKS") p.block_code = code;
  else if (part == "INTERVALS") p.interval_code = code;
  else if (part == "RESIDUALS") p.residual_code = code;
  else if (part == "OFFSETS") p.offset_code = code;
  else
    throw Error(file + ": compression flag '" + flag +
                "' names no component (OUTDEGREES, REFERENCES, BLOCK_COUNT, BLOCKS, INTERVALS, RESIDUALS, OFFSETS)");
}

// A read-only mapping of a whole file (empty files map to nothing).
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error(path + ": cannot open (" + std::string(std::strerror(errno)) + ")");
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw Error(path + ": cannot stat");
    size_ = static_cast<std::uint64_t>(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd_, 0);
      if (p == MAP_FAILED) {
        ::close(fd_);
        throw Error(path + ": cannot map (" + std::string(std::strerror(errno)) + ")");
      }
      ::madvise(p, size_, MADV_SEQUENTIAL);
      data_ = static_cast<const std::uint8_t*>(p);
    }
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<std::uint8_t*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const std::uint8_t* data() const { return data_; }
  std::uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  const std::uint8_t* data_ = nullptr;
  std::uint64_t size_ = 0;
};

// Decodes successor lists in node order from one position of the stream, keeping the last
// windowsize lists for references. A list whose own reference fell before the first node
// decoded is "missing" (only warm-up nodes may be, and only when an offset lets the decoder
// skip them).
class ListDecoder {
 public:
  ListDecoder(const BvProperties& p, const MappedFile& graph)
      : p_(p), in_(graph.data(), graph.size()), ring_(p.window_size + 1),
        present_(p.window_size + 1, false) {}

  void start(std::uint64_t first_node, std::uint64_t bit) {
    in_.seek(bit);
    first_ = first_node;
    std::fill(present_.begin(), present_.end(), false);
  }
  std::uint64_t position() const { return in_.position(); }
  void seek(std::uint64_t bit) { in_.seek(bit); }
  void mark_missing(std::uint64_t x) { present_[slot(x)] = false; }

  // Decodes the list of node x (the next node in the stream). Returns false, with the stream
  // position undefined, when x refers to a missing list and `may_skip` (the caller seeks).
  bool decode(std::uint64_t x, bool may_skip, BvStats& st) {
    const std::size_t s = slot(x);
    std::vector<std::uint64_t>& out = ring_[s];
    out.clear();
    present_[s] = false;
    std::uint64_t at = in_.position();
    const std::uint64_t degree = in_.read(p_.outdegree_code, p_.zeta_k);
    st.bits_for_outdegrees += in_.position() - at;
    if (degree > p_.nodes) throw Error("outdegree " + std::to_string(degree) + " exceeds the number of nodes");
    if (degree == 0) {
      present_[s] = true;
      return true;
    }
    // 1. Reference and copy blocks.
    copied_.clear();
    if (p_.window_size > 0) {
      at = in_.position();
      const std::uint64_t ref = in_.read(p_.reference_code, p_.zeta_k);
      st.bits_for_references += in_.position() - at;
      if (ref > p_.window_size)
        throw Error("reference " + std::to_string(ref) + " is beyond the window (windowsize " +
                    std::to_string(p_.window_size) + ")");
      if (ref > x) throw Error("reference " + std::to_string(ref) + " points before node 0");
      if (ref > 0) {
        const std::uint64_t r = x - ref;
        if (r < first_ || !present_[slot(r)]) {
          if (may_skip) return false;
          throw Error("reference to node " + std::to_string(r) + ", whose list is not available: the reference chain is "
                      "longer than maxrefcount=" + std::to_string(p_.max_ref_count) + " allows (corrupt stream or properties)");
        }
        at = in_.position();
        copy_blocks(ring_[slot(r)]);
        st.bits_for_blocks += in_.position() - at;
        if (copied_.size() > degree)
          throw Error("copies " + std::to_string(copied_.size()) + " successors from node " + std::to_string(r) +
                      " but its outdegree is " + std::to_string(degree));
      }
    }
    std::uint64_t extra = degree - copied_.size();
    st.copied_arcs += copied_.size();
    // 2. Intervals: the first left end relative to x (zig-zag), the others after the previous
    // interval's end; lengths offset by minintervallength.
    intervals_.clear();
    if (extra > 0 && p_.min_interval_length > 0) {
      at = in_.position();
      const std::uint64_t count = in_.read(p_.interval_code, p_.zeta_k);
      if (count > extra) throw Error(std::to_string(count) + " intervals but only " + std::to_string(extra) + " successors left");
      std::uint64_t next_min = 0;
      for (std::uint64_t i = 0; i < count; ++i) {
        std::uint64_t left;
        if (i == 0) left = offset_from(x, bv::nat_to_int(in_.read(p_.interval_code, p_.zeta_k)), "interval");
        else left = next_min + in_.read(p_.interval_code, p_.zeta_k);
        const std::uint64_t len = in_.read(p_.interval_code, p_.zeta_k) + p_.min_interval_length;
        if (len > extra || left >= p_.nodes || len > p_.nodes - left)
          throw Error("interval [" + std::to_string(left) + ", +" + std::to_string(len) + ") is out of range");
        for (std::uint64_t k = 0; k < len; ++k) intervals_.push_back(left + k);
        extra -= len;
        next_min = left + len + 1;
      }
      st.bits_for_intervals += in_.position() - at;
      st.intervalised_arcs += intervals_.size();
    }
    // 3. Residuals: the first relative to x (zig-zag), the others as gaps minus one.
    residuals_.clear();
    if (extra > 0) {
      at = in_.position();
      std::uint64_t prev = offset_from(x, bv::nat_to_int(in_.read(p_.residual_code, p_.zeta_k)), "residual");
      residuals_.push_back(prev);
      for (std::uint64_t i = 1; i < extra; ++i) {
        const std::uint64_t gap = in_.read(p_.residual_code, p_.zeta_k);
        if (gap >= p_.nodes - prev) throw Error("successor " + std::to_string(prev) + " + " + std::to_string(gap + 1) +
                                                " is out of range (nodes=" + std::to_string(p_.nodes) + ")");
        prev += gap + 1;
        residuals_.push_back(prev);
      }
      st.bits_for_residuals += in_.position() - at;
      st.residual_arcs += extra;
      add_gaps(x, residuals_, st.residual_gaps);
    }
    // 4. The list is the merge of the three increasing sequences.
    merge_into(out);
    add_gaps(x, out, st.successor_gaps);
    present_[s] = true;
    return true;
  }
  const std::vector<std::uint64_t>& list(std::uint64_t x) const { return ring_[slot(x)]; }

 private:
  std::size_t slot(std::uint64_t x) const { return static_cast<std::size_t>(x % ring_.size()); }

  // The histogram BVGraph records of an increasing list of node x: each gap by its most
  // significant bit, the first element's zig-zag distance from x if it is not zero.
  static void add_gaps(std::uint64_t x, const std::vector<std::uint64_t>& list, std::array<std::uint64_t, 64>& bins) {
    if (list.empty()) return;
    for (std::size_t i = 1; i < list.size(); ++i) ++bins[63 - std::countl_zero(list[i] - list[i - 1])];
    const std::uint64_t first = list[0] >= x ? 2 * (list[0] - x) : 2 * (x - list[0]) - 1;
    if (first != 0) ++bins[63 - std::countl_zero(first)];
  }

  std::uint64_t offset_from(std::uint64_t x, std::int64_t delta, const char* what) const {
    const std::int64_t v = static_cast<std::int64_t>(x) + delta;
    if (v < 0 || static_cast<std::uint64_t>(v) >= p_.nodes)
      throw Error(std::string("first ") + what + " " + std::to_string(v) + " is out of range (nodes=" +
                  std::to_string(p_.nodes) + ")");
    return static_cast<std::uint64_t>(v);
  }

  // The number of blocks (in the block count's code), then their lengths (in the blocks'
  // code). Blocks alternate copy and skip, starting with copy; all but the first are stored
  // minus one; after an even number of blocks the rest of the referenced list is copied.
  void copy_blocks(const std::vector<std::uint64_t>& ref) {
    const std::uint64_t blocks = in_.read(p_.block_count_code, p_.zeta_k);
    if (blocks > ref.size() + 1) throw Error(std::to_string(blocks) + " copy blocks for a list of " + std::to_string(ref.size()));
    std::uint64_t i = 0;
    for (std::uint64_t b = 0; b < blocks; ++b) {
      const std::uint64_t len = in_.read(p_.block_code, p_.zeta_k) + (b == 0 ? 0 : 1);
      if (len > ref.size() - i)
        throw Error("copy block " + std::to_string(b) + " runs past the referenced list of " + std::to_string(ref.size()));
      if (b % 2 == 0) copied_.insert(copied_.end(), ref.begin() + static_cast<std::ptrdiff_t>(i),
                                     ref.begin() + static_cast<std::ptrdiff_t>(i + len));
      i += len;
    }
    if (blocks % 2 == 0) copied_.insert(copied_.end(), ref.begin() + static_cast<std::ptrdiff_t>(i), ref.end());
  }

  void merge_into(std::vector<std::uint64_t>& out) {
    out.resize(copied_.size() + intervals_.size() + residuals_.size());
    std::size_t a = 0, b = 0, c = 0, o = 0;
    constexpr std::uint64_t kEnd = ~std::uint64_t{0};
    while (o < out.size()) {
      const std::uint64_t va = a < copied_.size() ? copied_[a] : kEnd;
      const std::uint64_t vb = b < intervals_.size() ? intervals_[b] : kEnd;
      const std::uint64_t vc = c < residuals_.size() ? residuals_[c] : kEnd;
      std::uint64_t v;
      if (va <= vb && va <= vc) v = va, ++a;
      else if (vb <= vc) v = vb, ++b;
      else v = vc, ++c;
      if (o > 0 && v <= out[o - 1]) throw Error("successor " + std::to_string(v) + " appears twice (copied, interval and residual overlap)");
      out[o++] = v;
    }
  }

  const BvProperties& p_;
  BitReader in_;
  std::vector<std::vector<std::uint64_t>> ring_;
  std::vector<bool> present_;
  std::uint64_t first_ = 0;
  std::vector<std::uint64_t> copied_, intervals_, residuals_;
};

// A range of nodes decoded by one task: nodes [first, end) are emitted; decoding starts at
// warm_first (earlier, for the window) at graph bit graph_bit; the offsets of warm_first..
// are read from .offsets bit offsets_bit on (the gap there leads to warm_first's offset).
struct NodeRange {
  std::uint64_t warm_first = 0, first = 0, end = 0;
  std::uint64_t graph_bit = 0;    // offset of warm_first
  std::uint64_t offsets_bit = 0;  // .offsets position of the gap after warm_first's offset
};

class BvSource final : public BvEdgeSource {
 public:
  BvSource(const std::string& path, const BvDecodeOptions& options)
      : props_(read_bv_properties(path)), graph_(props_.basename + ".graph") {
    // 1. Plan: ranges of about chunk_arcs arcs by .offsets, or one sequential range.
    threads_ = options.threads == 0 ? usable_cores() : options.threads;
    chunk_arcs_ = options.chunk_arcs ? options.chunk_arcs : (std::uint64_t{1} << 18);
    const std::string offsets_path = props_.basename + ".offsets";
    const bool have_offsets = fs::exists(offsets_path);
    // A range's warm-up covers the nodes its first lists may reach through reference chains.
    warm_nodes_ = std::uint64_t{props_.window_size} * std::max<std::uint32_t>(props_.max_ref_count, 1);
    if (have_offsets && options.use_offsets && warm_nodes_ <= (std::uint64_t{1} << 16)) {
      offsets_ = std::make_unique<MappedFile>(offsets_path);
      plan_ranges();
    } else {
      ranges_.push_back(NodeRange{0, 0, props_.nodes, 0, 0});
      threads_ = 1;
    }
    parallel_ = offsets_ != nullptr;
    share_ = options.share;
    shares_ = std::max(1u, options.shares);
    if (parallel_ && shares_ > 1) {  // this share's run of the ranges, which are about equal in bits
      const std::size_t n = ranges_.size();
      ranges_ = std::vector<NodeRange>(ranges_.begin() + static_cast<std::ptrdiff_t>(n * share_ / shares_),
                                       ranges_.begin() + static_cast<std::ptrdiff_t>(n * (share_ + 1) / shares_));
    }
    if (options.progress) {
      const std::string name = fs::path(props_.basename).filename().string();
      if (parallel_)
        std::fprintf(stderr, "[partition] webgraph   %s: %llu nodes, %llu arcs; %zu ranges by %s.offsets on %u threads\n",
                     name.c_str(), ull(props_.nodes), ull(props_.arcs), ranges_.size(), name.c_str(), threads_);
      else
        std::fprintf(stderr, "[partition] webgraph   %s: %llu nodes, %llu arcs; %s: decoding sequentially on one thread\n",
                     name.c_str(), ull(props_.nodes), ull(props_.arcs),
                     !have_offsets ? ("no " + name + ".offsets").c_str()
                                   : (options.use_offsets ? "reference chains too long for ranges" : "ranges off"));
    }
    // 2. Start the decoders, and beside them the MD5 of the files (one more thread).
    in_flight_ = 2 * std::uint64_t{threads_};
    for (unsigned t = 0; t < threads_; ++t) workers_.emplace_back([this] { work(); });
    if (share_ == 0) digester_ = std::thread([this] { digest(); });
  }

  ~BvSource() override {
    {
      std::lock_guard lock(m_);
      stop_ = true;
    }
    stop_digest_ = true;
    cv_.notify_all();
    for (auto& w : workers_) w.join();
    if (digester_.joinable()) digester_.join();
  }

  std::string input_md5() override {
    if (share_ != 0) return "";
    if (digester_.joinable()) digester_.join();
    if (digest_error_) std::rethrow_exception(digest_error_);
    return md5_lines_;
  }

  bool next_batch(std::vector<RawEdge>& out, std::size_t max_edges) override {
    out.clear();
    if (max_edges == 0) max_edges = 1;
    while (true) {
      // 1. Hand out what is left of the current chunk.
      if (cursor_ < current_.size()) {
        const std::size_t n = std::min<std::size_t>(max_edges, current_.size() - cursor_);
        out.assign(current_.begin() + static_cast<std::ptrdiff_t>(cursor_),
                   current_.begin() + static_cast<std::ptrdiff_t>(cursor_ + n));
        cursor_ += n;
        arcs_out_ += n;
        return true;
      }
      // 2. Take the next chunk in order, or finish.
      std::unique_lock lock(m_);
      cv_.wait(lock, [&] {
        return error_ || ready_.count(next_chunk_) || range_errors_.count(next_chunk_) || (all_done() && ready_.empty());
      });
      if (error_) std::rethrow_exception(error_);
      auto it = ready_.find(next_chunk_);
      if (it == ready_.end() && range_errors_.count(next_chunk_)) std::rethrow_exception(range_errors_[next_chunk_]);
      if (it == ready_.end() && !range_errors_.empty()) std::rethrow_exception(range_errors_.begin()->second);
      if (it == ready_.end()) {
        lock.unlock();
        finish();
        return false;
      }
      // The chunk handed out before goes back to the decoders: reused buffers keep their
      // pages (fresh ones cost a page fault per 4 KiB, a third of the decode time).
      current_.clear();
      if (current_.capacity() > 0) spare_.push_back(std::move(current_));
      current_ = std::move(it->second);
      ready_.erase(it);
      // Decoded sequentially in shares: every shares-th chunk is this share's.
      if (!parallel_ && next_chunk_ % shares_ != share_) current_.clear();
      ++next_chunk_;
      cursor_ = 0;
      cv_.notify_all();
    }
  }

  std::string description() const override { return props_.basename + ".graph"; }
  const BvProperties& properties() const override { return props_; }
  BvStats stats() const override {
    std::lock_guard lock(m_);
    return stats_;
  }
  bool parallel() const override { return parallel_; }

  // The arcs this share decoded and their statistics (decoded sequentially, every share
  // decodes them all: share 0 counts them).
  std::vector<std::uint64_t> share_totals() const override {
    std::lock_guard lock(m_);
    if (!parallel_ && share_ != 0) return totals_of(0, BvStats{});
    return totals_of(arcs_decoded_, stats_);
  }
  void check_share_totals(const std::vector<std::uint64_t>& sums) const override {
    BvStats st;
    const std::vector<std::uint64_t*> fields = fields_of(st);
    if (sums.size() != 1 + fields.size()) throw Error(graph_file() + ": the shares' totals have the wrong length");
    for (std::size_t i = 0; i < fields.size(); ++i) *fields[i] = sums[1 + i];
    check_totals(sums[0], st);
  }

 private:
  // Every count of a BvStats, in one order: what the shares' totals hold after the arc count.
  static std::vector<std::uint64_t*> fields_of(BvStats& st) {
    std::vector<std::uint64_t*> out = {&st.bits_for_outdegrees, &st.bits_for_references, &st.bits_for_blocks,
                                       &st.bits_for_intervals,  &st.bits_for_residuals,  &st.copied_arcs,
                                       &st.intervalised_arcs,   &st.residual_arcs};
    for (auto& b : st.successor_gaps) out.push_back(&b);
    for (auto& b : st.residual_gaps) out.push_back(&b);
    return out;
  }
  static std::vector<std::uint64_t> totals_of(std::uint64_t arcs, BvStats st) {
    std::vector<std::uint64_t> out = {arcs};
    for (const std::uint64_t* f : fields_of(st)) out.push_back(*f);
    return out;
  }

  static unsigned long long ull(std::uint64_t x) { return static_cast<unsigned long long>(x); }
  std::string graph_file() const { return props_.basename + ".graph"; }
  std::string offsets_file() const { return props_.basename + ".offsets"; }
  bool all_done() const { return ranges_done_ == ranges_.size(); }

  BitReader offsets_reader(std::uint64_t bit) const { return BitReader(offsets_->data(), offsets_->size(), bit); }

  // One pass over .offsets: cut the nodes into ranges of about chunk_arcs arcs (by bits).
  void plan_ranges() {
    BitReader in = offsets_reader(0);
    const double bits_per_arc = props_.arcs ? double(graph_.size() * 8) / double(props_.arcs) : 1.0;
    const std::uint64_t target_bits = std::max<std::uint64_t>(64, static_cast<std::uint64_t>(bits_per_arc * double(chunk_arcs_)));
    std::uint64_t offset = 0, open_bit = 0;
    NodeRange open;
    // The offsets of the last warm_nodes_ + 1 nodes: (graph bit, .offsets bit after its gap).
    std::deque<std::pair<std::uint64_t, std::uint64_t>> recent;
    auto start_range = [&](std::uint64_t x) {
      NodeRange r;
      r.first = x;
      r.warm_first = x - std::min<std::uint64_t>(x, warm_nodes_);
      const auto& e = recent[recent.size() - 1 - (x - r.warm_first)];
      r.graph_bit = e.first;
      r.offsets_bit = e.second;
      open_bit = offset;
      return r;
    };
    for (std::uint64_t x = 0; x <= props_.nodes; ++x) {
      std::uint64_t gap = 0;
      try {
        gap = in.read(props_.offset_code, props_.zeta_k);
      } catch (const Error&) {
        throw Error(offsets_file() + ": the file ends after " + std::to_string(x) + " of " +
                    std::to_string(props_.nodes + 1) + " offsets (truncated, or the offsets of another graph)");
      }
      if (x == 0 && gap != 0) throw Error(offsets_file() + ": the offset of node 0 is " + std::to_string(gap) + ", not 0");
      if (gap > graph_.size() * 8 - offset)
        throw Error(offsets_file() + ": the offset of node " + std::to_string(x) + " (bit " + std::to_string(offset + gap) +
                    ") is past the end of " + graph_file());
      offset += gap;
      recent.emplace_back(offset, in.position());
      if (recent.size() > warm_nodes_ + 1) recent.pop_front();
      if (x == props_.nodes) break;
      if (x == 0) {
        open = start_range(0);
      } else if (offset - open_bit >= target_bits) {
        open.end = x;
        ranges_.push_back(open);
        open = start_range(x);
      }
    }
    open.end = props_.nodes;
    ranges_.push_back(open);
    if (in.size_bits() - in.position() >= kMaxPaddingBits || nonzero_after(*offsets_, in.position()))
      throw Error(offsets_file() + ": " + std::to_string(in.size_bits() - in.position()) + " bits left over after the " +
                  std::to_string(props_.nodes + 1) + " offsets, where writers leave under " + std::to_string(kMaxPaddingBits) +
                  " bits of zero padding (the offsets of another graph, or the file was extended?)");
  }

  static bool nonzero_after(const MappedFile& f, std::uint64_t bit) {
    BitReader r(f.data(), f.size(), bit);
    while (r.size_bits() - r.position() > 0) {
      const unsigned n = static_cast<unsigned>(std::min<std::uint64_t>(63, r.size_bits() - r.position()));
      if (r.read_bits(n) != 0) return true;
    }
    return false;
  }

  void work() {
    try {
      ListDecoder decoder(props_, graph_);
      std::vector<RawEdge> arcs;
      arcs.reserve(chunk_arcs_ + chunk_arcs_ / 4);  // a range runs a little over its share
      BvStats st;
      while (true) {
        std::size_t index;
        {
          std::unique_lock lock(m_);
          // A task may run ahead of the consumer by in_flight_ chunks at most.
          cv_.wait(lock, [&] { return stop_ || error_ || next_range_ >= ranges_.size() || (parallel_ ? next_range_ < next_chunk_ + in_flight_ : true); });
          if (stop_ || error_ || next_range_ >= ranges_.size()) return;
          index = next_range_++;
        }
        st = BvStats{};
        std::uint64_t decoded = 0;
        std::exception_ptr failed;
        try {
          decoded = decode_range(decoder, index, arcs, st);
        } catch (const Error&) {
          if (!parallel_) throw;
          failed = std::current_exception();
        }
        {
          std::lock_guard lock(m_);
          // A range's error is reported when the consumer reaches it: the first bad range is
          // named, whichever thread found its error first.
          if (failed) {
            range_errors_[index] = failed;
          } else {
            stats_.add(st);
            arcs_decoded_ += decoded;
          }
          ++ranges_done_;
        }
        cv_.notify_all();
      }
    } catch (...) {
      std::lock_guard lock(m_);
      if (!error_) error_ = std::current_exception();
      cv_.notify_all();
    }
  }

  // Publishes one chunk of arcs: in parallel mode a range is one chunk (number `index`);
  // sequentially, chunks are numbered as they are cut and wait for the consumer.
  void publish(std::vector<RawEdge>& arcs, std::size_t index) {
    std::unique_lock lock(m_);
    if (!parallel_) {
      cv_.wait(lock, [&] { return stop_ || error_ || seq_published_ < next_chunk_ + in_flight_; });
      if (stop_ || error_) throw Stopped{};
      index = seq_published_++;
    }
    ready_[index] = std::move(arcs);
    arcs.clear();
    if (!spare_.empty()) {
      arcs = std::move(spare_.back());
      spare_.pop_back();
    }
    cv_.notify_all();
  }
  struct Stopped {};

  // Returns the arcs of the range's lists.
  std::uint64_t decode_range(ListDecoder& d, std::size_t index, std::vector<RawEdge>& arcs, BvStats& st) {
    const NodeRange& r = ranges_[index];
    std::uint64_t decoded = 0;
    arcs.clear();
    std::optional<BitReader> offsets;
    if (offsets_) offsets = offsets_reader(r.offsets_bit);
    std::uint64_t expected = r.graph_bit;  // where .offsets says node x starts
    d.start(r.warm_first, r.graph_bit);
    BvStats warm_stats;
    std::uint64_t x = r.warm_first;
    bool skipped = false;
    try {
      for (; x < r.end; ++x) {
        // 1. The stream must be where .offsets says node x starts (a skipped list is jumped over).
        if (offsets && x > r.warm_first) {
          if (skipped) d.seek(expected);
          else if (d.position() != expected) throw offsets_mismatch(x, expected, d.position());
        }
        // 2. Decode; warm-up lists only fill the window, and one whose reference reaches
        // before the warm-up is skipped (only a list past it would need it: an error then).
        const bool warm = x < r.first;
        skipped = !d.decode(x, warm && offsets.has_value(), warm ? warm_stats : st);
        if (!warm) {
          for (std::uint64_t v : d.list(x)) arcs.push_back(RawEdge{x, v});
          decoded += d.list(x).size();
          if (!parallel_ && arcs.size() >= chunk_arcs_) publish(arcs, 0);
        }
        if (offsets) expected += read_offset_gap(*offsets, x + 1);
      }
    } catch (const Stopped&) {
      return decoded;
    } catch (const Error& e) {
      const std::string what = e.what();
      if (what.rfind(offsets_file(), 0) == 0) throw;
      throw Error(graph_file() + ": node " + std::to_string(x) + ": " + what);
    }
    // 3. The range ends where the next begins; the last one where the stream ends.
    if (offsets && d.position() != expected) throw offsets_mismatch(r.end, expected, d.position());
    if (r.end == props_.nodes) check_stream_end(d.position());
    try {
      publish(arcs, index);
    } catch (const Stopped&) {
    }
    return decoded;
  }

  Error offsets_mismatch(std::uint64_t x, std::uint64_t expected, std::uint64_t actual) const {
    return Error(offsets_file() + ": node " + std::to_string(x) + " starts at bit " + std::to_string(expected) +
                 " by the offsets, but the list of node " + std::to_string(x - 1) + " in " + graph_file() +
                 " ends at bit " + std::to_string(actual) + " (the offsets do not belong to this graph, or the stream is corrupt)");
  }

  std::uint64_t read_offset_gap(BitReader& in, std::uint64_t node) const {
    try {
      return in.read(props_.offset_code, props_.zeta_k);
    } catch (const Error&) {
      throw Error(offsets_file() + ": offset of node " + std::to_string(node) + ": the file ends (truncated)");
    }
  }

  // After the last list only the writers' padding may follow (zeros, under 16 bytes): the
  // stream must end where the file does, give or take that.
  void check_stream_end(std::uint64_t end_bit) const {
    const std::uint64_t left = graph_.size() * 8 - end_bit;
    if (left >= kMaxPaddingBits || nonzero_after(graph_, end_bit))
      throw Error(graph_file() + ": " + std::to_string(left) + " bits left over after the list of the last node " +
                  std::to_string(props_.nodes ? props_.nodes - 1 : 0) + " (nodes=" + std::to_string(props_.nodes) +
                  " in the properties), where writers leave under " + std::to_string(kMaxPaddingBits) +
                  " bits of zero padding: the stream is corrupt, the file was extended, or the properties belong to "
                  "another graph");
  }

  // Once every arc is out: the arc count and statistics must match the properties (of a share,
  // the ranks check their sums: check_share_totals).
  void finish() {
    if (finished_) return;
    finished_ = true;
    if (shares_ == 1) check_totals(arcs_out_, stats());
  }

  void check_totals(std::uint64_t arcs, const BvStats& st) const {
    if (arcs != props_.arcs)
      throw Error(graph_file() + ": decoded " + std::to_string(arcs) + " arcs but " + props_.basename +
                  ".properties says arcs=" + std::to_string(props_.arcs) + " (corrupt stream or properties)");
    // The writer's statistics pin down how many bits each component took and how the gaps
    // are spread: most damage to the stream that still decodes changes one of them.
    const std::map<std::string, std::string> decoded = st.as_properties();
    for (const auto& [key, recorded] : props_.recorded_stats) {
      const std::string& mine = decoded.at(key);
      if (mine != recorded)
        throw Error(graph_file() + ": the lists decode to " + difference(key, mine, recorded) + props_.basename +
                    ".properties (the stream is corrupt, or the properties belong to another graph)");
    }
  }

  // "key=A but ... records key=B", or for a histogram the first bin that differs.
  static std::string difference(const std::string& key, const std::string& decoded, const std::string& recorded) {
    if (key.find("expstats") == std::string::npos)
      return key + "=" + decoded + " but " + key + "=" + recorded + " in ";
    const auto bins = [](const std::string& text) {
      std::vector<std::string> out;
      for (std::size_t b = 0; b <= text.size();) {
        const std::size_t e = std::min(text.find(',', b), text.size());
        out.push_back(text.substr(b, e - b));
        b = e + 1;
      }
      return out;
    };
    const std::vector<std::string> a = bins(decoded), b = bins(recorded);
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    const std::string range = "2^" + std::to_string(i) + " to 2^" + std::to_string(i + 1) + " - 1";
    return key + " bin " + std::to_string(i) + " (gaps of " + range + ") = " +
           (i < a.size() ? a[i] : "none") + " but " + (i < b.size() ? b[i] : "none") + " in ";
  }

  // The MD5 of .graph (from the mapping), .properties and .offsets, as md5sum lines.
  void digest() {
    try {
      const auto line = [](const std::string& hex, const std::string& path) {
        return hex + "  " + fs::path(path).filename().string() + "\n";
      };
      Md5 md5;
      constexpr std::uint64_t kPiece = std::uint64_t{1} << 22;
      for (std::uint64_t at = 0; at < graph_.size() && !stop_digest_; at += kPiece)
        md5.add(graph_.data() + at, static_cast<std::size_t>(std::min(kPiece, graph_.size() - at)));
      if (stop_digest_) return;
      std::string lines = line(md5.hex(), graph_file());
      lines += line(md5_of_file(props_.basename + ".properties"), props_.basename + ".properties");
      if (fs::exists(offsets_file())) lines += line(md5_of_file(offsets_file()), offsets_file());
      md5_lines_ = lines;
    } catch (...) {
      digest_error_ = std::current_exception();
    }
  }

  BvProperties props_;
  MappedFile graph_;
  std::unique_ptr<MappedFile> offsets_;
  std::vector<NodeRange> ranges_;
  unsigned threads_ = 1;
  std::uint64_t chunk_arcs_ = 0, warm_nodes_ = 0;
  bool parallel_ = false;
  std::uint64_t in_flight_ = 2;

  mutable std::mutex m_;
  std::condition_variable cv_;
  std::map<std::uint64_t, std::vector<RawEdge>> ready_;
  std::uint64_t next_range_ = 0, ranges_done_ = 0, next_chunk_ = 0, seq_published_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::map<std::uint64_t, std::exception_ptr> range_errors_;
  std::vector<std::vector<RawEdge>> spare_;  // emptied chunks, for the decoders to refill
  BvStats stats_;
  std::vector<std::thread> workers_;

  std::thread digester_;
  std::atomic<bool> stop_digest_{false};
  std::string md5_lines_;
  std::exception_ptr digest_error_;

  std::vector<RawEdge> current_;
  std::size_t cursor_ = 0;
  std::uint64_t arcs_out_ = 0, arcs_decoded_ = 0;
  unsigned share_ = 0, shares_ = 1;
  bool finished_ = false;
};

}  // namespace

std::string webgraph_basename(const std::string& path) {
  for (const char* ext : {".graph", ".properties", ".offsets"})
    if (has_suffix(path, ext)) {
      const std::string base = path.substr(0, path.size() - std::string(ext).size());
      if (std::string(ext) == ".graph") return base;
      std::error_code ec;
      return fs::exists(base + ".graph", ec) ? base : "";
    }
  // A basename: no such file, but NAME.properties. Whatever graph class it names (EFGraph,
  // none, junk), it is read as WebGraph, whose reader then says what is wrong with it.
  std::error_code ec;
  if (fs::is_regular_file(path, ec) || !fs::exists(path + ".properties", ec)) return "";
  return path;
}

bool is_webgraph_input(const std::string& path) { return !webgraph_basename(path).empty(); }

BvProperties read_bv_properties(const std::string& path) {
  BvProperties p;
  p.basename = webgraph_basename(path);
  if (p.basename.empty()) p.basename = has_suffix(path, ".graph") ? path.substr(0, path.size() - 6) : path;
  const std::string file = p.basename + ".properties";
  const auto props = read_properties_file(file);
  // 1. What graph this is.
  const std::string cls = graphclass_of(props);
  if (!is_bv_graphclass(cls))
    throw Error(file + ": graphclass '" + cls + "' is not supported (only it.unimi.dsi.webgraph.BVGraph)");
  const std::uint64_t version = property_number(props, file, "version", 0);
  auto endian = props.find("endianness");
  const bool little = endian != props.end() && (endian->second == "little" || endian->second == "le");
  if (little || version == 1)
    throw Error(file + ": little-endian BV graphs (version 1, written by webgraph-rs) are not supported; convert "
                "it to big-endian (version 0) with webgraph-rs first");
  if (version != 0) throw Error(file + ": BV graph version " + std::to_string(version) + " is not supported (only 0)");
  if (endian != props.end() && endian->second != "big" && endian->second != "be")
    throw Error(file + ": endianness '" + endian->second + "' is not supported (only big)");
  // 2. Sizes and parameters.
  p.nodes = property_number(props, file, "nodes", std::nullopt);
  p.arcs = property_number(props, file, "arcs", std::nullopt);
  const auto property_u32 = [&](const char* key, std::uint32_t fallback) {
    const std::uint64_t v = property_number(props, file, key, fallback);
    if (v > UINT32_MAX)
      throw Error(file + ": property " + key + "=" + std::to_string(v) + " is out of range (at most 4294967295)");
    return static_cast<std::uint32_t>(v);
  };
  p.window_size = property_u32("windowsize", 7);
  p.max_ref_count = property_u32("maxrefcount", 3);
  p.min_interval_length = property_u32("minintervallength", 4);
  p.zeta_k = property_u32("zetak", 3);
  if (p.zeta_k == 0 || p.zeta_k > 32) throw Error(file + ": zetak=" + std::to_string(p.zeta_k) + " is out of range (1..32)");
  if (p.window_size > (1u << 20)) throw Error(file + ": windowsize=" + std::to_string(p.window_size) + " is too large");
  // 3. The statistics the writer recorded (checked after decoding).
  for (const auto& [key, value] : BvStats{}.as_properties()) {
    (void)value;
    const auto it = props.find(key);
    if (it != props.end()) p.recorded_stats[key] = it->second;
  }
  // 4. Codes.
  auto flags = props.find("compressionflags");
  if (flags != props.end()) {
    std::string f = flags->second;
    std::size_t b = 0;
    while (b <= f.size()) {
      const std::size_t e = std::min(f.find('|', b), f.size());
      const std::string flag = trim(f.substr(b, e - b));
      if (!flag.empty()) apply_flag(p, file, flag);
      b = e + 1;
    }
  }
  if (!fs::exists(p.basename + ".graph"))
    throw Error(p.basename + ".graph: missing (the bit stream of the BV graph described by " + file + ")");
  return p;
}

std::uint64_t webgraph_arc_count(const std::string& path) {
  try {
    return read_bv_properties(path).arcs;
  } catch (const Error&) {
    return 0;
  }
}

std::unique_ptr<BvEdgeSource> open_webgraph(const std::string& path, const BvDecodeOptions& options) {
  return std::make_unique<BvSource>(path, options);
}

std::unique_ptr<EdgeSource> open_webgraph(const std::string& path, const EdgeFileOptions& options) {
  BvDecodeOptions o;
  o.threads = options.threads;
  if (options.block_bytes) o.chunk_arcs = std::max<std::uint64_t>(1024, options.block_bytes / sizeof(RawEdge));
  o.progress = options.progress;
  o.share = options.share;
  o.shares = options.shares;
  return open_webgraph(path, o);
}

}  // namespace tricount
