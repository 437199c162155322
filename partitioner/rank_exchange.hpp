// What the distributed partitioner (distributed.hpp) does over MPI, for arrays of any length:
// errors agreed on every rank, sums and maxima of large arrays, and the all-to-all exchange
// of records grouped by destination. MPI counts and displacements are int, so everything
// moves in messages of at most kMaxMessageBytes, addressed by pointer.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "src/types.hpp"

namespace tricount::ranks {

inline constexpr std::uint64_t kMaxMessageBytes = std::uint64_t{1} << 30;

struct Comm {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, size = 1;
  explicit Comm(MPI_Comm c) : comm(c) {
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
  }
};

// Runs fn on this rank; when it throws on any rank, every rank throws the message of the lowest
// rank that failed (a usage error stays one), so that no rank is left waiting in a collective.
// fn must not call collectives: a rank that fails early never reaches them.
// Set when agreed() threw: every rank is leaving, so MPI_Finalize will not wait for a lost one.
inline bool& failed_on_every_rank() {
  static bool failed = false;
  return failed;
}

template <class Fn>
void agreed(const Comm& c, Fn&& fn) {
  std::string message;
  int kind = 0;  // 0: fine, 1: Error, 2: UsageError
  try {
    fn();
  } catch (const UsageError& e) {
    message = e.what(), kind = 2;
  } catch (const std::bad_alloc&) {
    message = "out of memory on rank " + std::to_string(c.rank) + " of " + std::to_string(c.size) +
              ": give each rank more memory (fewer ranks per node) or use more nodes", kind = 1;
  } catch (const std::exception& e) {
    message = e.what(), kind = 1;
  }
  int failed = kind ? c.rank : c.size;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MIN, c.comm);
  if (failed == c.size) return;
  std::uint64_t length = message.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, failed, c.comm);
  message.resize(length);
  MPI_Bcast(message.data(), static_cast<int>(length), MPI_CHAR, failed, c.comm);
  MPI_Bcast(&kind, 1, MPI_INT, failed, c.comm);
  failed_on_every_rank() = true;
  if (kind == 2) throw UsageError(message);
  throw Error(message);
}

template <class T>
MPI_Datatype mpi_type() {
  static_assert(std::is_unsigned_v<T> && (sizeof(T) == 4 || sizeof(T) == 8));
  if constexpr (sizeof(T) == 4) return MPI_UINT32_T;
  else return MPI_UINT64_T;
}

// data[0, n) summed (or maximized) over the ranks, in place on every rank.
template <class T>
void allreduce(const Comm& c, T* data, std::uint64_t n, MPI_Op op = MPI_SUM) {
  const std::uint64_t piece = kMaxMessageBytes / sizeof(T);
  for (std::uint64_t at = 0; at < n; at += piece)
    MPI_Allreduce(MPI_IN_PLACE, data + at, static_cast<int>(std::min(piece, n - at)), mpi_type<T>(), op, c.comm);
}
inline std::uint64_t sum(const Comm& c, std::uint64_t x) {
  allreduce(c, &x, 1);
  return x;
}
inline std::uint64_t max(const Comm& c, std::uint64_t x) {
  allreduce(c, &x, 1, MPI_MAX);
  return x;
}
// The sum of x over the ranks below this one (0 on rank 0).
inline std::uint64_t sum_below(const Comm& c, std::uint64_t x) {
  std::uint64_t below = 0;
  MPI_Exscan(&x, &below, 1, MPI_UINT64_T, MPI_SUM, c.comm);
  return c.rank == 0 ? 0 : below;
}

// Rank `root`'s data[0, n) on every rank.
template <class T>
void broadcast(const Comm& c, T* data, std::uint64_t n, int root) {
  const std::uint64_t bytes = n * sizeof(T);
  auto* p = reinterpret_cast<char*>(data);
  for (std::uint64_t at = 0; at < bytes; at += kMaxMessageBytes)
    MPI_Bcast(p + at, static_cast<int>(std::min(kMaxMessageBytes, bytes - at)), MPI_BYTE, root, c.comm);
}

// Rank `root`'s string on every rank.
inline void broadcast_string(const Comm& c, std::string& s, int root) {
  std::uint64_t length = s.size();
  broadcast(c, &length, 1, root);
  s.resize(length);
  broadcast(c, s.data(), length, root);
}

// Posts the sends (or receives) of n records at data to (from) rank `peer`, in messages of at
// most kMaxMessageBytes with tags tag, tag + 1, ...; the requests are appended to `requests`.
template <class T>
void post(const Comm& c, bool send, T* data, std::uint64_t n, int peer, int tag, std::vector<MPI_Request>& requests) {
  const std::uint64_t bytes = n * sizeof(T);
  auto* p = reinterpret_cast<char*>(data);
  for (std::uint64_t at = 0; at < bytes; at += kMaxMessageBytes, ++tag) {
    requests.emplace_back();
    const int count = static_cast<int>(std::min(kMaxMessageBytes, bytes - at));
    if (send) MPI_Isend(p + at, count, MPI_BYTE, peer, tag, c.comm, &requests.back());
    else MPI_Irecv(p + at, count, MPI_BYTE, peer, tag, c.comm, &requests.back());
  }
}
inline void wait_all(std::vector<MPI_Request>& requests) {
  if (!requests.empty()) MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  requests.clear();
}

// Rank r's records data[at[r], at[r + 1]) on every rank: each rank sends its range to every
// other at once (one broadcast per rank, one after the other, was slower at 4 ranks). Collective.
template <class T>
void allgather_ranges(const Comm& c, T* data, const std::vector<std::uint64_t>& at) {
  std::vector<MPI_Request> requests;
  for (int step = 1; step < c.size; ++step) {
    const int to = (c.rank + step) % c.size, from = (c.rank - step + c.size) % c.size;
    post(c, false, data + at[from], at[from + 1] - at[from], from, 0, requests);
    post(c, true, data + at[c.rank], at[c.rank + 1] - at[c.rank], to, 0, requests);
  }
  wait_all(requests);
}

// The all-to-all exchange: `send` holds the records for rank 0, then rank 1's, ... (counts[r]
// each); returns what every rank sent to this one, rank 0's first. Collective.
template <class T, class Vector>
Vector exchange(const Comm& c, const Vector& send, const std::vector<std::uint64_t>& counts) {
  std::vector<std::uint64_t> incoming(c.size);
  MPI_Alltoall(counts.data(), 1, MPI_UINT64_T, incoming.data(), 1, MPI_UINT64_T, c.comm);
  std::vector<std::uint64_t> send_at(c.size + 1, 0), recv_at(c.size + 1, 0);
  for (int r = 0; r < c.size; ++r) {
    send_at[r + 1] = send_at[r] + counts[r];
    recv_at[r + 1] = recv_at[r] + incoming[r];
  }
  Vector received;
  received.resize(recv_at[c.size]);
  // Messages of one peer pair keep their order (same tag space per pair): the tag only has
  // to be below MPI_TAG_UB's guaranteed 32767 for a pair's messages of one exchange.
  std::vector<MPI_Request> requests;
  for (int step = 1; step < c.size; ++step) {
    const int to = (c.rank + step) % c.size, from = (c.rank - step + c.size) % c.size;
    post(c, false, received.data() + recv_at[from], incoming[from], from, 0, requests);
    post(c, true, const_cast<T*>(send.data()) + send_at[to], counts[to], to, 0, requests);
  }
  std::memcpy(static_cast<void*>(received.data() + recv_at[c.rank]), send.data() + send_at[c.rank], counts[c.rank] * sizeof(T));
  wait_all(requests);
  return received;
}

}  // namespace tricount::ranks
