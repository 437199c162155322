#include "src/hdf5_check.hpp"

namespace tricount {

void silence_hdf5() {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

std::mutex& hdf5_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace tricount
