// The per-vertex and per-edge tables' counters over MPI: in pieces (MPI counts are int),
// summed over the workers on their way to rank 0.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace tricount::chunked_mpi {

template <class T>
MPI_Datatype type() {
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else {
    static_assert(std::is_unsigned_v<T> && (sizeof(T) == 4 || sizeof(T) == 8));
    if constexpr (sizeof(T) == 4) return MPI_UINT32_T;
    else return MPI_UINT64_T;
  }
}

// One piece of a table's counters (kPerVertexPieceRows, kPerEdgePieceRows entries at most)
// summed over the workers on its way to rank 0, which does not take part in the sum: the
// workers sum it at worker 0 (`workers`: the workers' communicator) in place, and worker 0
// sends it to rank 0 of `comm` without waiting for it to arrive, so that the workers sum the
// next piece while rank 0 turns this one into rows. `piece`: this worker's values (worker
// 0's receive the sum and must stay until the send is complete: `sent` gets its request).
template <class T>
void sum_piece_to_rank0(T* piece, std::uint64_t entries, MPI_Comm workers, MPI_Comm comm, int tag,
                        std::vector<MPI_Request>& sent) {
  int me = 0, size = 1;
  MPI_Comm_rank(workers, &me);
  MPI_Comm_size(workers, &size);
  const int count = static_cast<int>(entries);  // a piece is far below 2^31 entries
  if (size > 1) {
    if (me == 0) MPI_Reduce(MPI_IN_PLACE, piece, count, type<T>(), MPI_SUM, 0, workers);
    else MPI_Reduce(piece, nullptr, count, type<T>(), MPI_SUM, 0, workers);
  }
  if (me != 0) return;
  sent.emplace_back();
  MPI_Isend(piece, count, type<T>(), 0, tag, comm, &sent.back());
}

// Rank 0's side of sum_piece_to_rank0: the piece's sum, from worker 0 (rank 1 of `comm`).
template <class T>
void receive_piece_sum(std::vector<T>& into, std::uint64_t entries, MPI_Comm comm, int tag) {
  into.resize(entries);
  MPI_Recv(into.data(), static_cast<int>(entries), type<T>(), 1, tag, comm, MPI_STATUS_IGNORE);
}

}  // namespace tricount::chunked_mpi

namespace tricount {

// A 128-bit sum in decimal (the tables' sums of counts, for messages).
inline std::string to_string_u128(unsigned __int128 x) {
  if (x == 0) return "0";
  std::string s;
  for (; x; x /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(x % 10)));
  return s;
}

}  // namespace tricount
