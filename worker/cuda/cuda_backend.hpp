// The CUDA backend's entry points (compiled only when the build has CUDA).
#pragma once

#include <memory>
#include <string>

#include "worker/backend.hpp"

namespace tricount {

int cuda_device_count();              // 0 when no GPU or no driver (never throws)
std::string cuda_status_message();    // why cuda_device_count() is 0, for error messages
void cuda_start_context(int device);
std::uint64_t cuda_device_memory(int device);  // the GPU's memory in bytes (0 when it cannot be queried)  // device's primary context, created if need be (errors ignored)
std::unique_ptr<CountBackend> make_cuda_backend(const BackendOptions& options);

}  // namespace tricount
