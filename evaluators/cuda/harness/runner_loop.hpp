// The cuda runner's main loop, on any DeviceOps (device.hpp): the real
// runner (runner_main.cpp, the CUDA runtime) and the test double runner
// (tests/fakes/cuda/fake_runner_main.cpp, host memory, no GPU) run this same
// code, so the judge's tests with the fake drive the real protocol code.
// What it does is described in runner_main.cpp. Single-threaded; it owns the
// process (exits on every error: a device that failed is never reused).
#pragma once

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "evaluators/judge/harness/wire.hpp"
#include "evaluators/cuda/harness/device.hpp"
#include "evaluators/cuda/harness/runner_call.hpp"

extern "C" void AcceloptCallKernel(void* fn, void* const* args);

namespace accelopt_cuda_runner {

using namespace accelopt_wire;

[[noreturn]] inline void RunnerDie(const std::string& m, int code = 2) {
  std::string s = "runner error: " + m + "\n";
  (void)!write(2, s.data(), s.size());
  _exit(code);
}

inline bool RunnerReadFull(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t r = read(fd, c, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

inline void RunnerAnswer(const Command& c, uint32_t status, uint64_t device_ns) {
  DeviceReply r{{c.op, status, c.seq}, device_ns};
  const char* p = reinterpret_cast<const char*>(&r);
  size_t n = sizeof r;
  while (n > 0) {
    ssize_t w = write(kReplyFd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(0);
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// The runner's life after `dev` was created: `init` brings the device up
// (false: the message is in dev.error()). Never returns.
template <typename Init>
[[noreturn]] void RunnerLoop(int argc, char** argv, accelopt_cuda::DeviceOps& dev, const Init& init) {
  if (argc != 2) RunnerDie("usage: cuda_runner FUNCTION");
  // The runner must be on the GPU the evaluator leased, never on whichever
  // one CUDA would pick: the judge passes it (job runner_env).
  const char* visible = getenv("CUDA_VISIBLE_DEVICES");
  if (!visible || !*visible) RunnerDie("CUDA_VISIBLE_DEVICES is not set: the judge names the runner's one GPU");
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const std::string function = argv[1];
  struct stat st {};
  if (fstat(kShmFd, &st) != 0 || st.st_size < static_cast<off_t>(kPage)) RunnerDie("no shared memory on fd 4");
  void* base = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, kShmFd, 0);
  if (base == MAP_FAILED) RunnerDie(std::string("mmap: ") + std::strerror(errno));
  close(kShmFd);
  // The layout is read once, validated, into our own memory; the header
  // page is never read again (wire.hpp ReadLayout).
  static Layout layout;
  if (const char* why = ReadLayout(base, static_cast<uint64_t>(st.st_size), &layout); *why)
    RunnerDie(std::string("bad shared memory header: ") + why);

  if (!init()) RunnerDie("CUDA: " + dev.error(), 4);
  const uint32_t np = layout.nparams;
  std::vector<void*> args(np, nullptr);
  std::vector<float> f(np);
  std::vector<int64_t> i64(np);
  std::vector<accelopt_cuda::Buffer> buffers;
  for (uint32_t k = 0; k < np; ++k) {
    const ParamSlot& p = layout.params[k];
    if (p.kind == 'i' || p.kind == 'o') {
      const uint64_t bytes = static_cast<uint64_t>(p.elements) * sizeof(float);
      accelopt_cuda::Buffer b;
      b.kind = static_cast<char>(p.kind);
      b.bytes = bytes;
      b.host = static_cast<char*>(base) + p.offset;
      b.slot_stride = p.slot_stride;
      b.device = dev.Alloc(bytes);
      if (!b.device) RunnerDie("CUDA: " + dev.error(), 4);
      args[k] = b.device;  // the candidate sees device pointers only
      buffers.push_back(b);
    } else if (p.kind == 'd' || (p.kind == 's' && p.scalar_type == 'i')) {
      i64[k] = p.kind == 'd' ? p.elements : static_cast<int64_t>(p.value);
      args[k] = &i64[k];
    } else {
      f[k] = static_cast<float>(p.value);
      args[k] = &f[k];
    }
  }

  void* fn = nullptr;
  for (;;) {
    Command c{};
    if (!RunnerReadFull(kCommandFd, &c, sizeof c)) _exit(0);
    std::string why;
    double ns = 0;
    switch (c.op) {
      case kNull:  // the same device work as a call, without the kernel
        if (!accelopt_cuda::CallOnce(
                dev, buffers, 0, [] {}, &ns, &why))
          RunnerDie("CUDA: " + why, 4);
        RunnerAnswer(c, 0, 0);
        break;
      case kLoad: {
        if (fn) RunnerDie("loaded twice");
        void* handle = dlopen(("/proc/self/fd/" + std::to_string(kSoFd)).c_str(), RTLD_NOW | RTLD_LOCAL);
        // A load failure is said, answered as one (kLoadFailed, as the cpu
        // runner does: the judge reports load_error), and the runner exits.
        auto load_failed = [&](const std::string& m) {
          const std::string s = m + "\n";
          (void)!write(2, s.data(), s.size());
          RunnerAnswer(c, kLoadFailed, 0);
          _exit(3);
        };
        if (!handle) {
          const char* e = dlerror();
          load_failed(std::string("load error: cannot load the kernel: ") + (e ? e : "?"));
        }
        fn = dlsym(handle, function.c_str());
        if (!fn) load_failed("load error: the kernel does not define extern \"C\" " + function);
        close(kSoFd);
        RunnerAnswer(c, kDone, 0);
        break;
      }
      case kCall: {
        if (!fn) RunnerDie("call before load");
        if (c.count < 1 || c.count > layout.max_batch) RunnerDie("bad batch size");
        double total = 0;
        for (uint32_t i = 0; i < c.count; ++i) {
          if (!accelopt_cuda::CallOnce(
                  dev, buffers, i, [&] { AcceloptCallKernel(fn, args.data()); }, &ns, &why))
            RunnerDie("CUDA: " + why, 4);
          total += ns;
        }
        RunnerAnswer(c, kDone, static_cast<uint64_t>(total));
        break;
      }
      default:
        RunnerDie("unknown command");
    }
  }
}

}  // namespace accelopt_cuda_runner
