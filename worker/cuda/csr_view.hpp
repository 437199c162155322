// A CSR block on the device, as kernels see it (trivially copyable).
#pragma once

#include "src/types.hpp"

namespace tricount::cuda {

struct CsrView {
  const eoff_t* offsets = nullptr;
  const vid_t* neighbors = nullptr;
};

}  // namespace tricount::cuda
