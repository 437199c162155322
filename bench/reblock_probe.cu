// Issue 28 probe: re-blocking an n-part file into n' = n / g parts on the GPU, with the kernels
// tricount-count --count-parts runs (worker/cuda/reblock.cuh). With n' parts,
// class I of n' is the union of the g classes i = I + a n' of n (a = 0 .. g-1), and a vertex
// x = l n + i has the n'-local id l g + a; so block P'(I, K) is the g x g blocks P(i_a, k_b)
// with rows interleaved and each row the merge of g sorted lists, neighbour m of P(i_a, k_b)
// becoming m g + b. Counting P' costs what an n'-part file costs (bench/RESULTS.md, issue 28
// probe): the question here is what the merge costs on the device.
//
//   reblock_probe FILE_N FILE_N' [REPS]   uploads FILE_N's blocks, re-blocks them into n'
//   parts REPS times (CUDA events around the two kernels and the scan), checks every P'
//   against FILE_N''s own block byte for byte, and prints "REBLOCK {json}".
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "src/block_format.hpp"
#include "worker/cuda/cuda_check.cuh"
#include "worker/cuda/reblock.cuh"

namespace tricount {
namespace {

using cuda::CsrView;
using cuda::DeviceBuffer;
using cuda::ReblockShape;

int run(int argc, char** argv) {
  const BlockFileReader fine(argv[1]), coarse(argv[2]);
  const int reps = argc > 3 ? std::atoi(argv[3]) : 5;
  const std::uint32_t n = fine.header().parts, n2 = coarse.header().parts;
  if (n % n2 != 0 || fine.header().vertices != coarse.header().vertices)
    throw Error("the second file's parts must divide the first's, over the same graph");
  const std::uint32_t g = n / n2;
  const std::uint64_t vertices = fine.header().vertices;
  // 1. Every fine block on the device.
  std::vector<DeviceBuffer<eoff_t>> offs;
  std::vector<DeviceBuffer<vid_t>> nbrs;
  std::vector<CsrView> blocks(std::size_t(n) * n);
  std::uint64_t bytes = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t k = 0; k < n; ++k) {
      const CsrBlock b = fine.read_block({i, k}, 16);
      offs.emplace_back(b.offsets.size());
      nbrs.emplace_back(std::max<std::size_t>(b.neighbors.size(), 1));
      TRICOUNT_CUDA_TRY(cudaMemcpy(offs.back().get(), b.offsets.data(), b.offsets.size() * sizeof(eoff_t), cudaMemcpyHostToDevice));
      TRICOUNT_CUDA_TRY(cudaMemcpy(nbrs.back().get(), b.neighbors.data(), b.neighbors.size() * sizeof(vid_t), cudaMemcpyHostToDevice));
      blocks[std::size_t(i) * n + k] = {offs.back().get(), nbrs.back().get()};
      bytes += b.bytes();
    }
  // 2. Re-block into every P'(I, K), REPS times, timed on the device.
  cudaEvent_t start, stop;
  TRICOUNT_CUDA_TRY(cudaEventCreate(&start));
  TRICOUNT_CUDA_TRY(cudaEventCreate(&stop));
  std::vector<float> times;
  bool same = true;
  std::uint64_t edges = 0;
  for (int rep = 0; rep < reps + 1; ++rep) {
    float total_ms = 0;
    for (std::uint32_t I = 0; I < n2; ++I)
      for (std::uint32_t K = 0; K < n2; ++K) {
        std::vector<CsrView> group(std::size_t(g) * g);
        for (std::uint32_t a = 0; a < g; ++a)
          for (std::uint32_t b = 0; b < g; ++b) group[a * g + b] = blocks[std::size_t(I + a * n2) * n + (K + b * n2)];
        DeviceBuffer<CsrView> d_group(group.size());
        TRICOUNT_CUDA_TRY(cudaMemcpy(d_group.get(), group.data(), group.size() * sizeof(CsrView), cudaMemcpyHostToDevice));
        const std::uint64_t rows = rows_in_class(vertices, n2, I);
        std::uint64_t nnz = 0;
        for (std::uint32_t a = 0; a < g; ++a)
          for (std::uint32_t b = 0; b < g; ++b) nnz += fine.block_nnz({I + a * n2, K + b * n2});
        DeviceBuffer<eoff_t> out_off(rows + 1);
        DeviceBuffer<vid_t> out_nbr(std::max<std::uint64_t>(nnz, 1));
        std::size_t temp_bytes = 0;
        TRICOUNT_CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, out_off.get(), out_off.get(), rows + 1));
        DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
        TRICOUNT_CUDA_TRY(cudaMemset(out_off.get(), 0, sizeof(eoff_t)));
        TRICOUNT_CUDA_TRY(cudaEventRecord(start));
        DeviceBuffer<ReblockShape> shape(1);
        TRICOUNT_CUDA_TRY(cudaMemset(shape.get(), 0, sizeof(ReblockShape)));
        if (rows) {
          cuda::reblock_degrees<<<(rows + cuda::kReblockThreads - 1) / cuda::kReblockThreads, cuda::kReblockThreads>>>(
              d_group.get(), g, rows, out_off.get(), shape.get());
          TRICOUNT_CUDA_CHECK_LAUNCH("reblock_degrees");
          TRICOUNT_CUDA_TRY(cub::DeviceScan::InclusiveSum(temp.get(), temp_bytes, out_off.get(), out_off.get(), rows + 1));
          cuda::reblock_scatter<<<(rows + cuda::kReblockThreads - 1) / cuda::kReblockThreads, cuda::kReblockThreads>>>(
              d_group.get(), g, rows, out_off.get(), out_nbr.get());
          TRICOUNT_CUDA_CHECK_LAUNCH("reblock_scatter");
        }
        TRICOUNT_CUDA_TRY(cudaEventRecord(stop));
        TRICOUNT_CUDA_TRY(cudaEventSynchronize(stop));
        float ms = 0;
        TRICOUNT_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
        total_ms += ms;
        if (rep == 0) {  // 3. The first round checked against the n'-part file's block.
          const CsrBlock want = coarse.read_block({I, K}, 16);
          std::vector<eoff_t> got_off(rows + 1);
          std::vector<vid_t> got_nbr(nnz);
          TRICOUNT_CUDA_TRY(cudaMemcpy(got_off.data(), out_off.get(), got_off.size() * sizeof(eoff_t), cudaMemcpyDeviceToHost));
          TRICOUNT_CUDA_TRY(cudaMemcpy(got_nbr.data(), out_nbr.get(), got_nbr.size() * sizeof(vid_t), cudaMemcpyDeviceToHost));
          same = same && want.rows == rows && std::equal(got_off.begin(), got_off.end(), want.offsets.begin(), want.offsets.end()) &&
                 std::equal(got_nbr.begin(), got_nbr.end(), want.neighbors.begin(), want.neighbors.end());
          edges += nnz;
        }
      }
    if (rep > 0) times.push_back(total_ms);
  }
  std::sort(times.begin(), times.end());
  std::printf("REBLOCK {\"file\": \"%s\", \"parts\": %u, \"to_parts\": %u, \"edges\": %llu, \"device_bytes\": %llu, "
              "\"reblock_ms_median\": %.3f, \"reblock_ms_best\": %.3f, \"same_as_file\": %s}\n",
              argv[1], n, n2, (unsigned long long)edges, (unsigned long long)bytes, times.empty() ? 0.0 : times[times.size() / 2],
              times.empty() ? 0.0 : times.front(), same ? "true" : "false");
  return same ? 0 : 1;
}

}  // namespace
}  // namespace tricount

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: reblock_probe FILE_N FILE_N' [REPS]\n");
    return 2;
  }
  try {
    return tricount::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reblock_probe: error: %s\n", e.what());
    return 1;
  }
}
