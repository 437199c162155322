// What one worker of a node may use of the node: its share of the cores and of the memory
// available. The one rule for the "per worker" defaults of tricount-count (--threads,
// --loader-threads, --cache-size): the node's resources divided among the workers on it.
#pragma once

#include <cstdint>

namespace tricount {

// A worker's cores: the node's `node_cores` shared among its `workers_on_node`, at least 1
// and no more than the `usable` cores this process may run on (srun --cpus-per-task,
// mpirun --bind-to).
unsigned cores_per_worker(unsigned node_cores, unsigned usable, int workers_on_node);
// The same, with this machine's cores and this process's affinity set.
unsigned node_share_of_cores(int workers_on_node);

// The bytes this process may still allocate: MemAvailable of /proc/meminfo, or the cgroup's
// limit less its usage where that is lower (a Slurm job, a container); 0 if neither is known.
std::uint64_t available_memory_bytes();

// The smallest block cache the default gives a worker; below it the default refuses.
inline constexpr std::uint64_t kMinDefaultCacheBytes = std::uint64_t{256} << 20;
// The fraction of the available memory the node's workers' caches take by default: the rest
// is for the backends' own buffers, the page cache and the other processes of the node.
inline constexpr double kDefaultCacheFraction = 0.5;
// --cache-size's default: a worker's share of the node's `available` bytes among its
// `workers_on_node`. Throws Error naming --cache-size when that share is below
// kMinDefaultCacheBytes (or nothing is known of the memory).
std::uint64_t default_cache_bytes(std::uint64_t available, int workers_on_node);

}  // namespace tricount
