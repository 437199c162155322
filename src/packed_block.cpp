// The packed encoding's coder and decoder (packed_block.hpp has the layout).
#include "src/packed_block.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <utility>

#include "src/threads.hpp"

namespace tricount {
namespace {

unsigned width_of(std::uint32_t x) { return x ? 32 - static_cast<unsigned>(__builtin_clz(x)) : 0; }
std::uint64_t runs_of(std::uint64_t values) { return (values + kPackedRun - 1) / kPackedRun; }

// Appends `count` values in runs: a width byte each to `widths`, the bits to `data`.
void pack_runs(const std::vector<std::uint32_t>& v, std::vector<std::uint8_t>& widths, std::vector<std::uint32_t>& data) {
  for (std::uint64_t at = 0; at < v.size(); at += kPackedRun) {
    const std::uint64_t k = std::min<std::uint64_t>(kPackedRun, v.size() - at);
    std::uint32_t all = 0;
    for (std::uint64_t t = 0; t < k; ++t) all |= v[at + t];
    const unsigned w = width_of(all);
    widths.push_back(static_cast<std::uint8_t>(w));
    const std::size_t base = data.size();
    data.resize(base + packed_run_words(k, w), 0);
    if (w == 0) continue;
    for (std::uint64_t t = 0; t < k; ++t) {
      const std::uint64_t bit = t * w;
      const std::size_t word = base + bit / 32;
      const unsigned shift = bit % 32;
      data[word] |= v[at + t] << shift;
      if (shift + w > 32) data[word + 1] |= v[at + t] >> (32 - shift);
    }
  }
}

// Threads' ranges of groups of about equal work, a neighbour and a row counted 1 each:
// boundary t is the first group whose work before it reaches t / threads of the whole (in
// degree order the hub rows are the last groups, and equal numbers of groups left one
// thread with most of the neighbours). work_before(g) must not decrease.
template <class WorkBefore>
std::vector<std::uint64_t> balanced_groups(std::uint64_t groups, unsigned threads, WorkBefore work_before) {
  std::vector<std::uint64_t> bound(threads + 1, groups);
  bound[0] = 0;
  const std::uint64_t total = work_before(groups);
  for (unsigned t = 1; t < threads; ++t) {
    const std::uint64_t goal = total / threads * t + total % threads * t / threads;
    std::uint64_t lo = bound[t - 1], hi = groups;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (work_before(mid) < goal) lo = mid + 1;
      else hi = mid;
    }
    bound[t] = lo;
  }
  return bound;
}

// 32 values of width W from W words.
// (packed_run_value with the width a constant: its shifts and mask fold into each instance).
template <unsigned W>
void unpack_full_run(const std::uint32_t* in, std::uint32_t* out) {
  for (unsigned t = 0; t < kPackedRun; ++t) out[t] = packed_run_value(in, t, W);
}
template <unsigned... W>
constexpr auto full_run_table(std::integer_sequence<unsigned, W...>) {
  return std::array<void (*)(const std::uint32_t*, std::uint32_t*), sizeof...(W)>{&unpack_full_run<W>...};
}
constexpr auto kFullRun = full_run_table(std::make_integer_sequence<unsigned, 33>{});

// One sequence of a group, read in order: a run at a time is decoded into buf. The widths
// were checked (at most 32) and the runs' words lie inside the group.
struct Cursor {
  const std::uint32_t* run;      // the next run's words
  const std::uint32_t* widths;   // the group's width bytes
  std::uint64_t width_index;     // the next run's width
  std::uint64_t left;            // values from the next run on
  std::uint32_t buf[kPackedRun];
  unsigned at = 0, have = 0;
  Cursor(const std::uint32_t* first_run, const std::uint32_t* group_widths, std::uint64_t first_width, std::uint64_t values)
      : run(first_run), widths(group_widths), width_index(first_width), left(values) {}
  bool done() const { return at == have && left == 0; }
  __attribute__((always_inline)) bool next(std::uint32_t& v) {
    if (at == have && !refill()) return false;
    v = buf[at++];
    return true;
  }
  bool refill() {
    if (left == 0) return false;
    const unsigned wd = (widths[width_index / 4] >> (8 * (width_index % 4))) & 0xFFu;
    const unsigned k = static_cast<unsigned>(std::min<std::uint64_t>(kPackedRun, left));
    if (k == kPackedRun) kFullRun[wd](run, buf);
    else
      for (unsigned t = 0; t < k; ++t) buf[t] = packed_run_value(run, t, wd);
    run += packed_run_words(k, wd);
    left -= k;
    ++width_index;
    at = 0;
    have = k;
    return true;
  }
};

struct GroupScratch {
  std::vector<std::uint32_t> lengths, firsts, gaps, data;
  std::vector<std::uint8_t> widths;
};

void pack_group(const CsrSpan& b, std::uint64_t g, GroupScratch& s, std::vector<std::uint32_t>& out) {
  const std::uint64_t r0 = g * kPackedGroupRows, r1 = std::min(b.rows, r0 + kPackedGroupRows);
  s.lengths.clear(), s.firsts.clear(), s.gaps.clear(), s.data.clear(), s.widths.clear();
  for (std::uint64_t r = r0; r < r1; ++r) {
    const eoff_t begin = b.offsets[r], end = b.offsets[r + 1];
    if (end < begin || end - begin > 0xFFFFFFFFu)
      throw Error("block " + block_name(b.id) + ": row " + std::to_string(r) + " cannot be packed (offsets out of order)");
    s.lengths.push_back(static_cast<std::uint32_t>(end - begin));
    if (begin == end) continue;
    s.firsts.push_back(b.neighbors[begin]);
    for (eoff_t k = begin + 1; k < end; ++k) {
      if (b.neighbors[k] <= b.neighbors[k - 1])
        throw Error("block " + block_name(b.id) + ": row " + std::to_string(r) +
                    " cannot be packed (neighbours not strictly increasing)");
      s.gaps.push_back(b.neighbors[k] - b.neighbors[k - 1] - 1);
    }
  }
  pack_runs(s.lengths, s.widths, s.data);
  pack_runs(s.firsts, s.widths, s.data);
  pack_runs(s.gaps, s.widths, s.data);
  out.push_back(static_cast<std::uint32_t>(s.firsts.size()));
  const std::size_t header = out.size();
  out.resize(header + (s.widths.size() + 3) / 4, 0);
  for (std::size_t k = 0; k < s.widths.size(); ++k) out[header + k / 4] |= std::uint32_t{s.widths[k]} << (8 * (k % 4));
  out.insert(out.end(), s.data.begin(), s.data.end());
}

}  // namespace

PackedBlock pack_groups(const CsrSpan& b, std::uint64_t first, std::uint64_t last, unsigned threads) {
  const std::uint64_t groups = last - first;
  PackedBlock p;
  p.index.assign(2 * (groups + 1), 0);
  // Each thread packs a range of groups into its own words; the ranges are then laid end to end.
  const unsigned t_count = static_cast<unsigned>(std::clamp<std::uint64_t>(groups / 64, 1, std::max(1u, threads)));
  const auto work_at = [&](std::uint64_t g) {
    const std::uint64_t row = std::min(b.rows, (first + g) * kPackedGroupRows);
    return b.offsets[row] + row;
  };
  const std::uint64_t work_first = work_at(0);
  const std::vector<std::uint64_t> bound =
      balanced_groups(groups, t_count, [&](std::uint64_t g) { return work_at(g) - work_first; });
  std::vector<std::vector<std::uint32_t>> parts(t_count);
  parallel_for(t_count, [&](unsigned t) {
    std::vector<std::uint32_t>& out = parts[t];
    GroupScratch s;
    for (std::uint64_t g = bound[t]; g < bound[t + 1]; ++g) {
      p.index[2 * g] = out.size();  // within the range's words, made global below
      p.index[2 * g + 1] = b.offsets[(first + g) * kPackedGroupRows];
      pack_group(b, first + g, s, out);
    }
  });
  std::vector<std::uint64_t> base(t_count + 1, 0);
  for (unsigned t = 0; t < t_count; ++t) base[t + 1] = base[t] + parts[t].size();
  for (unsigned t = 0; t < t_count; ++t)
    for (std::uint64_t g = bound[t]; g < bound[t + 1]; ++g) p.index[2 * g] += base[t];
  p.index[2 * groups] = base[t_count];
  p.index[2 * groups + 1] = b.offsets[std::min(b.rows, last * kPackedGroupRows)];
  p.words.resize(base[t_count]);
  parallel_for(t_count, [&](unsigned t) { std::copy(parts[t].begin(), parts[t].end(), p.words.begin() + base[t]); });
  return p;
}

PackedBlock pack_block(const CsrSpan& b, unsigned threads) { return pack_groups(b, 0, packed_groups(b.rows), threads); }

namespace {
Error corrupt_packed(const std::string& at, const std::string& what) {
  return Error(at + ": " + what + " (the file is corrupt: re-run tricount-partition)");
}
}  // namespace

void check_packed_index(const std::uint64_t* index, std::uint64_t rows, std::uint64_t word_count, std::uint64_t nnz,
                        const std::string& at) {
  const std::uint64_t groups = packed_groups(rows);
  if (index[0] != 0 || index[1] != 0) throw corrupt_packed(at, "the packed index does not start at 0");
  if (index[2 * groups] != word_count || index[2 * groups + 1] != nnz)
    throw corrupt_packed(at, "the packed index ends at word " + std::to_string(index[2 * groups]) + " and edge " +
                                 std::to_string(index[2 * groups + 1]) + ", not " + std::to_string(word_count) + " and " +
                                 std::to_string(nnz));
  for (std::uint64_t g = 0; g < groups; ++g) {
    if (index[2 * g + 2] < index[2 * g] || index[2 * g + 3] < index[2 * g + 1])
      throw corrupt_packed(at, "the packed index decreases at row group " + std::to_string(g));
    if (index[2 * g + 2] == index[2 * g]) throw corrupt_packed(at, "packed row group " + std::to_string(g) + " is empty");
  }
}

void unpack_block(const std::uint64_t* index, const std::uint32_t* words, std::uint64_t word_count, std::uint64_t nnz,
                  CsrBlock& out, const std::string& where, unsigned threads) {
  const std::uint64_t rows = out.rows, cols = out.cols, groups = packed_groups(rows);
  const std::string at = where + " block " + block_name(out.id);
  check_packed_index(index, rows, word_count, nnz, at);  // groups in order, inside the words and edges
  out.offsets.resize(rows + 1);
  out.neighbors.resize(nnz);
  out.offsets[rows] = nnz;
  // The lowest group's error, whichever thread finds it.
  std::mutex m;
  std::uint64_t bad_group = groups;
  std::string bad;
  const unsigned t_count = static_cast<unsigned>(std::clamp<std::uint64_t>(groups / 64, 1, std::max(1u, threads)));
  const std::vector<std::uint64_t> bound = balanced_groups(groups, t_count, [&](std::uint64_t g) {
    return index[2 * g + 1] + std::min(rows, g * kPackedGroupRows);
  });
  parallel_for(t_count, [&](unsigned t) {
    for (std::uint64_t g = bound[t]; g < bound[t + 1]; ++g) {
      const std::uint64_t r0 = g * kPackedGroupRows, r1 = std::min(rows, r0 + kPackedGroupRows), nrows = r1 - r0;
      const std::uint32_t* w = words + index[2 * g];
      const std::uint64_t available = index[2 * g + 2] - index[2 * g];
      const std::uint64_t e0 = index[2 * g + 1], edges = index[2 * g + 3] - e0;
      std::string error;
      [&] {
        const std::uint64_t nonempty = w[0];
        if (nonempty > nrows || nonempty > edges) return void(error = "has more non-empty rows than rows or edges");
        const std::uint64_t runs[3] = {runs_of(nrows), runs_of(nonempty), runs_of(edges - nonempty)};
        const std::uint64_t values[3] = {nrows, nonempty, edges - nonempty};
        const std::uint64_t width_count = runs[0] + runs[1] + runs[2], header = 1 + (width_count + 3) / 4;
        if (header > available) return void(error = "is shorter than its header");
        auto width = [&](std::uint64_t k) { return (w[1 + k / 4] >> (8 * (k % 4))) & 0xFFu; };
        // Where each sequence's runs start, and that they fill the group exactly.
        std::uint64_t data = header, k = 0;
        const std::uint32_t* start[3];
        for (int s = 0; s < 3; ++s) {
          start[s] = w + data;
          for (std::uint64_t r = 0; r < runs[s]; ++r, ++k) {
            if (width(k) > 32) return void(error = "has a run wider than 32 bits");
            data += packed_run_words(std::min<std::uint64_t>(kPackedRun, values[s] - r * kPackedRun), width(k));
          }
        }
        if (data != available)
          return void(error = "takes " + std::to_string(available) + " words, its runs " + std::to_string(data));
        // Each sequence is read in order through a cursor that decodes a run at a time.
        Cursor len{start[0], &w[1], 0, values[0]}, fst{start[1], &w[1], runs[0], values[1]},
            gap{start[2], &w[1], runs[0] + runs[1], values[2]};
        std::uint64_t edge = e0;
        for (std::uint64_t r = r0; r < r1; ++r) {
          std::uint32_t d = 0, first = 0;
          len.next(d);
          out.offsets[r] = edge;
          if (d == 0) continue;
          if (edge + d > e0 + edges || !fst.next(first)) return void(error = "holds more neighbours than its edges");
          std::uint64_t x = first;
          vid_t* row = out.neighbors.data() + edge;
          row[0] = static_cast<vid_t>(x);
          // The row's gaps, a decoded run's worth at a time.
          for (std::uint32_t k = 1; k < d;) {
            if (gap.at == gap.have && !gap.refill()) return void(error = "holds more neighbours than its gaps");
            const unsigned take = std::min<std::uint32_t>(d - k, gap.have - gap.at);
            for (unsigned q = 0; q < take; ++q) {
              x += std::uint64_t{gap.buf[gap.at + q]} + 1;
              row[k + q] = static_cast<vid_t>(x);
            }
            gap.at += take;
            k += take;
          }
          edge += d;
          // Neighbours ascend: the last is the largest.
          if (x >= cols)
            return void(error = "has neighbour " + std::to_string(x) + " but the block has " + std::to_string(cols) + " columns");
        }
        if (!fst.done() || !gap.done() || edge != e0 + edges) error = "holds fewer neighbours than its edges";
      }();
      if (!error.empty()) {
        std::lock_guard lock(m);
        if (g < bad_group) bad_group = g, bad = std::move(error);
        return;
      }
    }
  });
  if (bad_group < groups) throw corrupt_packed(at, "packed row group " + std::to_string(bad_group) + " " + bad);
}

}  // namespace tricount
