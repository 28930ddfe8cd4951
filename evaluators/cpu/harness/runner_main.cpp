// The cpu runner: the untrusted side of an evaluation. A small process that
// the judge (judge_main.cpp) starts for one evaluation; it loads the candidate
// kernel and calls it when told. It decides nothing and reports nothing but
// "returned": the judge owns the inputs, the references, the clock, the
// comparison and the verdict (docs/evaluation.md, "The judge and its runner").
//
// Not linked into the evaluator: embedded, compiled at run time and linked per
// problem with the generated call glue (AcceloptCallKernel, harness_builder.cpp),
// with -z now -z relro, and started by the judge with the descriptors listed in
// wire.hpp, its CPU affinity already set to the slot's cores.
//
// Life: map the shared memory, restrict itself (sandbox.hpp stage 1), answer
// kNull commands (the judge calibrates its handshake on them while no
// candidate code is loaded yet), then on kLoad load the candidate from
// descriptor 3, lock down (stage 2) and answer kCall commands until the judge
// kills it. Between calls the judge keeps it stopped (SIGSTOP). The judge
// replaces it with a fresh runner process between timing rounds: no runner
// process ever sees the same inputs twice (docs/evaluation.md, "Inputs").
//
// usage: runner FUNCTION   (exit 0 when the judge closes the command pipe,
//                           2 on a runner error, 77 on a forbidden system call)
#include <dlfcn.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <vector>

#include "evaluators/cpu/harness/sandbox.hpp"
#include "evaluators/judge/harness/wire.hpp"

extern "C" void AcceloptCallKernel(void* fn, void* const* args);

namespace {

using namespace accelopt_wire;
using runner_sandbox::Die;

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

void Answer(const Command& c, uint32_t status) {
  Reply r{c.op, status, c.seq};
  const char* p = reinterpret_cast<const char*>(&r);
  size_t n = sizeof r;
  while (n > 0) {
    ssize_t w = write(kReplyFd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(0);  // the judge is gone
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void Say(const std::string& s) { (void)!write(2, s.data(), s.size()); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) Die("usage: runner FUNCTION");
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const std::string function = argv[1];

  struct stat st {};
  if (fstat(kShmFd, &st) != 0 || st.st_size < static_cast<off_t>(kPage)) Die("no shared memory on fd 4");
  void* base = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, kShmFd, 0);
  if (base == MAP_FAILED) Die(std::string("mmap: ") + std::strerror(errno));
  close(kShmFd);
  // The layout is read once, validated, into our own memory; the header
  // page is never read again (wire.hpp ReadLayout).
  static Layout layout;
  if (const char* why = ReadLayout(base, static_cast<uint64_t>(st.st_size), &layout); *why)
    Die(std::string("bad shared memory header: ") + why);

  // Arguments: pointers into the shared buffers (slot 0 until a call says
  // otherwise), scalars in our own storage.
  const uint32_t np = layout.nparams;
  std::vector<void*> args(np, nullptr);
  std::vector<float> f(np);
  std::vector<int64_t> i64(np);
  for (uint32_t k = 0; k < np; ++k) {
    const ParamSlot& p = layout.params[k];
    if (p.kind == 'i' || p.kind == 'o') {
      args[k] = static_cast<char*>(base) + p.offset;
    } else if (p.kind == 'd' || (p.kind == 's' && p.scalar_type == 'i')) {
      i64[k] = p.kind == 'd' ? p.elements : static_cast<int64_t>(p.value);
      args[k] = &i64[k];
    } else {
      f[k] = static_cast<float>(p.value);
      args[k] = &f[k];
    }
  }
  (void)omp_get_max_threads();  // libgomp reads its environment now, before the sandbox

  const int landlock = runner_sandbox::LandlockRestrict(kSoFd);
  runner_sandbox::SeccompStage1();

  void* fn = nullptr;
  bool loaded = false;
  for (;;) {
    Command c{};
    if (!ReadFull(kCommandFd, &c, sizeof c)) _exit(0);
    switch (c.op) {
      case kNull:
        // Before the candidate is loaded this process runs only our code, so
        // the judge may trust what it says here: the Landlock ABI in force.
        Answer(c, loaded ? 0u : static_cast<uint32_t>(landlock));
        break;
      case kLoad: {
        if (loaded) Die("loaded twice");
        void* handle = dlopen(("/proc/self/fd/" + std::to_string(kSoFd)).c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
          const char* e = dlerror();
          Say(std::string("load error: cannot load the kernel: ") + (e ? e : "?") + "\n");
          Answer(c, kLoadFailed);
          _exit(3);
        }
        fn = dlsym(handle, function.c_str());
        if (!fn) {
          Say("load error: the kernel does not define extern \"C\" " + function + " (is it declared extern \"C\"?)\n");
          Answer(c, kLoadFailed);
          _exit(3);
        }
        close(kSoFd);
        runner_sandbox::LandlockRestrict(-1);
        runner_sandbox::SeccompStage2();
        loaded = true;
        Answer(c, kDone);
        break;
      }
      case kCall:
        if (!loaded) Die("call before load");
        if (c.count < 1 || c.count > layout.max_batch) Die("bad batch size");
        for (uint32_t i = 0; i < c.count; ++i) {
          for (uint32_t k = 0; k < np; ++k) {
            const ParamSlot& p = layout.params[k];
            if (p.kind == 'i' || p.kind == 'o') args[k] = static_cast<char*>(base) + p.offset + i * p.slot_stride;
          }
          AcceloptCallKernel(fn, args.data());
        }
        Answer(c, kDone);
        break;
      default:
        Die("unknown command");
    }
  }
}
