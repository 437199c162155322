// Probe: host->device upload of a page-cached file region, staged through pinned buffers
// (what DeviceBlockCache does) against cudaHostRegister of the mapping (no staging copy).
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1);} } while (0)
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
  const char* path = argv[1];
  const int dev = argc > 2 ? std::atoi(argv[2]) : 0;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 8;
  CK(cudaSetDevice(dev));
  CK(cudaFree(nullptr));
  int fd = open(path, O_RDONLY);
  struct stat st; fstat(fd, &st);
  size_t n = st.st_size & ~size_t(4095);
  char* map = (char*)mmap(nullptr, n, PROT_READ, MAP_SHARED, fd, 0);
  char* d = nullptr; CK(cudaMalloc(&d, n));
  cudaStream_t s; CK(cudaStreamCreate(&s));
  for (int rep = 0; rep < 2; ++rep) {
    // A: staging, 2 x 32 MB pinned, `threads` memcpy threads a chunk.
    const size_t chunk = 32 << 20;
    void* pin[2]; cudaEvent_t done[2];
    for (int k = 0; k < 2; ++k) { CK(cudaMallocHost(&pin[k], chunk)); CK(cudaEventCreate(&done[k])); CK(cudaEventRecord(done[k], s)); }
    double t0 = now();
    int next = 0;
    for (size_t at = 0; at < n; at += chunk) {
      size_t m = std::min(chunk, n - at);
      CK(cudaEventSynchronize(done[next]));
      std::vector<std::thread> ts;
      for (int t = 0; t < threads; ++t) ts.emplace_back([&, t] { size_t a = m * t / threads, b = m * (t + 1) / threads; std::memcpy((char*)pin[next] + a, map + at + a, b - a); });
      for (auto& t : ts) t.join();
      CK(cudaMemcpyAsync(d + at, pin[next], m, cudaMemcpyHostToDevice, s));
      CK(cudaEventRecord(done[next], s));
      next ^= 1;
    }
    CK(cudaStreamSynchronize(s));
    double ta = now() - t0;
    for (int k = 0; k < 2; ++k) { CK(cudaFreeHost(pin[k])); CK(cudaEventDestroy(done[k])); }
    // B: register the whole mapping, one copy.
    t0 = now();
    cudaError_t e = cudaHostRegister(map, n, cudaHostRegisterReadOnly);
    double treg = now() - t0;
    if (e != cudaSuccess) { std::printf("register failed: %s\n", cudaGetErrorString(e)); cudaGetLastError(); }
    t0 = now();
    CK(cudaMemcpyAsync(d, map, n, cudaMemcpyHostToDevice, s));
    CK(cudaStreamSynchronize(s));
    double tcopy = now() - t0;
    t0 = now();
    if (e == cudaSuccess) CK(cudaHostUnregister(map));
    double tun = now() - t0;
    // C: register in 256 MB pieces, each copied as soon as registered (pipelined).
    const size_t piece = size_t(256) << 20;
    t0 = now();
    std::vector<char*> regs;
    for (size_t at = 0; at < n; at += piece) {
      size_t m = std::min(piece, n - at);
      CK(cudaHostRegister(map + at, m, cudaHostRegisterReadOnly));
      regs.push_back(map + at);
      CK(cudaMemcpyAsync(d + at, map + at, m, cudaMemcpyHostToDevice, s));
    }
    CK(cudaStreamSynchronize(s));
    double tc = now() - t0;
    for (char* p : regs) CK(cudaHostUnregister(p));
    double tcu = now() - t0 - tc;
    std::printf("dev %d rep %d: %.2f GB: staged %.3f s (%.1f GB/s) | register %.3f s + copy %.3f s (%.1f GB/s) + unregister %.3f s = %.1f GB/s | pieces %.3f s (%.1f GB/s) + unregister %.3f\n",
                dev, rep, n / 1e9, ta, n / ta / 1e9, treg, tcopy, n / tcopy / 1e9, tun, n / (treg + tcopy + tun) / 1e9, tc, n / tc / 1e9, tcu);
  }
  return 0;
}
