// The cuda calibration program: the GPU's facts and two measurements, as one
// line on stdout that evaluators/gpu/calibration.hpp parses:
//   ACCELOPT-CUDA-CALIBRATION {"gpu": {...}, "fma_gflops": [...], "copy_gbps": [...]}
// fp32 FMA peak: every SM busy with independent fmaf chains (8 per thread,
// registers only), best of several launches timed with events. Device-memory
// bandwidth: a float4 copy of a buffer 8x the L2 (at least 256 MiB), bytes
// read + written over the best of several launches.
// Exit 0 with that line; 3 with "calibration error: ..." on stderr when there
// is no usable GPU (no driver, no device, a CUDA error).
//
// Embedded in the evaluator, compiled with nvcc at run time (gpu::CalibrateGpu).
// NOT RUN ON A GPU YET (docs/evaluation.md, "cuda backend").
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void Check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "calibration error: %s: %s (%s)\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
  std::exit(3);
}

constexpr int kChains = 8;

__global__ void fma_kernel(float* out, int iters, float a, float b) {
  float v[kChains];
  for (int c = 0; c < kChains; ++c) v[c] = threadIdx.x * 1e-3f + c;
  for (int i = 0; i < iters; ++i)
    for (int c = 0; c < kChains; ++c) v[c] = fmaf(v[c], a, b);
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += v[c];
  if (s == 12345.678f) out[threadIdx.x] = s;  // keeps the chains alive; practically never true
}

__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = in[i];
}

std::string Escape(const char* s) {
  std::string o;
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\') o += '\\';
    if (static_cast<unsigned char>(*s) >= 0x20) o += *s;
  }
  return o;
}

}  // namespace

int main() {
  int count = 0;
  Check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count < 1) Check(cudaErrorNoDevice, "no CUDA device");
  Check(cudaSetDevice(0), "cudaSetDevice");
  cudaDeviceProp p{};
  Check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
  auto attr = [](cudaDeviceAttr a) {
    int v = 0;
    return cudaDeviceGetAttribute(&v, a, 0) == cudaSuccess ? v : 0;
  };
  const int sm_khz = attr(cudaDevAttrClockRate), mem_khz = attr(cudaDevAttrMemoryClockRate);
  int driver = 0, runtime = 0;
  Check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  Check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");

  cudaEvent_t t0, t1;
  Check(cudaEventCreate(&t0), "cudaEventCreate");
  Check(cudaEventCreate(&t1), "cudaEventCreate");
  auto timed = [&](auto launch) {
    Check(cudaEventRecord(t0), "cudaEventRecord");
    launch();
    Check(cudaEventRecord(t1), "cudaEventRecord");
    Check(cudaEventSynchronize(t1), "the calibration kernel");
    Check(cudaGetLastError(), "launch");
    float ms = 0;
    Check(cudaEventElapsedTime(&ms, t0, t1), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e-3;
  };

  float* sink = nullptr;
  Check(cudaMalloc(&sink, 1024 * sizeof(float)), "cudaMalloc");
  const int threads = 256, blocks = p.multiProcessorCount * (p.maxThreadsPerMultiProcessor / threads) * 4;
  const int iters = 4096;
  std::vector<double> fma;
  for (int r = 0; r < 6; ++r) {
    double s = timed([&] { fma_kernel<<<blocks, threads>>>(sink, iters, 0.999f, 1e-3f); });
    if (r > 0) fma.push_back(2.0 * kChains * iters * static_cast<double>(blocks) * threads / s / 1e9);
  }

  size_t bytes = static_cast<size_t>(p.l2CacheSize) * 8;
  if (bytes < (256u << 20)) bytes = 256u << 20;
  float4 *in = nullptr, *out = nullptr;
  Check(cudaMalloc(&in, bytes), "cudaMalloc");
  Check(cudaMalloc(&out, bytes), "cudaMalloc");
  Check(cudaMemset(in, 0, bytes), "cudaMemset");
  std::vector<double> copy;
  for (int r = 0; r < 6; ++r) {
    double s = timed([&] { copy_kernel<<<p.multiProcessorCount * 8, 512>>>(in, out, bytes / sizeof(float4)); });
    if (r > 0) copy.push_back(2.0 * static_cast<double>(bytes) / s / 1e9);
  }

  std::printf("ACCELOPT-CUDA-CALIBRATION {\"gpu\": {\"name\": \"%s\", \"cc_major\": %d, \"cc_minor\": %d, "
              "\"sm_count\": %d, \"warp_size\": %d, \"max_threads_per_block\": %d, \"max_threads_per_sm\": %d, "
              "\"registers_per_sm\": %d, \"registers_per_block\": %d, \"shared_memory_per_sm_bytes\": %zu, "
              "\"shared_memory_per_block_bytes\": %zu, \"shared_memory_per_block_optin_bytes\": %zu, "
              "\"l2_bytes\": %d, \"memory_bytes\": %zu, \"sm_clock_mhz\": %d, \"memory_clock_mhz\": %d, "
              "\"driver\": \"%d.%d\", \"runtime\": \"%d.%d\"}, \"fma_gflops\": [",
              Escape(p.name).c_str(), p.major, p.minor, p.multiProcessorCount, p.warpSize, p.maxThreadsPerBlock,
              p.maxThreadsPerMultiProcessor, p.regsPerMultiprocessor, p.regsPerBlock, p.sharedMemPerMultiprocessor,
              p.sharedMemPerBlock, p.sharedMemPerBlockOptin, p.l2CacheSize, p.totalGlobalMem, sm_khz / 1000,
              mem_khz / 1000, driver / 1000, (driver % 1000) / 10, runtime / 1000, (runtime % 1000) / 10);
  for (size_t i = 0; i < fma.size(); ++i) std::printf("%s%.1f", i ? ", " : "", fma[i]);
  std::printf("], \"copy_gbps\": [");
  for (size_t i = 0; i < copy.size(); ++i) std::printf("%s%.1f", i ? ", " : "", copy[i]);
  std::printf("]}\n");
  return 0;
}
