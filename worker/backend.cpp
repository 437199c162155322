#include "worker/backend.hpp"

#ifdef TRICOUNT_HAVE_CUDA
#include "worker/cuda/cuda_backend.hpp"
#endif

namespace tricount {

BackendKind parse_backend_kind(std::string_view name) {
  if (name == "auto") return BackendKind::Auto;
  if (name == "cpu") return BackendKind::Cpu;
  if (name == "cuda") return BackendKind::Cuda;
  throw UsageError("--backend: unknown backend '" + std::string(name) + "' (choose auto, cpu or cuda)");
}

bool cuda_available() {
#ifdef TRICOUNT_HAVE_CUDA
  return cuda_device_count() > 0;
#else
  return false;
#endif
}

std::unique_ptr<CountBackend> make_backend(BackendKind kind, const BackendOptions& options) {
  if (kind == BackendKind::Cpu || (kind == BackendKind::Auto && !cuda_available())) return make_cpu_backend(options);
#ifdef TRICOUNT_HAVE_CUDA
  if (cuda_device_count() <= 0) throw Error("--backend cuda: no CUDA GPU is visible (" + cuda_status_message() + ")");
  return make_cuda_backend(options);
#else
  throw Error("--backend cuda: this build of tricount has no CUDA backend (configured without nvcc or with -DTRICOUNT_CUDA=OFF)");
#endif
}

}  // namespace tricount
