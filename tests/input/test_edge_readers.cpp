// Edge-file readers: every format, gzip, line endings, comments, extra columns, Matrix
// Market variants, and each error case with the file name and line in its message.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>  // std::in_range, used by types.hpp
#include <vector>

#include "input/edge_source.hpp"
#include "input/generators.hpp"
#include "src/types.hpp"
#include "tests/test_support.hpp"

namespace tricount {
namespace {

namespace fs = std::filesystem;

// Substring check with both strings in the failure message (gmock is not linked here).
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\"\n  does not contain \"" << part << "\"";
}

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

// An in-memory edge stream, for feeding write_edge_file.
class VectorSource final : public EdgeSource {
 public:
  explicit VectorSource(std::vector<RawEdge> edges) : edges_(std::move(edges)) {}
  bool next_batch(std::vector<RawEdge>& out, std::size_t max_edges) override {
    out.clear();
    while (pos_ < edges_.size() && out.size() < max_edges) out.push_back(edges_[pos_++]);
    return !out.empty();
  }
  std::string description() const override { return "vector"; }

 private:
  std::vector<RawEdge> edges_;
  std::size_t pos_ = 0;
};

class EdgeReaders : public ::testing::Test {
 protected:

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::string write(const std::string& name, const std::string& bytes) const {
    const std::string p = path(name);
    std::ofstream f(p, std::ios::binary);
    f << bytes;
    return p;
  }

  std::string write_gz(const std::string& name, const std::string& bytes) const {
    const std::string p = path(name);
    gzFile gz = ::gzopen(p.c_str(), "wb");
    EXPECT_NE(gz, nullptr);
    if (!bytes.empty()) {
      EXPECT_EQ(::gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size())),
                static_cast<int>(bytes.size()));
    }
    EXPECT_EQ(::gzclose(gz), Z_OK);
    return p;
  }

  static std::vector<RawEdge> read_all(const std::string& p, InputFormat f = InputFormat::Auto,
                                       std::size_t batch = 1000) {
    auto src = open_edge_file(p, f);
    std::vector<RawEdge> all, b;
    while (src->next_batch(b, batch)) {
      EXPECT_LE(b.size(), batch);
      all.insert(all.end(), b.begin(), b.end());
    }
    EXPECT_TRUE(b.empty());
    return all;
  }

  // The message of the Error thrown while opening and reading `p` to the end.
  static std::string read_error(const std::string& p, InputFormat f = InputFormat::Auto) {
    try {
      read_all(p, f);
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "no error reading " << p;
    return "";
  }

  tricount::testing::TempDir temp_;
  const fs::path dir_{temp_.path()};
};

using Edges = std::vector<RawEdge>;

// ---- edge lists ------------------------------------------------------------------------

TEST_F(EdgeReaders, EdgeListWithCommentsBlankLinesAndTabs) {
  const std::string p = write("g.txt",
                              "# Directed graph: g.txt\n"
                              "% another comment style\n"
                              "\n"
                              "0\t1\n"
                              "  2   3  \n"
                              "   \n"
                              "\t# indented comment\n"
                              "4 5\n");
  EXPECT_EQ(detect_input_format(p), InputFormat::EdgeList);
  EXPECT_EQ(read_all(p), (Edges{{0, 1}, {2, 3}, {4, 5}}));
}

TEST_F(EdgeReaders, CrlfLineEndings) {
  const std::string p = write("crlf.txt", "# header\r\n1 2\r\n\r\n3\t4\r\n5 6 7\r\n");
  EXPECT_EQ(read_all(p), (Edges{{1, 2}, {3, 4}, {5, 6}}));
}

// Old Mac files: a lone CR ends a line (it used to read the whole file as one edge).
TEST_F(EdgeReaders, LoneCrLineEndings) {
  EXPECT_EQ(read_all(write("cr.txt", "# header\r1 2\r\r3\t4\r5 6 7\r")), (Edges{{1, 2}, {3, 4}, {5, 6}}));
  EXPECT_EQ(read_all(write("crnoend.txt", "1 2\r3 4")), (Edges{{1, 2}, {3, 4}}));
  EXPECT_EQ(read_all(write("mixed.txt", "1 2\r\n3 4\r5 6\n7 8\r\n")), (Edges{{1, 2}, {3, 4}, {5, 6}, {7, 8}}));
  const std::string mtx = write("cr-mm", "%%MatrixMarket matrix coordinate pattern general\r3 3 2\r1 2\r2 3\r");
  EXPECT_EQ(read_all(mtx), (Edges{{1, 2}, {2, 3}}));
  const std::string bad = write("crbad.txt", "1 2\r3\r4 5\r");
  EXPECT_TRUE(Contains(read_error(bad), bad + ":2: malformed line")) << read_error(bad);
}

// A CRLF split between two reads (the first read of a file is 4 MiB) is one line end, not
// two: the line numbers after it stay right, on one thread and on several.
TEST_F(EdgeReaders, CrlfAcrossAReadBoundaryIsOneLineEnd) {
  const std::size_t boundary = std::size_t{4} << 20;
  std::string text;
  std::uint64_t lines = 0;
  while (text.size() < boundary - 64) {
    text += std::to_string(lines % 1000) + " " + std::to_string(lines % 997) + "\r\n";
    ++lines;
  }
  // Pad the last line so that its CR is the last byte of the first read.
  std::string last = "1 2";
  last += std::string(boundary - 1 - text.size() - last.size(), ' ');
  text += last + "\r\n";
  ++lines;
  ASSERT_EQ(text[boundary - 1], '\r');
  ASSERT_EQ(text[boundary], '\n');
  text += "3 4\r\nbad\r\n";
  const std::string p = write("split-crlf.txt", text);
  const std::string want = p + ":" + std::to_string(lines + 2) + ": malformed line";
  EXPECT_TRUE(Contains(read_error(p), want)) << read_error(p);
  for (const EdgeFileOptions options : {EdgeFileOptions{4, 4096}, EdgeFileOptions{2, 0}}) {
    try {
      auto src = open_edge_file(p, InputFormat::Auto, options);
      std::vector<RawEdge> b;
      while (src->next_batch(b, 1000)) {
      }
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_TRUE(Contains(e.what(), want)) << e.what();
    }
  }
}

TEST_F(EdgeReaders, ExtraColumnsAreIgnored) {
  // GraphChallenge TSV "u v weight" and as-caida "u v relationship" (which can be -1).
  const std::string p = write("tsv.tsv", "1\t2\t1\n2\t3\t0.5\n3 4 -1\n4 5 2 extra words\n");
  EXPECT_EQ(read_all(p), (Edges{{1, 2}, {2, 3}, {3, 4}, {4, 5}}));
}

TEST_F(EdgeReaders, LastLineWithoutNewlineAndEmptyFile) {
  EXPECT_EQ(read_all(write("nonl.txt", "1 2\n3 4")), (Edges{{1, 2}, {3, 4}}));
  EXPECT_EQ(read_all(write("crnonl.txt", "1 2\r\n3 4\r")), (Edges{{1, 2}, {3, 4}}));
  EXPECT_TRUE(read_all(write("empty.txt", "")).empty());
  EXPECT_TRUE(read_all(write("comments.txt", "# only\n# comments")).empty());
}

TEST_F(EdgeReaders, Utf8ByteOrderMarkIsSkipped) {
  EXPECT_EQ(read_all(write("bom.txt", "\xEF\xBB\xBF" "1 2\n3 4\n")), (Edges{{1, 2}, {3, 4}}));
  const std::string mtx = write("bom.mtx", "\xEF\xBB\xBF%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1\n");
  EXPECT_EQ(read_all(mtx), (Edges{{2, 1}}));
  const std::string named_txt = write("bom-mm.txt", "\xEF\xBB\xBF%%MatrixMarket matrix coordinate pattern general\n2 2 0\n");
  EXPECT_EQ(detect_input_format(named_txt), InputFormat::MatrixMarket);
}

TEST_F(EdgeReaders, LargeIds) {
  const std::uint64_t big = std::uint64_t{1} << 40;
  const std::string p = write("big.txt", "1099511627776 0\n"
                                         "18446744073709551615 18446744073709551614\n"
                                         "00042 007\n");
  EXPECT_EQ(read_all(p), (Edges{{big, 0}, {kMax64, kMax64 - 1}, {42, 7}}));
}

TEST_F(EdgeReaders, BatchSizesGiveTheSameStream) {
  std::string text;
  Edges expect;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    text += std::to_string(i) + " " + std::to_string(i * 7 % 1000) + (i % 3 ? "\n" : "\r\n");
    if (i % 100 == 0) text += "# comment\n";
    expect.push_back({i, i * 7 % 1000});
  }
  const std::string p = write("batches.txt", text);
  for (std::size_t batch : {std::size_t{1}, std::size_t{3}, std::size_t{999}, std::size_t{1} << 20}) {
    EXPECT_EQ(read_all(p, InputFormat::Auto, batch), expect) << "batch " << batch;
  }
  auto src = open_edge_file(p, InputFormat::EdgeList);
  std::vector<RawEdge> b{{9, 9}};
  EXPECT_TRUE(src->next_batch(b, 1000));
  EXPECT_EQ(b.size(), 1000u);
  EXPECT_FALSE(src->next_batch(b, 1000));
  EXPECT_TRUE(b.empty());  // cleared even at the end
  EXPECT_FALSE(src->next_batch(b, 1000));
  EXPECT_EQ(src->description(), p);
}

// Several MiB, so lines straddle the reader's chunk boundaries; and a line longer than a
// chunk, so the buffer has to grow.
TEST_F(EdgeReaders, StreamsAcrossChunkBoundaries) {
  std::string text;
  Edges expect;
  for (std::uint64_t i = 0; i < 700000; ++i) {
    const std::uint64_t u = i * 2654435761u % 100000007u, v = i;
    text += std::to_string(u) + ' ' + std::to_string(v) + '\n';
    expect.push_back({u, v});
    if (i == 350000) {
      text += "# " + std::string(9u << 20, 'x') + "\n";  // 9 MiB comment line
    }
  }
  text += "1 x\n";  // an error after all of that still names the right line
  const std::string p = write("chunks.txt", text);
  const std::string gz = write_gz("chunks.txt.gz", text);
  for (const std::string& f : {p, gz}) {
    auto src = open_edge_file(f, InputFormat::Auto);
    Edges all, b;
    try {
      while (src->next_batch(b, 65536)) all.insert(all.end(), b.begin(), b.end());
      ADD_FAILURE() << "no error for the last line";
    } catch (const Error& e) {
      EXPECT_TRUE(Contains(e.what(), f + ":700002: malformed line"));
    }
    // Every whole batch before the one with the bad line came through intact.
    EXPECT_EQ(all.size(), expect.size() / 65536 * 65536);
    EXPECT_TRUE(std::equal(all.begin(), all.end(), expect.begin()));
  }
}

// ---- gzip ------------------------------------------------------------------------------

TEST_F(EdgeReaders, GzipText) {
  const std::string body = "# c\r\n1 2\r\n3 4 9\n";
  const std::string p = write_gz("g.txt.gz", body);
  EXPECT_EQ(detect_input_format(p), InputFormat::EdgeList);
  EXPECT_EQ(read_all(p), (Edges{{1, 2}, {3, 4}}));
  // A compressed file without the .gz name is recognised by its magic bytes.
  const std::string q = write_gz("disguised.txt", body);
  EXPECT_EQ(read_all(q), (Edges{{1, 2}, {3, 4}}));
}

TEST_F(EdgeReaders, TruncatedGzipIsAnError) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  const std::string full = write_gz("full.txt.gz", text);
  const auto size = fs::file_size(full);
  fs::resize_file(full, size / 2);
  const std::string msg = read_error(full);
  EXPECT_TRUE(Contains(msg, full));
  EXPECT_TRUE(Contains(msg, "gzip"));
  EXPECT_TRUE(Contains(msg, "truncated"));
}

TEST_F(EdgeReaders, CorruptGzipIsAnError) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  const std::string p = write_gz("bad.txt.gz", text);
  {
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);
    f.write("garbage-garbage-garbage", 23);
  }
  const std::string msg = read_error(p);
  EXPECT_TRUE(Contains(msg, p));
  EXPECT_TRUE(Contains(msg, "gzip"));
}

// Concatenated members are one stream (gzip's own rule); zero padding after the last member
// carries nothing; any other byte after it is damage: an error naming the file and the byte,
// never a count of the first member's edges alone.
TEST_F(EdgeReaders, BytesAfterTheGzipStreamMustBeAnotherMember) {
  const std::string a = write_gz("a.gz", "0 1\n1 2\n2 0\n"), b = write_gz("b.gz", "0 3\n1 3\n2 3\n");
  const auto bytes = [](const std::string& f) {
    std::ifstream in(f, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const Edges both{{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
  EXPECT_EQ(read_all(write("two.txt.gz", bytes(a) + bytes(b))), both);
  EXPECT_EQ(read_all(write("padded.txt.gz", bytes(a) + bytes(b) + std::string(1000, '\0'))), both);
  for (const std::string& tail : {std::string("X"), std::string("\0\0X", 3), "X" + bytes(b), std::string("\x1f")}) {
    const std::string p = write("junk.txt.gz", bytes(a) + tail);
    const std::string msg = read_error(p);
    EXPECT_TRUE(Contains(msg, p + ": byte ")) << msg;
    EXPECT_TRUE(Contains(msg, "starts no gzip member")) << msg;
  }
  // An empty file named .gz is not an empty graph.
  EXPECT_TRUE(Contains(read_error(write("empty.txt.gz", "")), "empty, not a gzip stream"));
  EXPECT_EQ(read_all(write("empty.txt", "")), Edges{});
}

// ---- Matrix Market ---------------------------------------------------------------------

TEST_F(EdgeReaders, MatrixMarketPatternGeneral) {
  const std::string p = write("a.mtx",
                              "%%MatrixMarket matrix coordinate pattern general\n"
                              "% comment\n"
                              "%\n"
                              "\n"
                              "4 4 3\n"
                              "1 2\n"
                              "4 3\n"
                              "2 4\n");
  EXPECT_EQ(detect_input_format(p), InputFormat::MatrixMarket);
  // Indices stay 1-based, as they appear in the file.
  EXPECT_EQ(read_all(p), (Edges{{1, 2}, {4, 3}, {2, 4}}));
}

TEST_F(EdgeReaders, MatrixMarketSymmetricIntegerAndRealCrlf) {
  const std::string sym = write("s.mtx",
                                "%%MatrixMarket matrix coordinate integer symmetric\r\n"
                                "3 3 2\r\n"
                                "2 1 7\r\n"
                                "3 1 -2\r\n");
  EXPECT_EQ(read_all(sym), (Edges{{2, 1}, {3, 1}}));
  const std::string real = write("r.mm",
                                 "%%MatrixMarket MATRIX Coordinate REAL General\n"
                                 "5 5 2\n"
                                 "1 5 0.5\n"
                                 "2 1 -1e-3\n");
  EXPECT_EQ(read_all(real), (Edges{{1, 5}, {2, 1}}));
}

TEST_F(EdgeReaders, MatrixMarketDetectedByBannerAndGzip) {
  const std::string body = "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n3 2\n";
  const std::string txt = write("looks-like-text.txt", body);
  EXPECT_EQ(detect_input_format(txt), InputFormat::MatrixMarket);
  EXPECT_EQ(read_all(txt), (Edges{{3, 2}}));
  const std::string gz = write_gz("m.mtx.gz", body);
  EXPECT_EQ(detect_input_format(gz), InputFormat::MatrixMarket);
  EXPECT_EQ(read_all(gz), (Edges{{3, 2}}));
  const std::string gz2 = write_gz("m.dat.gz", body);  // banner seen through gzip
  EXPECT_EQ(detect_input_format(gz2), InputFormat::MatrixMarket);
}

TEST_F(EdgeReaders, MatrixMarketUnsupportedKinds) {
  const std::string arr = write("arr.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  EXPECT_TRUE(Contains(read_error(arr), arr + ":1: Matrix Market 'array'"));
  const std::string cx = write("cx.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n");
  EXPECT_TRUE(Contains(read_error(cx), cx + ":1: complex"));
  const std::string he = write("he.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n");
  EXPECT_TRUE(Contains(read_error(he), he + ":1: hermitian"));
  const std::string nob = write("nobanner.mtx", "3 3 1\n1 2\n");
  EXPECT_TRUE(Contains(read_error(nob), nob + ":1: not a Matrix Market file"));
  const std::string sq = write("sq.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 4 0\n");
  EXPECT_TRUE(Contains(read_error(sq), sq + ":2: a symmetric matrix must be square"));
}

// An adjacency matrix is square: a general matrix of M rows and N columns (M != N) was read
// as a graph of max(M, N) vertices without a word. Refused naming the file, the size line and
// what it means; skew-symmetric too; square files read as before.
TEST_F(EdgeReaders, MatrixMarketRectangularIsNoGraph) {
  const std::string wide = write("wide.mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n3 5 3\n1 2\n2 3\n3 5\n");
  std::string m = read_error(wide);
  EXPECT_TRUE(Contains(m, wide + ":3: the size line says 3 rows x 5 columns, so this is not a graph's adjacency matrix")) << m;
  EXPECT_TRUE(Contains(m, "give its size line as '5 5 3'")) << m;
  const std::string tall = write("tall.mtx", "%%MatrixMarket matrix coordinate real general\n4 2 1\n3 1 0.5\n");
  m = read_error(tall);
  EXPECT_TRUE(Contains(m, tall + ":2: the size line says 4 rows x 2 columns, so this is not a graph's adjacency matrix")) << m;
  const std::string skew = write("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 4 1\n2 1 1\n");
  EXPECT_TRUE(Contains(read_error(skew), skew + ":2: a skew-symmetric matrix must be square, but the size line says 3 x 4"));
  const std::string square = write("square.mtx", "%%MatrixMarket matrix coordinate pattern general\n5 5 3\n1 2\n2 3\n3 5\n");
  EXPECT_EQ(read_all(square), (Edges{{1, 2}, {2, 3}, {3, 5}}));
}

TEST_F(EdgeReaders, MatrixMarketIndexErrors) {
  const std::string hdr = "%%MatrixMarket matrix coordinate pattern general\n% c\n3 3 3\n";
  const std::string row = write("row.mtx", hdr + "1 2\n4 1\n1 1\n");
  EXPECT_TRUE(Contains(read_error(row), row + ":5: row index 4 is outside 1..3"));
  const std::string col = write("col.mtx", hdr + "1 2\n1 5\n1 1\n");
  EXPECT_TRUE(Contains(read_error(col), col + ":5: column index 5 is outside 1..3"));
  const std::string zero = write("zero.mtx", hdr + "1 2\n2 1\n0 1\n");
  const std::string msg = read_error(zero);
  EXPECT_TRUE(Contains(msg, zero + ":6: row index 0 is outside 1..3"));
  EXPECT_TRUE(Contains(msg, "1-based"));
}

TEST_F(EdgeReaders, MatrixMarketEntryCountErrors) {
  const std::string hdr = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n";
  const std::string few = write("few.mtx", hdr + "1 2\n");
  const std::string m = read_error(few);
  EXPECT_TRUE(Contains(m, few + ": the size line (line 2) declares 2 entries but the file has 1"));
  const std::string many = write("many.mtx", hdr + "1 2\n2 3\n3 1\n");
  EXPECT_TRUE(Contains(read_error(many), many + ":5: more entries than the 2 declared"));
  const std::string badsize = write("badsize.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3\n");
  EXPECT_TRUE(Contains(read_error(badsize), badsize + ":2: malformed Matrix Market size line"));
  const std::string nosize = write("nosize.mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n");
  EXPECT_TRUE(Contains(read_error(nosize), nosize + ": missing the Matrix Market size line"));
}

// ---- text errors -----------------------------------------------------------------------

TEST_F(EdgeReaders, MissingFile) {
  const std::string p = path("does-not-exist.txt");
  EXPECT_TRUE(Contains(read_error(p), "cannot open '" + p + "': No such file or directory"));
  EXPECT_TRUE(Contains(read_error(p, InputFormat::Bin64), "cannot open '" + p + "'"));
  EXPECT_TRUE(Contains(read_error(dir_.string()), "cannot open '" + dir_.string() + "'"));
}

TEST_F(EdgeReaders, MalformedLines) {
  const std::string one = write("edges.txt", "# c\n1 2\n3\n");
  EXPECT_TRUE(Contains(read_error(one), one + ":3: malformed line: expected two vertex ids, got \"3\""));
  const std::string onecr = write("onecr.txt", "1 2\r\n3 \r\n");
  EXPECT_TRUE(Contains(read_error(onecr), onecr + ":2: malformed line: expected two vertex ids, got \"3\""));
  const std::string word = write("word.txt", "1 2\n\n3 x\n");
  EXPECT_TRUE(Contains(read_error(word), word + ":3: malformed line: expected two vertex ids, got \"3 x\""));
  const std::string glued = write("glued.txt", "3x 4\n");
  EXPECT_TRUE(Contains(read_error(glued), glued + ":1: malformed line"));
  const std::string frac = write("frac.txt", "1 2\n1.5 2\n");
  EXPECT_TRUE(Contains(read_error(frac), frac + ":2: malformed line"));
  const std::string comma = write("comma.csv", "1,2\n");
  EXPECT_TRUE(Contains(read_error(comma), comma + ":1: malformed line"));
}

// A NUL byte used to cut the message, and a newline in the file's name split it over lines:
// control bytes of names and line excerpts are printed escaped.
TEST_F(EdgeReaders, MessagesEscapeControlBytesOfNamesAndLines) {
  const std::string nul = write("nul.txt", std::string("1 2\n3\0x 4\n", 11));
  const std::string m = read_error(nul);
  EXPECT_TRUE(Contains(m, nul + ":2: malformed line: expected two vertex ids, got \"3\\x00x 4\"")) << m;
  const std::string named = write("two\nlines.txt", "1 2\nbad\n");
  const std::string n = read_error(named);
  EXPECT_EQ(n.find('\n'), std::string::npos) << n;
  EXPECT_TRUE(Contains(n, path("two\\nlines.txt:2: malformed line"))) << n;
  EXPECT_TRUE(Contains(read_error(path("missing\tfile\x01.txt")), "missing\\tfile\\x01.txt"));
}

TEST_F(EdgeReaders, NegativeAndOversizedIds) {
  const std::string neg = write("neg.txt", "1 2\n-3 4\n");
  EXPECT_TRUE(Contains(read_error(neg), neg + ":2: negative vertex id -3"));
  const std::string neg2 = write("neg2.txt", "1 2\n3 -4\n");
  EXPECT_TRUE(Contains(read_error(neg2), neg2 + ":2: negative vertex id -4"));
  const std::string big = write("big.txt", "1 2\n1 18446744073709551616\n");
  EXPECT_TRUE(Contains(read_error(big), big + ":2: vertex id 18446744073709551616 does not fit in 64 bits"));
  const std::string huge = write("huge.txt", "123456789012345678901234567890 1\n");
  EXPECT_TRUE(Contains(read_error(huge), huge + ":1: vertex id 123456789012345678901234567890 does not fit"));
  // An id of a million digits is cut in the message, as a malformed line is.
  const std::string endless = write("endless.txt", std::string(1000000, '7') + " 1\n");
  const std::string msg = read_error(endless);
  EXPECT_TRUE(Contains(msg, endless + ":1: vertex id 77777777777777777777... (1000000 digits) does not fit")) << msg.substr(0, 200);
  EXPECT_LT(msg.size(), 400u);
  // A block file where an edge file belongs is named as such, not as a malformed line.
  const std::string h5 = write("blocks.h5", std::string("\x89HDF\r\n\x1a\n", 8) + std::string(100, '\0'));
  EXPECT_TRUE(Contains(read_error(h5), h5 + ": an HDF5 file (a tricount block file?), not an edge file")) << read_error(h5);
}

// ---- binary ----------------------------------------------------------------------------

TEST_F(EdgeReaders, Bin32RoundTrip) {
  const Edges edges{{0, 1}, {4294967295u, 7}, {123456, 654321}};
  VectorSource src(edges);
  const std::string p = path("g.bin32");
  EXPECT_EQ(write_edge_file(src, p, EdgeFileKind::Bin32), edges.size());
  EXPECT_EQ(fs::file_size(p), edges.size() * 8);
  EXPECT_EQ(detect_input_format(p), InputFormat::Bin32);
  EXPECT_EQ(read_all(p), edges);
  EXPECT_EQ(read_all(p, InputFormat::Bin32, 1), edges);
  // Little-endian on disk, whatever the host.
  std::ifstream f(p, std::ios::binary);
  unsigned char b[8];
  f.read(reinterpret_cast<char*>(b), 8);
  EXPECT_EQ(b[0], 0u);
  EXPECT_EQ(b[4], 1u);
}

TEST_F(EdgeReaders, Bin64RoundTripIncludingGzip) {
  const Edges edges{{0, kMax64}, {std::uint64_t{1} << 40, 3}, {5, 6}};
  VectorSource src(edges);
  const std::string p = path("g.bin64");
  EXPECT_EQ(write_edge_file(src, p, EdgeFileKind::Bin64), edges.size());
  EXPECT_EQ(fs::file_size(p), edges.size() * 16);
  EXPECT_EQ(detect_input_format(p), InputFormat::Bin64);
  EXPECT_EQ(read_all(p), edges);
  // .bin is bin64, too.
  fs::copy_file(p, path("g.bin"));
  EXPECT_EQ(detect_input_format(path("g.bin")), InputFormat::Bin64);
  EXPECT_EQ(read_all(path("g.bin")), edges);
  // A binary file gzip-compressed and named .gz is decompressed.
  std::ifstream f(p, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::string gz = write_gz("g.bin64.gz", bytes);
  EXPECT_EQ(detect_input_format(gz), InputFormat::Bin64);
  EXPECT_EQ(read_all(gz), edges);
}

TEST_F(EdgeReaders, BinaryLargerThanAChunk) {
  Edges edges;
  for (std::uint64_t i = 0; i < 600000; ++i) edges.push_back({i, kMax64 - i});
  VectorSource src(edges);
  const std::string p = path("large.bin64");
  write_edge_file(src, p, EdgeFileKind::Bin64);
  EXPECT_TRUE(read_all(p, InputFormat::Auto, 100003) == edges);
}

TEST_F(EdgeReaders, BinarySizeNotAMultipleOfThePair) {
  const std::string p32 = write("odd.bin32", std::string(13, '\0'));
  EXPECT_TRUE(Contains(read_error(p32), p32 + ": size 13 bytes is not a multiple of 8"));
  const std::string p64 = write("odd.bin64", std::string(40, '\0'));
  EXPECT_TRUE(Contains(read_error(p64), p64 + ": size 40 bytes is not a multiple of 16"));
  const std::string gz = write_gz("odd.bin32.gz", std::string(12, '\0'));
  EXPECT_TRUE(Contains(read_error(gz), gz + ": size 12 bytes is not a multiple of 8"));
  EXPECT_TRUE(read_all(write("empty.bin32", "")).empty());
}

TEST_F(EdgeReaders, Bin32RejectsIdsAbove32Bits) {
  VectorSource src({{1, 2}, {3, std::uint64_t{1} << 32}});
  const std::string p = path("too-big.bin32");
  try {
    write_edge_file(src, p, EdgeFileKind::Bin32);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(Contains(e.what(), "4294967296"));
    EXPECT_TRUE(Contains(e.what(), p));
  }
  // Neither the file nor its temporary is left behind.
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(EdgeReaders, TextRoundTripViaWriter) {
  const Edges edges{{0, kMax64}, {std::uint64_t{1} << 40, 3}, {10, 0}};
  VectorSource src(edges);
  const std::string p = path("w.txt");
  EXPECT_EQ(write_edge_file(src, p, EdgeFileKind::Text), 3u);
  std::ifstream f(p);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "0 18446744073709551615\n1099511627776 3\n10 0\n");
  EXPECT_EQ(read_all(p), edges);
}

// ---- text parsed on several threads ----------------------------------------------------

// What reading a whole file gives: the edges, batch by batch, up to the first error, and
// that error's message ("" when there is none).
struct ReadResult {
  Edges edges;
  std::string error;
};

ReadResult read_with(const std::string& p, InputFormat f, const EdgeFileOptions& options, std::size_t batch) {
  ReadResult r;
  try {
    auto src = open_edge_file(p, f, options);
    std::vector<RawEdge> b;
    while (src->next_batch(b, batch)) {
      EXPECT_EQ(b.size() <= batch, true);
      r.edges.insert(r.edges.end(), b.begin(), b.end());
    }
  } catch (const Error& e) {
    r.error = e.what();
  }
  return r;
}

// The one-thread reader reads its first 4 MiB before any block is read on the side (see
// edge_readers.cpp); block boundaries lie at 4 MiB + k * block_bytes in the file.
constexpr std::size_t kFirstRead = std::size_t{4} << 20;

// A text edge list of about `bytes` with everything the reader must get right: comments of
// both styles (some long), blank and whitespace-only lines, CRLF, tabs, extra columns,
// leading zeros, 64-bit ids, no '\n' at the end. `expect` gets its edges.
std::string messy_edge_list(std::size_t bytes, Edges& expect, bool matrix_market = false) {
  std::string text;
  std::uint64_t x = 0x9E3779B97F4A7C15u;
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  const std::uint64_t n = 1000;  // Matrix Market: rows = cols = n
  while (text.size() < bytes) {
    const std::uint64_t r = next() % 100;
    const char* eol = next() % 3 == 0 ? "\r\n" : "\n";
    if (r < 8) {
      text += (r % 2 ? "# comment " : "% comment ") + std::string(next() % 200, 'c') + eol;
    } else if (r < 9) {
      text += "#" + std::string(next() % 5000, 'l') + eol;  // longer than the small blocks
    } else if (r < 12) {
      text += (r == 9 ? "" : r == 10 ? "   " : "\t \t") + std::string(eol);
    } else {
      std::uint64_t u = next(), v = next();
      if (matrix_market) {
        u = u % n + 1;
        v = v % n + 1;
      } else if (r < 95) {
        u %= 100000000;
        v %= 100000000;
      } else if (r < 97) {
        u = kMax64 - u % 3;  // 20 digits
      }
      const std::uint64_t style = next() % 6;
      const std::string su = (style == 0 ? "000" : "") + std::to_string(u);
      if (style == 1) {
        text += "  " + su + "\t\t" + std::to_string(v) + "  " + eol;
      } else if (style == 2) {
        text += su + " " + std::to_string(v) + " 0.25 extra words" + eol;
      } else {
        text += su + (style == 3 ? "\t" : " ") + std::to_string(v) + eol;
      }
      expect.push_back({u, v});
    }
  }
  text += matrix_market ? "1 2" : "7 8";  // no line ending
  expect.push_back({matrix_market ? 1u : 7u, matrix_market ? 2u : 8u});
  return text;
}

// How often a block boundary (4 MiB + k * block_bytes) falls between '\r' and '\n', and
// inside a comment line: the tests below check that they really exercise those cases.
std::pair<std::size_t, std::size_t> boundaries_in_crlf_and_comments(const std::string& text, std::size_t block_bytes) {
  std::size_t crlf = 0, comment = 0;
  for (std::size_t at = kFirstRead + block_bytes; at < text.size(); at += block_bytes) {
    if (text[at - 1] == '\r' && text[at] == '\n') ++crlf;
    const std::size_t line_start = text.rfind('\n', at - 1);
    const std::size_t s = line_start == std::string::npos ? 0 : line_start + 1;
    const std::size_t first = text.find_first_not_of(" \t", s);
    if (first < at && (text[first] == '#' || text[first] == '%')) ++comment;
  }
  return {crlf, comment};
}

TEST_F(EdgeReaders, ParallelParsingGivesTheSameStream) {
  Edges expect;
  const std::string text = messy_edge_list(std::size_t{10} << 20, expect);
  const std::string p = write("messy.txt", text);
  const std::string gz = write_gz("messy.txt.gz", text);
  const std::string bom = write("bom-messy.txt", "\xEF\xBB\xBF" + text);
  for (std::size_t block : {std::size_t{1000}, std::size_t{4093}}) {
    const auto [crlf, comment] = boundaries_in_crlf_and_comments(text, block);
    EXPECT_GT(crlf, 10u) << "block " << block;
    EXPECT_GT(comment, 100u) << "block " << block;
  }
  const ReadResult one = read_with(p, InputFormat::Auto, EdgeFileOptions{}, 65536);
  EXPECT_EQ(one.error, "");
  EXPECT_TRUE(one.edges == expect);
  struct Case {
    std::string file;
    unsigned threads;
    std::size_t block, batch;
  };
  const std::vector<Case> cases{
      {p, 4, 0, 65536},        {p, 2, 0, 1},        {p, 4, 1000, 777},    {p, 4, 4093, 65536},
      {p, 3, 65543, 1u << 20}, {gz, 4, 4093, 1000}, {gz, 2, 0, 65536},    {bom, 4, 1000, 65536},
      {p, 0, 0, 65536},  // 0 = all cores
  };
  for (const Case& c : cases) {
    const ReadResult r = read_with(c.file, InputFormat::Auto, EdgeFileOptions{c.threads, c.block}, c.batch);
    EXPECT_EQ(r.error, "");
    EXPECT_TRUE(r.edges == expect) << c.file << " threads " << c.threads << " block " << c.block
                                   << " batch " << c.batch << ": " << r.edges.size() << " edges, expected "
                                   << expect.size();
  }
}

TEST_F(EdgeReaders, ParallelParsingMatrixMarket) {
  Edges entries;
  const std::string body = messy_edge_list(std::size_t{6} << 20, entries, true);
  const std::string header = "%%MatrixMarket matrix coordinate integer general\r\n% c\n\n";
  const std::string size = "1000 1000 " + std::to_string(entries.size()) + "\n";
  const std::string ok = write("ok.mtx", header + size + body);
  // One entry too many and one too few, out of range, and a bad token, all deep inside.
  const std::string more = write("more.mtx", header + "1000 1000 " + std::to_string(entries.size() - 5) + "\n" + body);
  const std::string fewer = write("fewer.mtx", header + "1000 1000 " + std::to_string(entries.size() + 1) + "\n" + body);
  const std::size_t deep = body.find('\n', body.size() * 2 / 3) + 1;
  const std::string range = write("range.mtx", header + size + body.substr(0, deep) + "3 1001\n" + body.substr(deep));
  const std::string token = write("token.mtx", header + size + body.substr(0, deep) + "3 -1\n" + body.substr(deep));
  const ReadResult one = read_with(ok, InputFormat::Auto, EdgeFileOptions{}, 65536);
  EXPECT_EQ(one.error, "");
  EXPECT_TRUE(one.edges == entries);
  for (const std::string& f : {ok, more, fewer, range, token}) {
    const ReadResult serial = read_with(f, InputFormat::Auto, EdgeFileOptions{}, 65536);
    if (f != ok) {
      EXPECT_TRUE(Contains(serial.error, f + ":")) << serial.error;
    }
    for (std::size_t block : {std::size_t{0}, std::size_t{4093}}) {
      for (std::size_t batch : {std::size_t{1000}, std::size_t{65536}}) {
        const ReadResult r = read_with(f, InputFormat::Auto, EdgeFileOptions{4, block}, batch);
        const ReadResult s = batch == 65536 ? serial : read_with(f, InputFormat::Auto, EdgeFileOptions{}, batch);
        EXPECT_EQ(r.error, s.error) << f << " block " << block << " batch " << batch;
        EXPECT_TRUE(r.edges == s.edges) << f << " block " << block << " batch " << batch << ": "
                                        << r.edges.size() << " vs " << s.edges.size();
      }
    }
  }
}

// A bad line deep inside a file of many blocks: the same message (file and line) and the
// same edges before it (every whole batch) with one thread and with several.
TEST_F(EdgeReaders, ParallelParsingReportsTheSameErrors) {
  Edges expect;
  const std::string text = messy_edge_list(std::size_t{9} << 20, expect);
  std::size_t deep = text.find('\n', text.size() * 3 / 5) + 1;
  const std::uint64_t line = 1 + static_cast<std::uint64_t>(std::count(text.begin(), text.begin() + deep, '\n'));
  struct Bad {
    std::string name, line, message;
  };
  const std::vector<Bad> bad{
      {"word.txt", "12 x\r\n", "malformed line: expected two vertex ids, got \"12 x\""},
      {"alone.txt", "  12\n", "malformed line: expected two vertex ids, got \"  12\""},
      {"neg.txt", "-3 4\n", "negative vertex id -3"},
      {"big.txt", "1 18446744073709551616\n", "vertex id 18446744073709551616 does not fit in 64 bits"},
  };
  for (const Bad& b : bad) {
    const std::string p = write(b.name, text.substr(0, deep) + b.line + text.substr(deep));
    const std::string gz = write_gz(b.name + ".gz", text.substr(0, deep) + b.line + text.substr(deep));
    for (const std::string& f : {p, gz}) {
      const std::string want = f + ":" + std::to_string(line) + ": " + b.message;
      const ReadResult serial = read_with(f, InputFormat::Auto, EdgeFileOptions{1, 0}, 65536);
      EXPECT_EQ(serial.error, want);
      for (unsigned threads : {2u, 4u}) {
        for (std::size_t block : {std::size_t{0}, std::size_t{1000}}) {
          const ReadResult r = read_with(f, InputFormat::Auto, EdgeFileOptions{threads, block}, 65536);
          EXPECT_EQ(r.error, want) << "threads " << threads << " block " << block;
          EXPECT_TRUE(r.edges == serial.edges) << f << " threads " << threads << " block " << block << ": "
                                               << r.edges.size() << " vs " << serial.edges.size();
        }
      }
    }
  }
  // The error in the last line, after a 9 MiB comment line (as in StreamsAcrossChunkBoundaries).
  const std::string tail = write("tail.txt", text.substr(0, deep) + "# " + std::string(9u << 20, 'x') + "\n" +
                                                 text.substr(deep) + "\n1 x\n");
  const ReadResult serial = read_with(tail, InputFormat::Auto, EdgeFileOptions{}, 65536);
  EXPECT_TRUE(Contains(serial.error, ": malformed line"));
  const ReadResult r = read_with(tail, InputFormat::Auto, EdgeFileOptions{4, 0}, 65536);
  EXPECT_EQ(r.error, serial.error);
  EXPECT_TRUE(r.edges == serial.edges);
  EXPECT_EQ(r.edges.size(), expect.size() / 65536 * 65536);
}

TEST_F(EdgeReaders, ParallelParsingReadErrorsAndLongLines) {
  Edges expect;
  const std::string text = messy_edge_list(std::size_t{9} << 20, expect);
  // A truncated gzip stream: every edge of the whole lines before the cut, then the error.
  const std::string gz = write_gz("cut.txt.gz", text);
  fs::resize_file(gz, fs::file_size(gz) * 3 / 4);
  const ReadResult serial = read_with(gz, InputFormat::Auto, EdgeFileOptions{}, 1000);
  EXPECT_TRUE(Contains(serial.error, "truncated"));
  for (std::size_t block : {std::size_t{0}, std::size_t{4093}}) {
    const ReadResult r = read_with(gz, InputFormat::Auto, EdgeFileOptions{4, block}, 1000);
    EXPECT_EQ(r.error, serial.error);
    EXPECT_TRUE(r.edges == serial.edges) << r.edges.size() << " vs " << serial.edges.size();
  }
  // A line of 64 MiB after several blocks.
  const std::size_t deep = text.find('\n', std::size_t{6} << 20) + 1;
  const std::uint64_t line = 1 + static_cast<std::uint64_t>(std::count(text.begin(), text.begin() + deep, '\n'));
  const std::string p = write("long.txt", text.substr(0, deep) + std::string(std::size_t{64} << 20, 'x') + "\n1 2\n");
  const ReadResult s = read_with(p, InputFormat::Auto, EdgeFileOptions{}, 65536);
  EXPECT_TRUE(Contains(s.error, p + ":" + std::to_string(line) + ": line longer than 64 MiB"));
  // Small blocks: the block that meets the long line has been used before (and parsed).
  for (std::size_t block : {std::size_t{0}, std::size_t{4093}}) {
    const ReadResult r = read_with(p, InputFormat::Auto, EdgeFileOptions{4, block}, 65536);
    EXPECT_EQ(r.error, s.error) << "block " << block;
    EXPECT_TRUE(r.edges == s.edges) << "block " << block;
  }
  // One byte shorter is a line like any other (here: a malformed one, after the same edges).
  const std::string q = write("long2.txt", text.substr(0, deep) + std::string((std::size_t{64} << 20) - 1, 'x') + "\n");
  const ReadResult s2 = read_with(q, InputFormat::Auto, EdgeFileOptions{}, 65536);
  EXPECT_TRUE(Contains(s2.error, q + ":" + std::to_string(line) + ": malformed line"));
  const ReadResult r2 = read_with(q, InputFormat::Auto, EdgeFileOptions{4, 4093}, 65536);
  EXPECT_EQ(r2.error, s2.error);
  EXPECT_TRUE(r2.edges == s2.edges);
}

std::size_t thread_count_now() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/task")) ++n;
  return n;
}

TEST_F(EdgeReaders, ParallelParsingSmallInputStartsNoThread) {
  const std::string p = write("small.txt", "# c\r\n1 2\r\n3 4\n\n5 6");
  const std::size_t before = thread_count_now();
  auto src = open_edge_file(p, InputFormat::Auto, EdgeFileOptions{8, 0});
  std::vector<RawEdge> b;
  EXPECT_TRUE(src->next_batch(b, 2));
  EXPECT_EQ(b, (Edges{{1, 2}, {3, 4}}));
  EXPECT_EQ(thread_count_now(), before);
  EXPECT_TRUE(src->next_batch(b, 2));
  EXPECT_EQ(b, (Edges{{5, 6}}));
  EXPECT_FALSE(src->next_batch(b, 2));
  EXPECT_FALSE(src->next_batch(b, 2));
  EXPECT_EQ(src->description(), p);
}

// ---- text shares (the distributed partitioner's ranks) ----------------------------------

struct ShareResult {
  Edges edges;
  std::uint64_t lines = 0;  // lines read (of a failed share: before its bad line)
  std::optional<ShareLineError> bad;
};

ShareResult read_share(const std::string& p, unsigned share, unsigned shares, unsigned threads,
                       InputFormat format = InputFormat::EdgeList) {
  ShareResult r;
  EdgeFileOptions o{threads, 1000};
  o.share = share, o.shares = shares;
  auto src = open_edge_file(p, format, o);
  try {
    std::vector<RawEdge> b;
    while (src->next_batch(b, 777)) r.edges.insert(r.edges.end(), b.begin(), b.end());
    r.lines = src->lines_read();
  } catch (const ShareLineError& e) {
    r.bad = e;
    r.lines = e.line() - 1;
  }
  return r;
}

// Reads every share in order as the ranks would: their edges concatenated, and the first
// bad line's message numbered with the lines of the shares before it.
ReadResult read_in_shares(const std::string& p, unsigned shares, unsigned threads,
                          InputFormat format = InputFormat::EdgeList) {
  ReadResult all;
  std::uint64_t before = 0;
  for (unsigned k = 0; k < shares; ++k) {
    const ShareResult r = read_share(p, k, shares, threads, format);
    all.edges.insert(all.edges.end(), r.edges.begin(), r.edges.end());
    if (r.bad) {
      all.error = r.bad->located(before);
      return all;
    }
    before += r.lines;
  }
  return all;
}

TEST_F(EdgeReaders, SharesHoldWholeLinesAndTogetherTheFile) {
  Edges expect;
  const std::string messy = messy_edge_list(std::size_t{1} << 20, expect);
  std::string lone_cr;  // every line ending a lone CR (the last line has none)
  std::string crlf;             // every line ending a CRLF
  for (std::size_t k = 0; k < messy.size(); ++k) {
    if (messy[k] == '\r' && k + 1 < messy.size() && messy[k + 1] == '\n') continue;
    lone_cr += messy[k] == '\n' ? '\r' : messy[k];
    crlf += messy[k] == '\n' ? std::string("\r\n") : std::string(1, messy[k]);
  }
  std::string tiny;
  for (int k = 0; k < 3000; ++k) tiny += std::to_string(k % 10) + " " + std::to_string(k % 7) + (k % 2 ? "\r\n" : "\n");
  const std::vector<std::pair<std::string, std::string>> texts{
      {"messy.txt", messy},        {"bom.txt", "\xEF\xBB\xBF" + messy}, {"lone-cr.txt", lone_cr},
      {"crlf.txt", crlf},          {"tiny.txt", tiny},                 {"one-line.txt", "1 2\n"},
      {"empty.txt", ""},           {"no-newline.txt", "5 6"},
  };
  std::size_t targets_in_crlf = 0;
  for (const auto& [name, text] : texts) {
    const std::string p = write(name, text);
    const ReadResult whole = read_with(p, InputFormat::EdgeList, EdgeFileOptions{1, 0}, 1000);
    ASSERT_EQ(whole.error, "") << name;
    std::uint64_t whole_lines = 0;
    {
      auto src = open_edge_file(p, InputFormat::EdgeList);
      std::vector<RawEdge> b;
      while (src->next_batch(b, 1000)) {
      }
      whole_lines = src->lines_read();
    }
    for (unsigned shares : {2u, 3u, 5u, 8u, 64u}) {
      for (unsigned k = 1; k < shares; ++k) {
        const std::size_t at = text.size() * k / shares;
        if (at > 0 && at < text.size() && text[at - 1] == '\r' && text[at] == '\n') ++targets_in_crlf;
      }
      for (unsigned threads : {1u, 3u}) {
        Edges joined;
        std::uint64_t lines = 0;
        for (unsigned k = 0; k < shares; ++k) {
          const ShareResult r = read_share(p, k, shares, threads);
          ASSERT_FALSE(r.bad) << name << " share " << k << " of " << shares << ": " << r.bad->what();
          joined.insert(joined.end(), r.edges.begin(), r.edges.end());
          lines += r.lines;
        }
        EXPECT_TRUE(joined == whole.edges) << name << " in " << shares << " shares on " << threads << " threads: "
                                           << joined.size() << " edges, " << whole.edges.size() << " whole";
        EXPECT_EQ(lines, whole_lines) << name << " in " << shares << " shares";
      }
    }
  }
  EXPECT_GT(targets_in_crlf, 0u) << "no share boundary fell between a CR and its LF";
}

TEST_F(EdgeReaders, SharesReportTheLineOfTheWholeFile) {
  Edges expect;
  const std::string text = messy_edge_list(std::size_t{1} << 20, expect);
  const std::size_t deep = text.find('\n', text.size() * 3 / 5) + 1;
  const std::uint64_t line = 1 + static_cast<std::uint64_t>(std::count(text.begin(), text.begin() + deep, '\n'));
  const std::vector<std::pair<std::string, std::string>> bad{
      {"12 x\r\n", "malformed line: expected two vertex ids, got \"12 x\""},
      {"-3 4\n", "negative vertex id -3"},
      {"1 18446744073709551616\n", "vertex id 18446744073709551616 does not fit in 64 bits"},
  };
  for (const auto& [bad_line, message] : bad) {
    const std::string p = write("bad.txt", text.substr(0, deep) + bad_line + text.substr(deep) + "\n1 y\n");
    const std::string want = p + ":" + std::to_string(line) + ": " + message;
    EXPECT_EQ(read_with(p, InputFormat::EdgeList, EdgeFileOptions{1, 0}, 1000).error, want);
    for (unsigned shares : {2u, 3u, 7u})
      for (unsigned threads : {1u, 4u}) EXPECT_EQ(read_in_shares(p, shares, threads).error, want) << shares << " shares";
  }
  // The bad line first in its share (the share starts on it) and the last line of the file.
  const std::string first = write("first.txt", "1 2\n3 4\nx y\n5 6\n");
  EXPECT_EQ(read_in_shares(first, 2, 1).error, first + ":3: malformed line: expected two vertex ids, got \"x y\"");
  const std::string last = write("last.txt", text + "\n1 z");
  EXPECT_EQ(read_in_shares(last, 5, 2).error, read_with(last, InputFormat::EdgeList, EdgeFileOptions{1, 0}, 1000).error);
}

// Matrix Market: every share reads the header, the shares split the lines after it; the entry
// count is not checked by a share (the ranks check the sum of their share_totals).
TEST_F(EdgeReaders, SharesOfMatrixMarketSplitTheLinesAfterTheHeader) {
  Edges entries;
  const std::string body = messy_edge_list(std::size_t{1} << 20, entries, true);
  const std::string header = "%%MatrixMarket matrix coordinate integer general\r\n% c\n\n";
  const std::string size = "1000 1000 " + std::to_string(entries.size()) + "\n";
  const std::string ok = write("ok.mtx", header + size + body);
  const std::string fewer = write("fewer.mtx", header + "1000 1000 " + std::to_string(entries.size() + 1) + "\n" + body);
  const std::string empty = write("empty.mtx", header + "5 5 0\n");
  const std::size_t deep = body.find('\n', body.size() * 2 / 3) + 1;
  const std::string range = write("range.mtx", header + size + body.substr(0, deep) + "3 1001\n" + body.substr(deep));
  for (unsigned shares : {2u, 3u, 8u, 64u}) {
    for (unsigned threads : {1u, 3u}) {
      Edges joined;
      std::uint64_t lines = 0;
      for (unsigned k = 0; k < shares; ++k) {
        const ShareResult r = read_share(ok, k, shares, threads, InputFormat::MatrixMarket);
        ASSERT_FALSE(r.bad) << r.bad->what();
        joined.insert(joined.end(), r.edges.begin(), r.edges.end());
        lines += r.lines;
      }
      EXPECT_TRUE(joined == entries) << shares << " shares: " << joined.size() << " of " << entries.size();
      EXPECT_EQ(lines, static_cast<std::uint64_t>(std::count(body.begin(), body.end(), '\n')) + 5);
      // A wrong count is no share's error; the shares' summed entries are checked against what
      // the size line (line 4) declares, with one reader's message.
      std::uint64_t sum = 0;
      for (unsigned k = 0; k < shares; ++k) {
        EdgeFileOptions o{threads, 0};
        o.share = k, o.shares = shares;
        auto share = open_edge_file(fewer, InputFormat::MatrixMarket, o);
        std::vector<RawEdge> batch;
        while (share->next_batch(batch, 1000)) {
        }
        const std::vector<std::uint64_t> t = share->share_totals();
        ASSERT_EQ(t.size(), 1u);
        sum += t[0];
      }
      EXPECT_EQ(sum, entries.size());
      auto check = open_edge_file(fewer, InputFormat::MatrixMarket, EdgeFileOptions{threads, 0, false, 0, shares});
      EXPECT_NO_THROW(check->check_share_totals({entries.size() + 1}));
      try {
        check->check_share_totals({sum});
        ADD_FAILURE() << "no error";
      } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), fewer + ": the size line (line 4) declares " + std::to_string(entries.size() + 1) +
                                             " entries but the file has " + std::to_string(entries.size()));
      }
      EXPECT_EQ(read_in_shares(fewer, shares, threads, InputFormat::MatrixMarket).error, "");
      EXPECT_EQ(read_in_shares(empty, shares, threads, InputFormat::MatrixMarket).edges.size(), 0u);
      EXPECT_EQ(read_in_shares(range, shares, threads, InputFormat::MatrixMarket).error,
                read_with(range, InputFormat::Auto, EdgeFileOptions{}, 1000).error);
    }
  }
  EXPECT_TRUE(open_edge_file(ok, InputFormat::EdgeList)->share_totals().empty());
}

TEST_F(EdgeReaders, UncompressedTextAndWebGraphSplitIntoShares) {
  const std::string text = "1 2\n3 4\n";
  EXPECT_TRUE(splits_into_shares(write("g.txt", text), InputFormat::Auto));
  EXPECT_TRUE(splits_into_shares(write("g.el", text), InputFormat::EdgeList));
  EXPECT_FALSE(splits_into_shares(write_gz("g.txt.gz", text), InputFormat::Auto));
  EXPECT_FALSE(splits_into_shares(write_gz("g-no-suffix.txt", text), InputFormat::Auto));
  const std::string mm = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n";
  EXPECT_TRUE(splits_into_shares(write("g.mtx", mm), InputFormat::Auto));
  EXPECT_TRUE(splits_into_shares(write("banner.txt", mm), InputFormat::Auto));
  EXPECT_FALSE(splits_into_shares(write_gz("g.mtx.gz", mm), InputFormat::Auto));
  EXPECT_FALSE(splits_into_shares(path("missing.txt"), InputFormat::Auto));
  EXPECT_FALSE(splits_into_shares(dir_.string(), InputFormat::Auto));
  const std::string bv = std::filesystem::path(testing::graphs_dir()).parent_path().string() + "/webgraph/cnr-2000";
  if (std::filesystem::exists(bv + ".graph")) {
    EXPECT_TRUE(splits_into_shares(bv, InputFormat::Auto));  // by node ranges
    EXPECT_TRUE(splits_into_shares(bv + ".graph", InputFormat::WebGraph));
  }
}

// ---- format names and detection --------------------------------------------------------

TEST(InputFormatNames, ParseAndPrint) {
  for (InputFormat f : {InputFormat::Auto, InputFormat::EdgeList, InputFormat::MatrixMarket,
                        InputFormat::Bin32, InputFormat::Bin64}) {
    EXPECT_EQ(parse_input_format(to_string(f)), f);
  }
  EXPECT_EQ(to_string(InputFormat::MatrixMarket), "mtx");
  try {
    parse_input_format("csv");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_TRUE(Contains(e.what(), "'csv'"));
    EXPECT_TRUE(Contains(e.what(), "auto, edgelist, mtx, bin32, bin64"));
  }
}

TEST_F(EdgeReaders, DetectByExtension) {
  // Binary and .mtx names are decided by the name alone (the files need not exist).
  EXPECT_EQ(detect_input_format(path("x.mtx")), InputFormat::MatrixMarket);
  EXPECT_EQ(detect_input_format(path("x.MM.gz")), InputFormat::MatrixMarket);
  EXPECT_EQ(detect_input_format(path("x.bin32")), InputFormat::Bin32);
  EXPECT_EQ(detect_input_format(path("x.bin32.gz")), InputFormat::Bin32);
  EXPECT_EQ(detect_input_format(path("x.bin64")), InputFormat::Bin64);
  EXPECT_EQ(detect_input_format(path("x.bin")), InputFormat::Bin64);
  EXPECT_EQ(detect_input_format(write("x.tsv", "1 2\n")), InputFormat::EdgeList);
  EXPECT_EQ(detect_input_format(write("x.edges.gz", "")), InputFormat::EdgeList);
  // Text names are peeked at, so a missing one is reported.
  EXPECT_THROW(detect_input_format(path("missing.txt")), Error);
}

TEST_F(EdgeReaders, ForcedFormatOverridesTheName) {
  const std::string p = write("edges.dat", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n");
  EXPECT_EQ(read_all(p, InputFormat::MatrixMarket), (Edges{{1, 2}}));
  // Forced to an edge list, the banner is a comment and the size line an edge.
  EXPECT_EQ(read_all(p, InputFormat::EdgeList), (Edges{{2, 2}, {1, 2}}));
}

}  // namespace
}  // namespace tricount
