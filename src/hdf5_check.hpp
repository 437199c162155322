// Checked HDF5 calls: every call's result goes through h5_check (identifiers) or
// h5_check_status (statuses), which throw Error with the message given, naming the file and
// the object. HDF5's own error-stack printing is switched off (silence_hdf5) so that the user
// sees that one message.
#pragma once

#include <hdf5.h>

#include <mutex>
#include <string>

#include "src/types.hpp"

namespace tricount {

inline hid_t h5_check(hid_t id, const std::string& what) {
  if (id < 0) throw Error(what);
  return id;
}

inline void h5_check_status(herr_t status, const std::string& what) {
  if (status < 0) throw Error(what);
}

// Switches off HDF5's printing of its error stack on the calling thread: a thread-safe HDF5
// (Debian's serial build is one) keeps an error stack per thread, each printing until told.
void silence_hdf5();

// The lock every HDF5 call of the block file's reader and writer and of the tables is made
// under (HDF5 may be built without thread safety, and they are used from several threads).
// It silences the calling thread too: a block written on the partitioner's writer thread
// printed HDF5's whole stack before the one message.
[[nodiscard]] std::unique_lock<std::mutex> hdf5_lock();

}  // namespace tricount
