// Arrays of any length over MPI, whose counts are int: sent, received and summed in pieces
// of at most kMessageEntries (the per-vertex and per-edge tables' gathers and reductions).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace tricount::chunked_mpi {

inline constexpr std::uint64_t kMessageEntries = std::uint64_t{1} << 26;

template <class T>
MPI_Datatype type() {
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else {
    static_assert(std::is_unsigned_v<T> && (sizeof(T) == 4 || sizeof(T) == 8));
    if constexpr (sizeof(T) == 4) return MPI_UINT32_T;
    else return MPI_UINT64_T;
  }
}

template <class T>
void send(const std::vector<T>& data, int to, MPI_Comm comm) {
  for (std::uint64_t at = 0; at < data.size(); at += kMessageEntries) {
    const int count = static_cast<int>(std::min<std::uint64_t>(kMessageEntries, data.size() - at));
    MPI_Send(data.data() + at, count, type<T>(), to, 0, comm);
  }
}

template <class T>
void receive(std::vector<T>& data, std::uint64_t size, int from, MPI_Comm comm) {
  data.resize(size);
  for (std::uint64_t at = 0; at < size; at += kMessageEntries) {
    const int count = static_cast<int>(std::min<std::uint64_t>(kMessageEntries, size - at));
    MPI_Recv(data.data() + at, count, type<T>(), from, 0, comm, MPI_STATUS_IGNORE);
  }
}

// Sums every rank's `counts` into the owner's, in place.
template <class T>
void reduce_to_owner(std::vector<T>& counts, int owner, MPI_Comm comm) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  for (std::uint64_t at = 0; at < counts.size(); at += kMessageEntries) {
    const int count = static_cast<int>(std::min<std::uint64_t>(kMessageEntries, counts.size() - at));
    if (me == owner) MPI_Reduce(MPI_IN_PLACE, counts.data() + at, count, type<T>(), MPI_SUM, owner, comm);
    else MPI_Reduce(counts.data() + at, nullptr, count, type<T>(), MPI_SUM, owner, comm);
  }
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
