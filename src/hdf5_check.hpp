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

// Switches off HDF5's printing of its error stack (once per process).
void silence_hdf5();

// HDF5's library is not thread-safe in Debian's serial build: the block file's reader and
// writer, used from several threads, make every call under this lock.
std::mutex& hdf5_mutex();

}  // namespace tricount
