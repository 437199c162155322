#include "src/hdf5_check.hpp"

namespace tricount {

void silence_hdf5() {
  thread_local bool silenced = false;
  if (!silenced) silenced = H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0;
}

std::unique_lock<std::mutex> hdf5_lock() {
  static std::mutex m;
  std::unique_lock lock(m);
  silence_hdf5();
  return lock;
}

}  // namespace tricount
