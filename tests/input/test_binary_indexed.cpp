// An uncompressed bin32/bin64 file gives its edges by index (EdgeSource::indexed), so that the
// partitioner's read stage preads it on all its threads (issue 30): any range, from several
// threads at once, is the stream's edges; gzip and text have no index; a file cut short after
// it was opened is an error naming it.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "input/edge_source.hpp"
#include "src/types.hpp"
#include "tests/test_support.hpp"

using namespace tricount;

namespace {

std::vector<RawEdge> some_edges(std::size_t n, std::uint64_t max_id, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<RawEdge> edges(n);
  auto id = [&] { return max_id == ~std::uint64_t{0} ? rng() : rng() % (max_id + 1); };
  for (RawEdge& e : edges) e = {id(), id()};
  if (n > 1) edges[1] = {max_id, 0};
  return edges;
}

std::string write_binary(const std::string& path, const std::vector<RawEdge>& edges, unsigned word_bytes) {
  std::string bytes;
  for (const RawEdge& e : edges)
    for (std::uint64_t id : {e.u, e.v})
      for (unsigned b = 0; b < word_bytes; ++b) bytes.push_back(static_cast<char>(id >> (8 * b)));
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::vector<RawEdge> stream_of(EdgeSource& source) {
  std::vector<RawEdge> all, batch;
  while (source.next_batch(batch, 1000)) all.insert(all.end(), batch.begin(), batch.end());
  return all;
}

}  // namespace

TEST(BinaryIndexed, AnyRangeOnAnyThreadIsTheStreamsEdges) {
  tricount::testing::TempDir dir;
  for (unsigned word : {4u, 8u}) {
    SCOPED_TRACE("word bytes " + std::to_string(word));
    const std::vector<RawEdge> edges = some_edges(30011, word == 4 ? 0xFFFFFFFFu : ~std::uint64_t{0}, word);
    const std::string path = write_binary(dir.file(word == 4 ? "g.bin32" : "g.bin64"), edges, word);
    auto source = open_edge_file(path, InputFormat::Auto);
    const IndexedEdges* indexed = source->indexed();
    ASSERT_NE(indexed, nullptr);
    EXPECT_EQ(indexed->edge_count(), edges.size());
    std::vector<RawEdge> got(edges.size());
    // Ranges of odd sizes in any order, from four threads at once.
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (std::uint64_t first = t * 997; first < edges.size(); first += 4 * 997) {
          const std::uint64_t n = std::min<std::uint64_t>(997, edges.size() - first);
          indexed->edges_at(first, n, got.data() + first);
        }
      });
    for (std::thread& th : threads) th.join();
    EXPECT_TRUE(got == edges);
    RawEdge one;
    indexed->edges_at(edges.size() - 1, 1, &one);
    EXPECT_EQ(one, edges.back());
    indexed->edges_at(edges.size(), 0, &one);  // an empty range at the end
    // The stream itself is unchanged.
    EXPECT_TRUE(stream_of(*source) == edges);
  }
}

TEST(BinaryIndexed, GzipTextAndEmptyFiles) {
  tricount::testing::TempDir dir;
  const std::vector<RawEdge> edges = some_edges(100, 1000, 7);
  const std::string plain = write_binary(dir.file("g.bin64"), edges, 8);
  std::ifstream in(plain, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string gz = dir.file("g.bin64.gz");
  gzFile f = ::gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(::gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
  ASSERT_EQ(::gzclose(f), Z_OK);
  EXPECT_EQ(open_edge_file(gz, InputFormat::Auto)->indexed(), nullptr);
  std::ofstream(dir.file("g.txt")) << "1 2\n";
  EXPECT_EQ(open_edge_file(dir.file("g.txt"), InputFormat::Auto)->indexed(), nullptr);
  std::ofstream(dir.file("empty.bin32")).close();
  auto empty = open_edge_file(dir.file("empty.bin32"), InputFormat::Auto);
  ASSERT_NE(empty->indexed(), nullptr);
  EXPECT_EQ(empty->indexed()->edge_count(), 0u);
}

TEST(BinaryIndexed, AFileCutShortAfterOpeningIsAnErrorNamingIt) {
  tricount::testing::TempDir dir;
  const std::string path = write_binary(dir.file("g.bin64"), some_edges(1000, 1000, 3), 8);
  auto source = open_edge_file(path, InputFormat::Auto);
  ASSERT_NE(source->indexed(), nullptr);
  std::filesystem::resize_file(path, 16 * 600);
  std::vector<RawEdge> out(500);
  source->indexed()->edges_at(0, 500, out.data());  // still there
  try {
    source->indexed()->edges_at(500, 500, out.data());
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("changed while being read"), std::string::npos) << what;
  }
}
