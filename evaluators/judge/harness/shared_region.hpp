// The region the judge shares with one runner (layout in wire.hpp): a sealed
// memfd with the header page and max_batch page-aligned slots per input and
// per output, and the batch limits. Each runner process gets a region of its
// own (a fresh one when the judge replaces the runner), so no two runners
// share writable memory and nothing one runner left in a region reaches the
// next. Included once, by judge_main.cpp.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "evaluators/judge/harness/job.hpp"
#include "evaluators/judge/harness/wire.hpp"

namespace judge {

// The shared memory the runner maps: header page, then one page-aligned
// buffer per input and output.
struct Shared {
  int fd = -1;
  char* base = nullptr;
  size_t bytes = 0;
  std::vector<float*> buf;     // per param: slot 0; nullptr for scalars and dims
  std::vector<size_t> stride;  // inputs and outputs: floats from one slot to the next
  uint32_t max_batch = 1;

  float* Slot(size_t k, uint32_t i) const { return buf[k] + i * stride[k]; }
};

// Batches: at most kMaxBatch calls, and at most kBatchBytes of slots.
constexpr uint32_t kMaxBatch = 32;
constexpr uint64_t kBatchBytes = 64ULL << 20;
constexpr double kBatchTargetS = 4e-3;  // a batch aims at this much time
// CPU seconds a runner process may spend loading the kernel (dynamic
// linking, libgomp, a constructor's small table) before the rest is charged
// to its timed calls (judge_main.cpp Load, ChargeRound).
constexpr double kFreeLoadCpuS = 0.05;
// A timing round whose runners waited for a CPU for more than this share of
// their runnable time (other processes had their cores) is contended. The
// judge then rests kContendedPauseMs and looks at the slot's cores: used
// less than kFreeSlotShare by others (the neighbour has gone), the round is
// re-run (it does not count towards min_rounds); still busy, it counts (a
// re-run would repeat it). A contended round is kept only when no round was
// clean (judge_main.cpp Timing; the verdict's kept_round_contended).
constexpr double kContendedShare = 0.10;
constexpr int kContendedPauseMs = 250;
constexpr double kFreeSlotShare = 0.25;

inline Shared CreateShared(const Job& job) {
  Shared s;
  s.stride.assign(job.params.size(), 0);
  uint64_t slot_bytes = 0;
  for (const auto& p : job.params)
    if (p.kind == 'o' || p.kind == 'i')
      slot_bytes += (static_cast<uint64_t>(p.elements) * sizeof(float) + accelopt_wire::kPage - 1) /
                    accelopt_wire::kPage * accelopt_wire::kPage;
  s.max_batch = static_cast<uint32_t>(
      std::max<uint64_t>(1, std::min<uint64_t>(kMaxBatch, kBatchBytes / std::max<uint64_t>(slot_bytes, 1))));
  s.buf.assign(job.params.size(), nullptr);
  accelopt_wire::Header h{};
  h.magic = accelopt_wire::kMagic;
  h.version = accelopt_wire::kVersion;
  h.nparams = static_cast<uint32_t>(job.params.size());
  h.max_batch = s.max_batch;
  uint64_t off = accelopt_wire::kPage;
  for (size_t k = 0; k < job.params.size(); ++k) {
    const Param& p = job.params[k];
    accelopt_wire::ParamSlot& slot = h.params[k];
    slot.kind = static_cast<uint32_t>(p.kind);
    slot.scalar_type = static_cast<uint32_t>(p.scalar_type);
    slot.elements = p.elements;
    slot.value = p.value;
    if (p.kind == 'i' || p.kind == 'o') {
      slot.offset = off;
      uint64_t bytes = static_cast<uint64_t>(p.elements) * sizeof(float);
      uint64_t rounded = (bytes + accelopt_wire::kPage - 1) / accelopt_wire::kPage * accelopt_wire::kPage;
      slot.slot_stride = rounded;
      s.stride[k] = rounded / sizeof(float);
      rounded *= s.max_batch;
      off += rounded;
    }
  }
  h.region_bytes = off;
  s.bytes = off;
  s.fd = memfd_create("accelopt-judge", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (s.fd < 0) Die(std::string("memfd_create: ") + std::strerror(errno));
  if (ftruncate(s.fd, static_cast<off_t>(s.bytes)) != 0) Die(std::string("ftruncate: ") + std::strerror(errno));
  // The runner can neither shrink the region under the judge (SIGBUS) nor grow it.
  if (fcntl(s.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) Die("memfd seals failed");
  void* m = mmap(nullptr, s.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0);
  if (m == MAP_FAILED) Die(std::string("mmap: ") + std::strerror(errno));
  s.base = static_cast<char*>(m);
  std::memcpy(s.base, &h, sizeof h);
  for (size_t k = 0; k < job.params.size(); ++k)
    if (h.params[k].offset) s.buf[k] = reinterpret_cast<float*>(s.base + h.params[k].offset);
  return s;
}

inline void DestroyShared(Shared* s) {
  if (s->base) munmap(s->base, s->bytes);
  if (s->fd >= 0) close(s->fd);
  *s = Shared{};
}

inline std::vector<int> AllowedCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cores;
  if (sched_getaffinity(0, sizeof set, &set) != 0) Die("sched_getaffinity failed");
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cores.push_back(c);
  return cores;
}

}  // namespace judge
