#include "worker/cuda/device_block_cache.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "src/threads.hpp"
#include "worker/cuda/reblock.cuh"
#include "worker/cuda/unpack.cuh"

namespace tricount::cuda {

namespace {

constexpr std::size_t kStagingBytes = std::size_t{32} << 20;       // per pinned staging buffer
constexpr std::uint64_t kReserveBytes = std::uint64_t{256} << 20;  // left free for the runtime

std::uint64_t view_bytes(const BlockView& v) { return (v.rows + 1) * sizeof(eoff_t) + v.nnz * sizeof(vid_t); }
// What crosses the link: a packed block's stored bytes, else its CSR.
std::uint64_t upload_bytes(const BlockView& v) {
  return v.packed() ? packed_stored_bytes(v.rows, v.packed_word_count) : view_bytes(v);
}

std::string mib(std::uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1 << 20));
  return buf;
}

// The task's blocks by role (hash, 1-hop, 2-hop), and for each role the earlier role
// holding the same block (same serial; same pointer when serial is 0), or -1.
struct Roles {
  std::array<const BlockView*, 3> views;
  std::array<int, 3> same_as = {-1, -1, -1};
  explicit Roles(const TaskBlocks& b) : views{&b.hash, &b.one_hop, &b.two_hop} {
    for (int r = 0; r < 3; ++r)
      for (int q = 0; q < r && same_as[r] < 0; ++q)
        if (views[q]->serial != 0 ? views[q]->serial == views[r]->serial
                                  : views[q]->offsets == views[r]->offsets && views[q]->packed_words == views[r]->packed_words)
          same_as[r] = q;
  }
  std::uint64_t distinct_bytes() const {
    std::uint64_t bytes = 0;
    for (int r = 0; r < 3; ++r)
      if (same_as[r] < 0) bytes += view_bytes(*views[r]);
    return bytes;
  }
};

}  // namespace

std::string block_label(const BlockView& v) {
  return "P(" + std::to_string(v.id.row_class) + "," + std::to_string(v.id.col_class) + ")";
}

DeviceBlockCache::DeviceBlockCache(int device, std::string device_name, std::uint64_t byte_cap, cudaStream_t stream,
                                   std::function<std::uint64_t()> working_bytes)
    : device_(device),
      device_name_(std::move(device_name)),
      byte_cap_(byte_cap),
      stream_(stream),
      working_bytes_(std::move(working_bytes)),
      staging_threads_(std::clamp(usable_cores() / 2, 1u, 8u)) {
  for (auto& e : staging_done_) e = std::make_unique<Event>(false);
  for (auto& b : staging_) b = PinnedBuffer(kStagingBytes);
  decode_error_.allocate(1);
  TRICOUNT_CUDA_TRY(cudaMemset(decode_error_.get(), 0, sizeof(unsigned)));
  TRICOUNT_CUDA_TRY(cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device_));
}

// Unchecked: a destructor has no one to tell, and the blocks' frees follow.
DeviceBlockCache::~DeviceBlockCache() { cudaStreamSynchronize(copy_stream_); }

DeviceTriple DeviceBlockCache::acquire(const TaskBlocks& b, std::uint64_t working_need, CountStats& stats, bool timed) {
  // 1. Which blocks are cached (a prefetched one waited for on the stream, its copy perhaps
  // still running); the others must be uploaded.
  running_.clear();
  const Roles roles(b);
  std::array<DeviceBlock*, 3> dev{};
  std::vector<const DeviceBlock*> keep;
  std::uint64_t missing_bytes = 0;
  for (int r = 0; r < 3; ++r) {
    if (roles.same_as[r] >= 0) continue;
    dev[r] = find(*roles.views[r]);
    if (dev[r] && dev[r]->ready) TRICOUNT_CUDA_TRY(cudaStreamWaitEvent(stream_, *dev[r]->ready, 0));
    if (dev[r]) keep.push_back(dev[r]);
    else missing_bytes += view_bytes(*roles.views[r]);
  }
  // 2. Room for them and for the working memory (which may reallocate all of itself).
  const std::uint64_t working = working_bytes_();
  const std::uint64_t working_grow = working_need > working ? working_need : 0;
  if (missing_bytes + working_grow > 0 && !make_room(missing_bytes + working_grow, keep)) throw_does_not_fit(b, working_need);

  // 3. The uploads, through the staging buffers.
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t copied = 0;
  for (int r = 0; r < 3; ++r) {
    if (roles.same_as[r] >= 0 || dev[r]) continue;
    const BlockView* v = roles.views[r];
    std::unique_ptr<DeviceBlock> d = upload_block(*v, stream_);
    if (!d) throw_does_not_fit(b, working_need);
    copied += upload_bytes(*v);
    dev[r] = d.get();
    keep.push_back(d.get());
    blocks_.push_back(std::move(d));
  }
  if (copied) {
    TRICOUNT_CUDA_TRY(cudaStreamSynchronize(stream_));
    if (timed) {
      stats.transfer_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      stats.bytes_transferred += copied;
    }
  }
  check_decoded();
  // 4. Shared roles, and the use clock for eviction.
  for (int r = 0; r < 3; ++r) {
    if (roles.same_as[r] >= 0) dev[r] = dev[roles.same_as[r]];
    dev[r]->last_use = ++use_clock_;
    running_.push_back(dev[r]);
  }
  return {dev[0]->view(), dev[1]->view(), dev[2]->view()};
}

const DeviceBlock& DeviceBlockCache::reblock(const BlockView& composite, std::vector<const DeviceBlock*> keep, CountStats& stats) {
  if (DeviceBlock* d = find(composite)) {
    if (d->ready) TRICOUNT_CUDA_TRY(cudaStreamWaitEvent(stream_, *d->ready, 0));
    d->last_use = ++use_clock_;
    return *d;
  }
  const std::uint32_t g = composite.group;
  auto does_not_fit = [&](std::uint64_t bytes) {
    throw Error("CUDA backend: count block " + block_label(composite) + " (--count-parts) needs its " +
                std::to_string(std::uint64_t(g) * g) + " file blocks and itself, " + mib(bytes) + ", on GPU " +
                std::to_string(device_) + " (" + device_name_ + "), which can hold " + mib(available() + cached_bytes()) +
                " of blocks beside the backend's working memory: give a larger --count-parts (a divisor of the file's parts), "
                "or leave it out");
  };
  std::uint64_t bytes = view_bytes(composite);
  for (std::uint32_t p = 0; p < g * g; ++p) bytes += view_bytes(composite.parts[p]);
  // 1. Its parts on the device: cached ones kept, the others uploaded.
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<CsrView> parts(std::size_t(g) * g);
  std::uint64_t copied = 0;
  for (std::uint32_t p = 0; p < g * g; ++p) {
    const BlockView& v = composite.parts[p];
    DeviceBlock* d = find(v);
    if (d && d->ready) TRICOUNT_CUDA_TRY(cudaStreamWaitEvent(stream_, *d->ready, 0));
    if (!d) {
      if (!make_room(view_bytes(v), keep)) does_not_fit(bytes);
      std::unique_ptr<DeviceBlock> u = upload_block(v, stream_);
      if (!u) does_not_fit(bytes);
      copied += upload_bytes(v);
      d = u.get();
      blocks_.push_back(std::move(u));
    }
    d->last_use = ++use_clock_;
    keep.push_back(d);
    parts[p] = d->view();
  }
  // 2. The count block, re-blocked from them.
  const std::uint64_t table_bytes = parts.size() * sizeof(CsrView) + sizeof(ReblockShape);
  if (!make_room(view_bytes(composite) + table_bytes, keep)) does_not_fit(bytes);
  auto m = std::make_unique<DeviceBlock>();
  m->serial = composite.serial;
  m->rows = composite.rows;
  m->cols = composite.cols;
  m->nnz = composite.nnz;
  if (!m->offsets.try_allocate(composite.rows + 1) || !m->neighbors.try_allocate(composite.nnz)) does_not_fit(bytes);
  DeviceBuffer<CsrView> table(parts.size());
  DeviceBuffer<ReblockShape> shape(1);
  TRICOUNT_CUDA_TRY(cudaMemcpyAsync(table.get(), parts.data(), parts.size() * sizeof(CsrView), cudaMemcpyHostToDevice, stream_));
  TRICOUNT_CUDA_TRY(cudaMemsetAsync(shape.get(), 0, sizeof(ReblockShape), stream_));
  TRICOUNT_CUDA_TRY(cudaMemsetAsync(m->offsets.get(), 0, sizeof(eoff_t), stream_));
  const std::uint64_t rows = composite.rows;
  if (rows > 0) {
    reblock_degrees<<<static_cast<unsigned>((rows + kReblockThreads - 1) / kReblockThreads), kReblockThreads, 0, stream_>>>(
        table.get(), g, rows, m->offsets.get(), shape.get());
    TRICOUNT_CUDA_CHECK_LAUNCH("reblock_degrees");
    std::size_t temp_bytes = 0;
    TRICOUNT_CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, m->offsets.get(), m->offsets.get(), rows + 1, stream_));
    DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
    TRICOUNT_CUDA_TRY(cub::DeviceScan::InclusiveSum(temp.get(), temp_bytes, m->offsets.get(), m->offsets.get(), rows + 1, stream_));
    reblock_scatter<<<static_cast<unsigned>((rows + kReblockThreads - 1) / kReblockThreads), kReblockThreads, 0, stream_>>>(
        table.get(), g, rows, m->offsets.get(), m->neighbors.get());
    TRICOUNT_CUDA_CHECK_LAUNCH("reblock_scatter");
    TRICOUNT_CUDA_TRY(cudaStreamSynchronize(stream_));  // before temp is freed
  }
  ReblockShape host{};
  TRICOUNT_CUDA_TRY(cudaMemcpyAsync(&host, shape.get(), sizeof host, cudaMemcpyDeviceToHost, stream_));
  TRICOUNT_CUDA_TRY(cudaStreamSynchronize(stream_));
  check_decoded();
  m->max_degree = static_cast<std::uint32_t>(host.max_degree);
  m->nonempty_rows = host.nonempty_rows;
  m->last_use = ++use_clock_;
  stats.transfer_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stats.bytes_transferred += copied;
  blocks_.push_back(std::move(m));
  return *blocks_.back();
}

void DeviceBlockCache::prefetch(const TaskBlocks& next, CountStats& stats) {
  // 1. The running task's blocks and the next task's cached ones stay; the others (with a
  // serial: one without is known by its task only) are to be copied.
  const Roles roles(next);
  std::vector<const DeviceBlock*> keep = running_;
  std::vector<const BlockView*> missing;
  for (int r = 0; r < 3; ++r) {
    const BlockView& v = *roles.views[r];
    if (roles.same_as[r] >= 0 || v.serial == 0) continue;
    if (const DeviceBlock* d = find(v)) keep.push_back(d);
    else if (!v.composite()) missing.push_back(&v);
    else  // a count block not yet re-blocked: its parts (reblock merges them when the task runs)
      for (std::uint32_t p = 0; p < v.group * v.group; ++p) {
        if (const DeviceBlock* d = find(v.parts[p])) keep.push_back(d);
        else if (std::find(missing.begin(), missing.end(), &v.parts[p]) == missing.end()) missing.push_back(&v.parts[p]);
      }
  }
  // 2. Their copies, queued on the copy stream, while they fit; acquire copies the rest,
  // evicting what it may.
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t copied = 0;
  for (const BlockView* m : missing) {
    const BlockView& v = *m;
    if (!make_room(view_bytes(v), keep)) break;
    std::unique_ptr<DeviceBlock> d = upload_block(v, copy_stream_);
    if (!d) break;
    d->ready = std::make_unique<Event>(false);
    TRICOUNT_CUDA_TRY(cudaEventRecord(*d->ready, copy_stream_));
    d->last_use = ++use_clock_;
    keep.push_back(d.get());
    blocks_.push_back(std::move(d));
    copied += upload_bytes(v);
  }
  if (!copied) return;
  stats.transfer_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stats.bytes_transferred += copied;
}

std::unique_ptr<DeviceBlock> DeviceBlockCache::upload_block(const BlockView& v, cudaStream_t stream) {
  auto d = std::make_unique<DeviceBlock>();
  d->serial = v.serial;
  d->rows = v.rows;
  d->cols = v.cols;
  d->nnz = v.nnz;
  if (!d->offsets.try_allocate(v.rows + 1) || !d->neighbors.try_allocate(v.nnz)) return nullptr;
  if (!v.packed()) {
    upload(d->offsets.get(), v.offsets, (v.rows + 1) * sizeof(eoff_t), stream);
    upload(d->neighbors.get(), v.neighbors, v.nnz * sizeof(vid_t), stream);
    return d;
  }
  // A packed block: its stored bytes into temporaries freed in stream order once decoded.
  const std::uint64_t entries = packed_index_entries(v.rows), groups = packed_groups(v.rows);
  std::uint64_t* index = nullptr;
  std::uint32_t* words = nullptr;
  auto allocate = [&](void** p, std::uint64_t bytes) {
    const cudaError_t err = cudaMallocAsync(p, std::max<std::uint64_t>(bytes, 4), stream);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      return false;
    }
    TRICOUNT_CUDA_TRY(err);
    return true;
  };
  if (!allocate(reinterpret_cast<void**>(&index), entries * sizeof(std::uint64_t))) return nullptr;
  if (!allocate(reinterpret_cast<void**>(&words), v.packed_word_count * sizeof(std::uint32_t))) {
    TRICOUNT_CUDA_TRY(cudaFreeAsync(index, stream));
    return nullptr;
  }
  upload(index, v.packed_index, entries * sizeof(std::uint64_t), stream);
  upload(words, v.packed_words, v.packed_word_count * sizeof(std::uint32_t), stream);
  UnpackParams p;
  p.index = index;
  p.words = words;
  p.rows = v.rows, p.cols = v.cols, p.nnz = v.nnz, p.groups = groups;
  p.offsets = d->offsets.get();
  p.neighbors = d->neighbors.get();
  p.error = decode_error_.get();
  const std::uint64_t warps_per_cta = kUnpackThreads / 32;
  const unsigned grid = static_cast<unsigned>(
      std::clamp<std::uint64_t>((groups + warps_per_cta - 1) / warps_per_cta, 1, std::uint64_t(multiprocessors_) * 16));
  unpack_groups<<<grid, kUnpackThreads, 0, stream>>>(p);
  TRICOUNT_CUDA_CHECK_LAUNCH("unpack_groups");
  TRICOUNT_CUDA_TRY(cudaFreeAsync(index, stream));
  TRICOUNT_CUDA_TRY(cudaFreeAsync(words, stream));
  decoded_.push_back(block_label(v));
  return d;
}

void DeviceBlockCache::preload(const std::vector<BlockView>& blocks, CountStats& stats) {
  // 1. The blocks not on the device yet, and whether they fit beside what is.
  std::vector<const BlockView*> missing;
  std::uint64_t need = 0, all = 0;
  for (const BlockView& v : blocks) {
    all += view_bytes(v);
    if (find(v)) continue;
    missing.push_back(&v);
    need += view_bytes(v);
  }
  auto does_not_fit = [&] {
    throw Error("CUDA backend: --schedule static: the " + std::to_string(blocks.size()) + " blocks of this worker's tasks need " +
                std::to_string(all) + " bytes (" + mib(all) + ") on GPU " + std::to_string(device_) + " (" + device_name_ +
                "), which can hold " + mib(available() + cached_bytes()) + " of blocks beside the backend's working memory: "
                "run more workers (each then holds fewer blocks), partition with more --parts (smaller blocks), or count "
                "with --schedule dynamic");
  };
  if (need > available()) does_not_fit();
  // 2. Their uploads, kept (the first evictions take the least recently used).
  const auto t0 = std::chrono::steady_clock::now();
  for (const BlockView* v : missing) {
    std::unique_ptr<DeviceBlock> d = upload_block(*v, stream_);
    if (!d) does_not_fit();
    d->last_use = ++use_clock_;
    blocks_.push_back(std::move(d));
  }
  TRICOUNT_CUDA_TRY(cudaStreamSynchronize(stream_));
  stats.transfer_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const BlockView* v : missing) stats.bytes_transferred += upload_bytes(*v);
  check_decoded();
}

void DeviceBlockCache::check_decoded() {
  if (decoded_.empty()) return;
  TRICOUNT_CUDA_TRY(cudaStreamSynchronize(copy_stream_));
  TRICOUNT_CUDA_TRY(cudaStreamSynchronize(stream_));
  unsigned error = 0;
  TRICOUNT_CUDA_TRY(cudaMemcpy(&error, decode_error_.get(), sizeof error, cudaMemcpyDeviceToHost));
  std::string blocks;
  for (const std::string& b : decoded_) blocks += (blocks.empty() ? "" : ", ") + b;
  decoded_.clear();
  if (error)
    throw Error("CUDA backend: a packed block among " + blocks + " does not decode (its rows, gaps and words disagree "
                "although its checksum matched): the file is corrupt or written by a faulty tricount-partition; re-run it");
}

void DeviceBlockCache::drop_unserialed() {
  running_.clear();
  std::erase_if(blocks_, [](const auto& d) { return d->serial == 0; });
}

DeviceBlock* DeviceBlockCache::find(const BlockView& v) {
  for (auto& d : blocks_)
    if (d->matches(v)) return d.get();
  return nullptr;
}

std::uint64_t DeviceBlockCache::cached_bytes() const {
  std::uint64_t s = 0;
  for (const auto& d : blocks_) s += d->bytes();
  return s;
}

std::uint64_t DeviceBlockCache::available() const {
  std::size_t free = 0, total = 0;
  TRICOUNT_CUDA_TRY(cudaMemGetInfo(&free, &total));
  std::uint64_t avail = free > kReserveBytes ? free - kReserveBytes : 0;
  if (byte_cap_) {
    const std::uint64_t used = cached_bytes() + working_bytes_();
    avail = std::min<std::uint64_t>(avail, byte_cap_ > used ? byte_cap_ - used : 0);
  }
  return avail;
}

// Evicts least recently used blocks outside `keep` until `bytes` can be allocated.
bool DeviceBlockCache::make_room(std::uint64_t bytes, const std::vector<const DeviceBlock*>& keep) {
  while (available() < bytes) {
    auto victim = blocks_.end();
    for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
      if (std::find(keep.begin(), keep.end(), it->get()) != keep.end()) continue;
      if (victim == blocks_.end() || (*it)->last_use < (*victim)->last_use) victim = it;
    }
    if (victim == blocks_.end()) return false;
    if ((*victim)->ready) TRICOUNT_CUDA_TRY(cudaEventSynchronize(*(*victim)->ready));  // its prefetch copy ended
    blocks_.erase(victim);
  }
  return true;
}

void DeviceBlockCache::throw_does_not_fit(const TaskBlocks& b, std::uint64_t working_need) const {
  const std::uint64_t triple_bytes = Roles(b).distinct_bytes();
  std::size_t free = 0, total = 0;
  // Checked, but not thrown: the message below is the error; a failed query leaves the free
  // memory out of what the backend could give, and says so.
  const cudaError_t info = cudaMemGetInfo(&free, &total);
  if (info != cudaSuccess) free = 0;
  const std::string unknown_free =
      info == cudaSuccess ? "" : std::string(" (free memory unknown: cudaMemGetInfo failed with ") + cudaGetErrorName(info) + ")";
  std::uint64_t could = free + cached_bytes() + working_bytes_();  // everything this backend could free
  if (byte_cap_) could = std::min<std::uint64_t>(could, byte_cap_);
  could = could > kReserveBytes ? could - kReserveBytes : 0;
  const std::uint64_t need = triple_bytes + working_need;
  // Block bytes shrink about with the square of the number of parts n (|E| / n^2 edges
  // per block); the task does not know n, so the advice is a factor.
  const double ratio = could ? std::sqrt(double(need) / double(could)) : 2.0;
  const std::uint64_t factor = std::max<std::uint64_t>(2, static_cast<std::uint64_t>(std::ceil(ratio * 1.2)));
  throw Error("CUDA backend: the block triple hash " + block_label(b.hash) + ", 1-hop " + block_label(b.one_hop) +
              ", 2-hop " + block_label(b.two_hop) + " needs " + mib(triple_bytes) + " of blocks and " + mib(working_need) +
              " of working memory on GPU " + std::to_string(device_) + " (" + device_name_ + "), which can give at most " +
              mib(could) + unknown_free + ": partition the graph into at least " + std::to_string(factor) +
              " times as many parts (tricount-partition --parts " + std::to_string(factor) +
              "*n for the current n) so that each block triple fits");
}

// The copy into a pinned staging buffer, on several threads (at least 4 MiB each): one
// thread copied at about 3 GB/s, the DMA behind it runs several times faster.
void DeviceBlockCache::copy_to_staging(char* to, const char* from, std::size_t n) const {
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(staging_threads_, std::max<std::size_t>(1, n >> 22)));
  parallel_ranges(n, threads, [&](std::uint64_t first, std::uint64_t last) { std::memcpy(to + first, from + first, last - first); });
}

void DeviceBlockCache::upload(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  const char* from = static_cast<const char*>(src);
  char* to = static_cast<char*>(dst);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = std::min(kStagingBytes, bytes - done);
    TRICOUNT_CUDA_TRY(cudaEventSynchronize(*staging_done_[next_staging_]));  // buffer free again
    copy_to_staging(static_cast<char*>(staging_[next_staging_].get()), from + done, n);
    TRICOUNT_CUDA_TRY(cudaMemcpyAsync(to + done, staging_[next_staging_].get(), n, cudaMemcpyHostToDevice, stream));
    TRICOUNT_CUDA_TRY(cudaEventRecord(*staging_done_[next_staging_], stream));
    next_staging_ ^= 1;
    done += n;
  }
}

}  // namespace tricount::cuda
