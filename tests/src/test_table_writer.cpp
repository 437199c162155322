// src/table_writer: the streaming table writer behind --per-vertex and --per-edge. Tables of
// uint64, uint32 and double columns, of several big chunks, in batches of every size (one
// row, a chunk boundary, several chunks at once) read back identical to what was appended,
// in text (every double read back to the same bits) and HDF5 (each column of its own type
// and width, unfiltered chunks no larger than the table), with the bytes counted; nothing
// under the name before commit(); a failed write (a full device) reported by append or
// finish, no temporary left, the error naming the table, not its temporary.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/resource.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "src/hdf5_datasets.hpp"
#include "src/hdf5_handle.hpp"
#include "src/table_writer.hpp"
#include "src/types.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount;
using namespace tricount::testing;

struct Rows {
  std::vector<std::uint64_t> a, b;
  std::vector<std::uint32_t> c;
  std::vector<double> x;
};

TableLayout layout(std::uint64_t rows_hint) {
  TableLayout l;
  l.option = "--table";
  l.columns = {{"a"}, {"b"}, {"c", TableType::u32}, {"x", TableType::f64}};
  l.text_header = "# a test table\n# a\tb\tc\tx\n";
  l.attributes = {{"format", "test-table"}};
  l.u64_attributes = {{"format_version", 7}};
  l.rows_hint = rows_hint;
  return l;
}

// Rows with every kind of value: 0, 2^64 - 1, 2^32 - 1, ratios with no short decimal form, 1, 0.5, tiny and huge.
Rows sample(std::size_t n) {
  Rows r;
  std::mt19937_64 rng(42);
  for (std::size_t i = 0; i < n; ++i) {
    r.a.push_back(i % 7 == 0 ? std::numeric_limits<std::uint64_t>::max() - i : rng());
    r.b.push_back(i % 3 == 0 ? 0 : i);
    r.c.push_back(i % 5 == 0 ? std::numeric_limits<std::uint32_t>::max() - static_cast<std::uint32_t>(i)
                  : i % 5 == 1 ? 0
                               : static_cast<std::uint32_t>(rng()));
    const double special[] = {0.0, 1.0, 0.5, 2.0 / 3.0, 1e-300, 1.7976931348623157e308, 5e-324};
    r.x.push_back(i % 11 < 7 ? special[i % 11] : static_cast<double>(rng() >> 11) / static_cast<double>(rng() | 1));
  }
  return r;
}

// Appends `rows` in batches of the given sizes (cycled), then finishes and commits.
void write_table(const std::string& path, const Rows& rows, const std::vector<std::size_t>& sizes, unsigned threads) {
  fs::remove(path);  // an earlier round's table
  TableWriter w(path, layout(rows.a.size()), threads);
  std::size_t at = 0;
  for (std::size_t k = 0; at < rows.a.size(); ++k) {
    const std::size_t n = std::min(sizes[k % sizes.size()], rows.a.size() - at);
    const auto part = [&](const auto& v) { return std::vector(v.begin() + at, v.begin() + at + n); };
    w.append({part(rows.a), part(rows.b), part(rows.c), part(rows.x)});
    at += n;
  }
  EXPECT_FALSE(fs::exists(path)) << "under its name before commit";
  w.finish();
  EXPECT_EQ(w.rows(), rows.a.size());
  EXPECT_FALSE(fs::exists(path)) << "under its name before commit";
  const std::string temp = w.write_path();
  w.commit({{{"rows", rows.a.size()}}, {{"mean", 0.25}}});
  // Text: the file's bytes; HDF5: the values' (8 + 8 + 4 + 8 per row).
  if (table_is_text(path)) {
    EXPECT_EQ(w.bytes(), fs::file_size(path));
  } else {
    EXPECT_EQ(w.bytes(), 28 * rows.a.size());
  }
  EXPECT_FALSE(fs::exists(temp));
}

Rows read_text(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "# a test table");
  std::getline(in, line);
  EXPECT_EQ(line, "# a\tb\tc\tx");
  Rows r;
  while (std::getline(in, line)) {
    // strtoull and strtod: exact parsers, independent of std::to_chars.
    char* end = nullptr;
    r.a.push_back(std::strtoull(line.c_str(), &end, 10));
    EXPECT_EQ(*end, '\t') << line;
    r.b.push_back(std::strtoull(end + 1, &end, 10));
    EXPECT_EQ(*end, '\t') << line;
    const std::uint64_t c = std::strtoull(end + 1, &end, 10);
    EXPECT_LE(c, std::numeric_limits<std::uint32_t>::max()) << line;
    r.c.push_back(static_cast<std::uint32_t>(c));
    EXPECT_EQ(*end, '\t') << line;
    r.x.push_back(std::strtod(end + 1, &end));
    EXPECT_EQ(*end, '\0') << line;
  }
  return r;
}

Rows read_hdf5(const std::string& path) {
  Hdf5Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  EXPECT_TRUE(f.valid()) << path;
  Rows r;
  r.a = read_whole_dataset<std::uint64_t>(f.get(), "a", H5T_NATIVE_UINT64, path);
  r.b = read_whole_dataset<std::uint64_t>(f.get(), "b", H5T_NATIVE_UINT64, path);
  r.c = read_whole_dataset<std::uint32_t>(f.get(), "c", H5T_NATIVE_UINT32, path);
  r.x = read_whole_dataset<double>(f.get(), "x", H5T_NATIVE_DOUBLE, path);
  // Each column stored as its type (uint32 in 4 bytes); unfiltered chunks, none larger than
  // the table.
  const std::pair<const char*, H5T_class_t> types[] = {{"a", H5T_INTEGER}, {"b", H5T_INTEGER}, {"c", H5T_INTEGER}, {"x", H5T_FLOAT}};
  for (const auto& [name, type_class] : types) {
    Hdf5Handle set(H5Dopen2(f.get(), name, H5P_DEFAULT), H5Dclose);
    Hdf5Handle type(H5Dget_type(set.get()), H5Tclose);
    EXPECT_EQ(H5Tget_class(type.get()), type_class) << name;
    EXPECT_EQ(H5Tget_size(type.get()), std::string(name) == "c" ? 4u : 8u) << name;
    if (type_class == H5T_INTEGER) {
      EXPECT_EQ(H5Tget_sign(type.get()), H5T_SGN_NONE) << name;
    }
    Hdf5Handle dcpl(H5Dget_create_plist(set.get()), H5Pclose);
    EXPECT_EQ(H5Pget_layout(dcpl.get()), H5D_CHUNKED) << name;
    EXPECT_EQ(H5Pget_nfilters(dcpl.get()), 0) << name;
    hsize_t chunk[1] = {0};
    H5Pget_chunk(dcpl.get(), 1, chunk);
    EXPECT_LE(chunk[0], std::max<std::uint64_t>(r.a.size(), 1)) << name;
  }
  return r;
}

void expect_same(const Rows& got, const Rows& want) {
  ASSERT_EQ(got.a.size(), want.a.size());
  EXPECT_EQ(got.a, want.a);
  EXPECT_EQ(got.b, want.b);
  EXPECT_EQ(got.c, want.c);
  for (std::size_t i = 0; i < want.x.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint64_t>(got.x[i]), std::bit_cast<std::uint64_t>(want.x[i])) << "row " << i << ": " << want.x[i];
}

TEST(TableWriter, ManyChunksInBatchesOfEverySizeReadBackIdentical) {
  TempDir dir;
  // 600,000 rows: more than two of the largest HDF5 chunks (2^18 rows), and text pieces for
  // several formatting threads; batches of one row, of a chunk, of several chunks.
  const Rows rows = sample(600000);
  const std::vector<std::size_t> sizes = {1, 262144, 7, 300000, 65535};
  for (unsigned threads : {1u, 3u}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    write_table(dir.file("t.tsv"), rows, sizes, threads);
    expect_same(read_text(dir.file("t.tsv")), rows);
    write_table(dir.file("t.h5"), rows, sizes, threads);
    expect_same(read_hdf5(dir.file("t.h5")), rows);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator{}), 2) << "a temporary was left";
  }
}

TEST(TableWriter, SmallAndEmptyTables) {
  TempDir dir;
  for (std::size_t n : {0, 1, 5}) {
    const Rows rows = sample(n);
    write_table(dir.file("s.tsv"), rows, {2}, 2);
    expect_same(read_text(dir.file("s.tsv")), rows);
    write_table(dir.file("s.h5"), rows, {2}, 2);
    expect_same(read_hdf5(dir.file("s.h5")), rows);
  }
}

TEST(TableWriter, AnUncommittedTableLeavesNothing) {
  TempDir dir;
  const Rows rows = sample(1000);
  for (const char* name : {"u.tsv", "u.h5"}) {
    {
      TableWriter w(dir.file(name), layout(1000), 2);
      w.append({rows.a, rows.b, rows.c, rows.x});
      w.finish();
    }
    EXPECT_TRUE(fs::is_empty(dir.path())) << name;
  }
}

// A column of another type than the layout's (uint64 values for the uint32 column) is an
// error, not a silent conversion; the table is lost.
TEST(TableWriter, ABatchOfTheWrongColumnTypeIsRefused) {
  TempDir dir;
  const Rows rows = sample(10);
  for (const char* name : {"w.tsv", "w.h5"}) {
    std::string error;
    try {
      TableWriter w(dir.file(name), layout(10), 1);
      w.append({rows.a, rows.b, rows.b, rows.x});
      w.finish();
    } catch (const Error& e) {
      error = e.what();
    }
    EXPECT_NE(error.find("column 'c'"), std::string::npos) << name << ": " << error;
    EXPECT_TRUE(fs::is_empty(dir.path())) << name;
  }
}

// HDF5 columns appended in groups (the first two ahead, in batches of other sizes than the
// last two's) read back as the rows appended whole, the last two's batches reused once
// written; columns left of unequal lengths are an
// error at finish(), with no file; a text table takes whole rows only.
TEST(TableWriter, ColumnsAppendedInGroupsReadBackAsRows) {
  TempDir dir;
  const Rows rows = sample(700000);
  const std::string path = dir.file("g.h5");
  {
    TableWriter w(path, layout(rows.a.size()), 2);
    const auto part = [&](const auto& v, std::size_t at, std::size_t n) { return std::vector(v.begin() + at, v.begin() + at + n); };
    for (std::size_t at = 0; at < rows.a.size(); at += 300000) {
      const std::size_t n = std::min<std::size_t>(300000, rows.a.size() - at);
      w.append_columns(0, {part(rows.a, at, n), part(rows.b, at, n)});
    }
    int reused = 0;
    for (std::size_t at = 0; at < rows.a.size(); at += 65537) {
      const std::size_t n = std::min<std::size_t>(65537, rows.a.size() - at);
      TableBatch spare = w.take_spare(2);  // a written batch of these columns, or none yet
      EXPECT_TRUE(spare.empty() || spare.size() == 2);
      reused += !spare.empty();
      w.append_columns(2, {part(rows.c, at, n), part(rows.x, at, n)});
    }
    // The first columns' written batches (never taken) made way for these: with two queued
    // at most, the fourth append finds the first written.
    EXPECT_GT(reused, 0);
    w.finish();
    EXPECT_EQ(w.rows(), rows.a.size());
    EXPECT_EQ(w.bytes(), 28 * rows.a.size());
    w.commit();
  }
  expect_same(read_hdf5(path), rows);

  std::string error;
  try {
    TableWriter w(dir.file("short.h5"), layout(10), 1);
    w.append_columns(0, {std::vector<std::uint64_t>(10), std::vector<std::uint64_t>(10)});
    w.append_columns(2, {std::vector<std::uint32_t>(9), std::vector<double>(9)});
    w.finish();
  } catch (const Error& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("column 'c' has 9 rows where 'a' has 10"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(dir.file("short.h5")));

  TableWriter text(dir.file("t.tsv"), layout(10), 1);
  EXPECT_THROW(text.append_columns(2, {std::vector<std::uint32_t>(1), std::vector<double>(1)}), Error);
}

TEST(TableWriter, AFailedWriteIsReportedByAppendOrFinish) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TempDir dir;
  const std::string full = dir.file("full.tsv");  // a device: written in place
  fs::create_symlink("/dev/full", full);
  const Rows rows = sample(100000);
  std::string error;
  try {
    TableWriter w(full, layout(0), 2);
    for (int k = 0; k < 20; ++k) w.append({rows.a, rows.b, rows.c, rows.x});
    w.finish();
  } catch (const Error& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("cannot write --table '" + full + "'"), std::string::npos) << error;
}

}  // namespace

// A failed write names the table as the user gave it, never its temporary (gone by the time
// the message is read; HDF5 tables named it), with the error and where to free space: every
// output's message (src/output_file). Text and HDF5, past a file size limit (EFBIG) as on a
// full disk; no temporary left.
TEST(TableWriter, AFailedWriteNamesTheTableNotItsTemporary) {
  struct Limit {  // RLIMIT_FSIZE of 256 KiB, SIGXFSZ ignored (EFBIG instead), both restored
    struct rlimit old {};
    void (*old_handler)(int) = SIG_DFL;
    bool set = false;
    Limit() {
      if (::getrlimit(RLIMIT_FSIZE, &old) != 0) return;
      struct rlimit small = old;
      small.rlim_cur = std::min<rlim_t>(256 << 10, old.rlim_max);
      old_handler = ::signal(SIGXFSZ, SIG_IGN);
      set = ::setrlimit(RLIMIT_FSIZE, &small) == 0;
    }
    ~Limit() {
      ::setrlimit(RLIMIT_FSIZE, &old);
      ::signal(SIGXFSZ, old_handler);
    }
  } limit;
  ASSERT_TRUE(limit.set);
  // As every program does (cli::run_main): HDF5 keeps a file whose close failed, and closing
  // it again at exit crashed.
  H5dont_atexit();
  TempDir dir;
  const Rows rows = sample(100000);
  for (const std::string name : {"t.h5", "t.tsv"}) {
    SCOPED_TRACE(name);
    const std::string path = dir.file(name);
    std::string error;
    try {
      TableWriter w(path, layout(4 * rows.a.size()), 2);
      for (int k = 0; k < 4; ++k) w.append({rows.a, rows.b, rows.c, rows.x});
      w.finish();
      w.commit();
    } catch (const Error& e) {
      error = e.what();
    }
    EXPECT_NE(error.find("cannot write --table '" + path + "': File too large (disk full or file size limit: free space in '" +
                         dir.path() + "', the output's folder)"),
              std::string::npos) << error;
    EXPECT_EQ(error.find(".tmp."), std::string::npos) << error;
    EXPECT_TRUE(fs::is_empty(dir.path())) << "a temporary was left";
  }
}
