// The wire between the trusted judge (judge_main.cpp) and the untrusted
// runner (runner_main.cpp) of the cpu backend. Header-only, embedded in the
// evaluator and compiled at run time into both programs.
//
// Shared memory: one sealed memfd (no shrink, no grow) per runner, which the
// judge creates, sizes and fills before it starts that runner; two runners
// (a candidate and the kernel it is compared with) never share a region. Page
// 0 is the Header below; every input and output buffer starts on its own page
// and has max_batch slots: call i of a batch reads input slot i and writes
// output slot i, and every slot holds a case of its own (the judge fills
// each slot with inputs this runner process has never seen and checks every
// slot's whole output afterwards). The judge treats every byte of the region
// as hostile: it copies the outputs out while the runner is stopped and never
// reads a length, an offset or a flag back from it. The runner reads the
// header once, before the candidate is loaded, validates every offset,
// stride and count against the region's size, keeps that copy in its own
// memory and never reads the header page again (a candidate that rewrites
// it changes nothing).
//
// Commands (judge -> runner, fd kCommandFd) and replies (runner -> judge,
// fd kReplyFd) are fixed-size records on pipes. The runner answers each
// command with exactly one reply carrying the same seq; anything else on the
// reply pipe (an unasked reply, a wrong seq, a short record) ends the
// evaluation as a failure. Nothing the runner sends can become a result: the
// judge times every call itself and compares every output itself.
//
// File descriptors of the runner (set up by the judge before exec):
//   0 /dev/null, 1 and 2 a diagnostics pipe, 3 the candidate .so (read only),
//   4 the shared memory, 5 commands, 6 replies. Everything else is closed.
#pragma once

#include <cstdint>
#include <cstring>

namespace accelopt_wire {

constexpr uint32_t kMagic = 0x41434a57;  // "ACJW"
constexpr uint32_t kVersion = 2;         // 2: inputs have max_batch slots too; one region per runner
constexpr int kMaxParams = 64;
constexpr int kSoFd = 3, kShmFd = 4, kCommandFd = 5, kReplyFd = 6;
constexpr uint64_t kPage = 4096;

enum Op : uint32_t {
  kNull = 'N',  // answer at once (before the candidate is loaded: the judge's handshake calibration)
  kLoad = 'L',  // load the candidate from kSoFd, look up the function, then lock the sandbox down
  kCall = 'C',  // call the kernel `count` times in a row, call i on input slot i, writing output slot i
};

// Reply status.
enum Status : uint32_t { kDone = 0, kLoadFailed = 1 };

struct Command {
  uint32_t op;
  uint32_t count;  // kCall: calls in this batch, 1 <= count <= Header::max_batch
  uint64_t seq;
};

struct Reply {
  uint32_t op;
  uint32_t status;
  uint64_t seq;
};

// The cuda runner's reply (evaluators/cuda/harness/runner_main.cpp): the
// Reply followed by the batch's device time, the sum of its calls' start ->
// stop CUDA event times. A judge whose job says `clock device` reads these
// instead of Reply. The number is the runner's claim: the judge bounds it by
// its own clock (device_clock.hpp) before it becomes a sample.
struct DeviceReply {
  Reply reply;
  uint64_t device_ns;  // kCall: the batch's summed event time; 0 otherwise
};

struct ParamSlot {
  uint32_t kind;         // 'i' input, 'o' output, 's' scalar, 'd' dim
  uint32_t scalar_type;  // 'f' float, 'i' int64 (scalars)
  uint64_t offset;       // inputs and outputs: byte offset of slot 0 of the buffer in the region (page-aligned)
  uint64_t slot_stride;  // inputs and outputs: bytes from one batch slot to the next (>= the buffer, page-aligned)
  int64_t elements;      // inputs/outputs: float elements; dims: the value
  double value;          // scalars
};

struct Header {
  uint32_t magic;
  uint32_t version;
  uint32_t nparams;
  uint32_t max_batch;  // slots per input and output (>= 1)
  uint64_t region_bytes;
  ParamSlot params[kMaxParams];
};
static_assert(sizeof(Header) <= kPage, "the header fits in page 0");

// The runner's private, validated copy of the header: read once, before the
// candidate is loaded, and never again. Returns "" or why the header is bad.
// Every buffer must start on a page of its own inside the region, its slots
// must not overlap (stride >= its bytes) and all max_batch of them must fit;
// the arithmetic cannot overflow (each term is bounded first).
struct Layout {
  uint32_t nparams = 0, max_batch = 0;
  ParamSlot params[kMaxParams];
};
inline const char* ReadLayout(const void* region, uint64_t region_bytes, Layout* out) {
  if (region_bytes < kPage) return "the region is smaller than its header";
  Header h;
  std::memcpy(&h, region, sizeof h);
  if (h.magic != kMagic || h.version != kVersion) return "bad magic or version";
  if (h.nparams > static_cast<uint32_t>(kMaxParams)) return "too many parameters";
  if (h.max_batch < 1 || h.max_batch > 4096) return "bad batch limit";
  constexpr uint64_t kLimit = 1ULL << 46;  // 64 TiB: no term below can overflow
  if (region_bytes > kLimit) return "region too large";
  for (uint32_t k = 0; k < h.nparams; ++k) {
    const ParamSlot& p = h.params[k];
    if (p.kind != 'i' && p.kind != 'o' && p.kind != 's' && p.kind != 'd') return "bad parameter kind";
    if (p.kind != 'i' && p.kind != 'o') continue;
    if (p.elements < 0 || static_cast<uint64_t>(p.elements) > kLimit / 4) return "bad element count";
    const uint64_t bytes = static_cast<uint64_t>(p.elements) * 4;
    if (p.offset < kPage || p.offset % kPage != 0 || p.offset > region_bytes) return "buffer offset outside the region";
    if (p.slot_stride % kPage != 0 || p.slot_stride < bytes || p.slot_stride > kLimit) return "bad slot stride";
    const uint64_t room = region_bytes - p.offset;
    if (p.slot_stride != 0 && (h.max_batch - 1) > room / p.slot_stride) return "slots outside the region";
    if ((h.max_batch - 1) * p.slot_stride + bytes > room) return "buffer outside the region";
  }
  out->nparams = h.nparams;
  out->max_batch = h.max_batch;
  std::memcpy(out->params, h.params, sizeof h.params);
  return "";
}

}  // namespace accelopt_wire
