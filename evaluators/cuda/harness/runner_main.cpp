// The cuda runner: the untrusted side of a cuda evaluation, owning its own
// CUDA context on the one GPU CUDA_VISIBLE_DEVICES leaves it. It speaks the
// cpu runner's wire (evaluators/cpu/harness/wire.hpp: the sealed shared
// region, fixed-size commands on pipes, the same descriptors) with one
// difference: each reply is a DeviceReply, the Reply followed by the
// batch's device time (the sum of its calls' start -> stop event times).
// That number is the runner's, so the judge treats it as a claim: it bounds
// it by its own clock (docs/evaluation.md, "cuda backend").
//
// Life: map the shared region, create the context and every device buffer
// (inputs once, outputs once: each call's outputs go to its slot of the
// region), answer kNull with the same copies, NaN fill and L2 flush as a
// call but no kernel (so the judge's handshake calibration includes them),
// load the candidate on kLoad, and on kCall run runner_call.hpp's sequence
// for each call of the batch. The first device error ends the runner
// (exit 4, the message on stderr): a context that hit a CUDA error is never
// reused.
//
// NOT RUN YET, and not yet started by any judge: the cuda judge and backend
// are not built (docs/evaluation.md, "cuda backend"). Compiled at build time
// where nvcc is found (evaluators/CMakeLists.txt), to keep it compiling.
//
// usage: cuda_runner FUNCTION
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "evaluators/cpu/harness/wire.hpp"
#include "evaluators/cuda/harness/cuda_device.hpp"
#include "evaluators/cuda/harness/runner_call.hpp"

extern "C" void AcceloptCallKernel(void* fn, void* const* args);

namespace {

using namespace accelopt_wire;

struct DeviceReply {
  Reply reply;
  uint64_t device_ns;  // the batch's summed event time (kCall), 0 otherwise
};

[[noreturn]] void Die(const std::string& m, int code = 2) {
  std::string s = "runner error: " + m + "\n";
  (void)!write(2, s.data(), s.size());
  _exit(code);
}

bool ReadFull(int fd, void* p, size_t n) {
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

void Answer(const Command& c, uint32_t status, uint64_t device_ns) {
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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) Die("usage: cuda_runner FUNCTION");
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const std::string function = argv[1];
  struct stat st{};
  if (fstat(kShmFd, &st) != 0 || st.st_size < static_cast<off_t>(kPage)) Die("no shared memory on fd 4");
  void* base = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, kShmFd, 0);
  if (base == MAP_FAILED) Die(std::string("mmap: ") + std::strerror(errno));
  close(kShmFd);
  const Header* h = static_cast<const Header*>(base);
  if (h->magic != kMagic || h->version != kVersion || h->nparams > static_cast<uint32_t>(kMaxParams) || h->max_batch < 1)
    Die("bad shared memory header");

  accelopt_cuda::CudaDevice dev;
  if (!dev.Init()) Die("CUDA: " + dev.error(), 4);
  const uint32_t np = h->nparams;
  std::vector<void*> args(np, nullptr);
  std::vector<float> f(np);
  std::vector<int64_t> i64(np);
  std::vector<accelopt_cuda::Buffer> buffers;
  for (uint32_t k = 0; k < np; ++k) {
    const ParamSlot& p = h->params[k];
    if (p.kind == 'i' || p.kind == 'o') {
      const uint64_t slots = p.kind == 'o' ? h->max_batch : 1;
      const uint64_t bytes = static_cast<uint64_t>(p.elements) * sizeof(float);
      if (p.offset + (slots - 1) * p.slot_stride + bytes > static_cast<uint64_t>(st.st_size))
        Die("buffer outside the shared memory");
      accelopt_cuda::Buffer b;
      b.kind = static_cast<char>(p.kind);
      b.bytes = bytes;
      b.host = static_cast<char*>(base) + p.offset;
      b.slot_stride = p.slot_stride;
      b.device = dev.Alloc(bytes);
      if (!b.device) Die("CUDA: " + dev.error(), 4);
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
    if (!ReadFull(kCommandFd, &c, sizeof c)) _exit(0);
    std::string why;
    double ns = 0;
    switch (c.op) {
      case kNull:  // the same device work as a call, without the kernel
        if (!accelopt_cuda::CallOnce(dev, buffers, 0, [] {}, &ns, &why)) Die("CUDA: " + why, 4);
        Answer(c, 0, 0);
        break;
      case kLoad: {
        if (fn) Die("loaded twice");
        void* handle = dlopen(("/proc/self/fd/" + std::to_string(kSoFd)).c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
          const char* e = dlerror();
          Die(std::string("load error: cannot load the kernel: ") + (e ? e : "?"), 3);
        }
        fn = dlsym(handle, function.c_str());
        if (!fn) Die("load error: the kernel does not define extern \"C\" " + function, 3);
        close(kSoFd);
        Answer(c, kDone, 0);
        break;
      }
      case kCall: {
        if (!fn) Die("call before load");
        if (c.count < 1 || c.count > h->max_batch) Die("bad batch size");
        double total = 0;
        for (uint32_t i = 0; i < c.count; ++i) {
          if (!accelopt_cuda::CallOnce(dev, buffers, i, [&] { AcceloptCallKernel(fn, args.data()); }, &ns, &why))
            Die("CUDA: " + why, 4);
          total += ns;
        }
        Answer(c, kDone, static_cast<uint64_t>(total));
        break;
      }
      default:
        Die("unknown command");
    }
  }
}
