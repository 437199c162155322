// Streams of raw input edges: the readers (edge list, Matrix Market, binary, gzip) and the
// synthetic generators all hand edges out in batches through this one interface, so the
// partitioner never needs a whole file or a whole graph in one string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/types.hpp"

namespace tricount {

struct RawEdge {
  raw_id_t u = 0;
  raw_id_t v = 0;
  friend bool operator==(const RawEdge&, const RawEdge&) = default;
};

// Edges that are each a function of their index alone (the generators; an uncompressed
// binary file, edge k at byte k times the pair's size): how many there are, and any range of
// them on any thread, so that a reader can split the index range between its threads and get
// the stream's edges without a sequential pass.
class IndexedEdges {
 public:
  virtual ~IndexedEdges() = default;
  virtual std::uint64_t edge_count() const = 0;
  // out[k] = edge first + k for k < n, where first + n <= edge_count(); safe to call from
  // several threads at once.
  virtual void edges_at(std::uint64_t first, std::uint64_t n, RawEdge* out) const = 0;
};

class EdgeSource {
 public:
  virtual ~EdgeSource() = default;
  // Appends up to `max_edges` edges to `out` (which is cleared first). Returns false once the
  // stream is exhausted and nothing was appended. Throws Error on malformed input, with a
  // message that names the file and, for text, the line.
  virtual bool next_batch(std::vector<RawEdge>& out, std::size_t max_edges) = 0;
  // What this stream is, for messages and for the HDF5 file's provenance attributes.
  virtual std::string description() const = 0;
  // After the stream is exhausted: md5sum lines ("<hex>  <file name>\n") of the input files,
  // for the user to compare with the publisher's checksums (WebGraph: LAW's NAME.md5sums);
  // "" for a stream that has none.
  virtual std::string input_md5() { return ""; }
  // The same edges by index, when each is a function of its index (a generator's stream,
  // which gives them in index order; an uncompressed regular bin32/bin64 file); null for text,
  // gzip, WebGraph and pipes. For a stream not yet read from.
  virtual const IndexedEdges* indexed() const { return nullptr; }
  // Text: the lines read so far (of its share, for a share); 0 for other inputs.
  virtual std::uint64_t lines_read() const { return 0; }
  // A share whose whole-input checks need every share (Matrix Market: the size line's entry
  // count; WebGraph: the arc count and statistics of .properties): after the stream is
  // exhausted, figures to sum over the shares (the same length on each), and the check of those
  // sums, which throws Error as one reader of the whole input would. Empty, and no check, for
  // other inputs.
  virtual std::vector<std::uint64_t> share_totals() const { return {}; }
  virtual void check_share_totals(const std::vector<std::uint64_t>& sums) const { (void)sums; }
};

// A bad line of a text share (EdgeFileOptions::shares > 1), numbered from the share's first
// line: located(lines before the share) is the message one reader of the whole file gives.
class ShareLineError : public Error {
 public:
  ShareLineError(std::string path, std::uint64_t line, std::string detail)
      : Error(printable(path) + ": line " + std::to_string(line) + " of its share: " + detail),
        path_(std::move(path)),
        line_(line),
        detail_(std::move(detail)) {}
  std::uint64_t line() const { return line_; }
  std::string located(std::uint64_t lines_before) const {
    return printable(path_) + ":" + std::to_string(lines_before + line_) + ": " + detail_;
  }

 private:
  std::string path_;
  std::uint64_t line_;
  std::string detail_;
};

enum class InputFormat { Auto, EdgeList, MatrixMarket, Bin32, Bin64, WebGraph };

InputFormat parse_input_format(std::string_view name);  // throws UsageError
std::string_view to_string(InputFormat f);

// The format the file name says (.mtx, .mm, .bin32, .bin64, .bin, each optionally .gz), or
// Auto when the name does not say (then the content decides: a text format).
InputFormat format_from_name(const std::string& path);
// The text format of an input from its first (decompressed) bytes: MatrixMarket when they
// start with the %%MatrixMarket banner (after a UTF-8 byte-order mark), else EdgeList. An
// HDF5 file's signature (a block file given as an edge file) is an Error naming `path`.
InputFormat sniff_text_format(std::string_view head, const std::string& path);
// Picks the format from the file name and, for text, the first line. Never returns Auto.
// It opens and reads the file: for a pipe or FIFO use open_edge_file(path, Auto), which
// opens it once and sniffs the bytes it then parses.
InputFormat detect_input_format(const std::string& path);

// How a file is read. Only text (edge lists, Matrix Market) uses these.
struct EdgeFileOptions {
  // Threads that parse text (0 = all cores). With more than one, the input is read ahead in
  // blocks of whole lines that are parsed in pieces on several threads; the edges, their
  // order and every message (file, line) are the same as with one. An input under about
  // half a MiB is parsed on the calling thread without starting any thread.
  unsigned threads = 1;
  // Bytes read per block when parsing on several threads (0 = the default: 1 MiB per
  // thread, 2 to 16 MiB). Tests set it small so that lines straddle many block boundaries.
  std::size_t block_bytes = 0;
  bool progress = false;  // WebGraph: one line on stderr saying how it is decoded
  // An input read in `shares` parts (the ranks of the distributed partitioner). An uncompressed
  // edge list or Matrix Market file: this reader parses the whole lines of share `share`, about
  // 1 / shares of the bytes (text_share_start; after the header); bad lines throw
  // ShareLineError. A WebGraph BV graph: a run of node ranges (BvDecodeOptions::share). Check
  // with splits_into_shares first; pass the format detect_input_format finds.
  unsigned share = 0, shares = 1;
};

// Whether `path` read as `format` can be read in shares: an edge list or Matrix Market file in
// a regular file that is not gzip-compressed, or a WebGraph BV graph.
bool splits_into_shares(const std::string& path, InputFormat format);

// The files besides `path` that reading it uses: a WebGraph graph's .graph, .properties and
// .offsets, and an edge file's published-count sidecar (PATH.known). An output written over
// one of them destroys the input as surely as one written over `path`.
std::vector<std::string> input_companion_files(const std::string& path);

// Opens a file as an edge stream. Throws Error naming the file if it is missing or
// unreadable, or if its contents do not fit the format. Text and binary formats may be
// gzip-compressed (binary only when the name ends in .gz).
std::unique_ptr<EdgeSource> open_edge_file(const std::string& path, InputFormat format);
std::unique_ptr<EdgeSource> open_edge_file(const std::string& path, InputFormat format,
                                           const EdgeFileOptions& options);

}  // namespace tricount
