// WebGraph BV graphs (the format of the LAW web graphs): BASENAME.properties (parameters),
// BASENAME.graph (the big-endian bit stream of successor lists), BASENAME.offsets (gamma-coded
// bit gaps, one per node and one for the end). Decoded from the format's description (the
// javadoc of it.unimi.dsi.webgraph.BVGraph; Boldi and Vigna, "The WebGraph Framework I", WWW
// 2004) into directed arcs, in node order, through EdgeSource.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "input/edge_source.hpp"

namespace tricount {

// Instantaneous codes, read most significant bit first.
enum class BvCode : std::uint8_t { Unary, Gamma, Delta, Zeta, Nibble };

struct BvProperties {
  std::string basename;  // DIR/NAME, without extension
  std::uint64_t nodes = 0;
  std::uint64_t arcs = 0;
  std::uint32_t window_size = 7;
  std::uint32_t max_ref_count = 3;
  std::uint32_t min_interval_length = 4;
  std::uint32_t zeta_k = 3;
  BvCode outdegree_code = BvCode::Gamma;
  BvCode reference_code = BvCode::Unary;
  BvCode block_count_code = BvCode::Gamma;  // a copy list's number of blocks (BLOCK_COUNT_*)
  BvCode block_code = BvCode::Gamma;        // the blocks' lengths (BLOCKS_*)
  BvCode interval_code = BvCode::Gamma;
  BvCode residual_code = BvCode::Zeta;
  BvCode offset_code = BvCode::Gamma;
  // The statistics the writer recorded (BvStats::as_properties keys), those present: the
  // decoded lists must reproduce each of them.
  std::map<std::string, std::string> recorded_stats;
};

// Per-component sizes and gap histograms, as BVGraph records them in .properties (bitsfor*,
// *arcs, successorexpstats, residualexpstats). The histograms count each gap by its most
// significant bit: the gaps between a list's successors (residuals), and the first one's
// zig-zag distance from the node.
struct BvStats {
  std::uint64_t bits_for_outdegrees = 0, bits_for_references = 0, bits_for_blocks = 0;
  std::uint64_t bits_for_intervals = 0, bits_for_residuals = 0;
  std::uint64_t copied_arcs = 0, intervalised_arcs = 0, residual_arcs = 0;
  std::array<std::uint64_t, 64> successor_gaps{}, residual_gaps{};
  void add(const BvStats& o);
  // The statistics as .properties writes them, by key (the histograms "n0,n1,...", up to the
  // last bin that is not zero).
  std::map<std::string, std::string> as_properties() const;
};

// The basename of a BV graph named by `path` (DIR/NAME.graph, DIR/NAME.properties,
// DIR/NAME.offsets or DIR/NAME), or "" when `path` names none: no .graph extension and no
// NAME.properties whose graphclass is BVGraph.
std::string webgraph_basename(const std::string& path);
bool is_webgraph_input(const std::string& path);

// Reads and checks BASENAME.properties. Throws Error naming the file: missing, no nodes or
// arcs, an unknown graphclass, an unsupported version, endianness or compression flag.
BvProperties read_bv_properties(const std::string& path);

// How a BV graph is decoded.
struct BvDecodeOptions {
  unsigned threads = 1;  // 0 = all cores; ranges by .offsets are decoded on this many threads
  // Arcs per handed-out chunk (0 = 2^18): with `threads`, bounds the memory in flight to
  // about 2 * threads * chunk_arcs * 16 bytes.
  std::uint64_t chunk_arcs = 0;
  bool use_offsets = true;  // false: decode sequentially even when .offsets exists (tests)
  bool progress = false;    // one line on stderr saying how the graph is decoded
  // Share `share` of `shares` (the ranks of the distributed partitioner): with .offsets, this
  // source decodes only its run of the node ranges, about 1 / shares of the stream's bits;
  // without, it decodes all and hands out every shares-th chunk. The arc count and statistics
  // of .properties are then checked by the ranks together (EdgeSource::share_totals), and only
  // share 0 computes the MD5 of the files.
  unsigned share = 0, shares = 1;
};

class BvEdgeSource : public EdgeSource {
 public:
  virtual const BvProperties& properties() const = 0;
  // After the stream is exhausted: the statistics of every list.
  virtual BvStats stats() const = 0;
  virtual bool parallel() const = 0;  // ranges by .offsets on several threads
};

std::unique_ptr<BvEdgeSource> open_webgraph(const std::string& path, const BvDecodeOptions& options);
// The hook of open_edge_file: text options (threads, block bytes) mapped onto decode options.
std::unique_ptr<EdgeSource> open_webgraph(const std::string& path, const EdgeFileOptions& options);

// The `arcs` property (what the partitioner plans its memory with); 0 when unreadable.
std::uint64_t webgraph_arc_count(const std::string& path);

}  // namespace tricount
