// The wire between the trusted judge (judge_main.cpp) and the untrusted
// runner (runner_main.cpp) of the cpu backend. Header-only, embedded in the
// evaluator and compiled at run time into both programs.
//
// Shared memory: one sealed memfd (no shrink, no grow) that the judge creates,
// sizes and fills before it starts the runner. Page 0 is the Header below;
// every input and output buffer starts on its own page, and every output has
// max_batch slots (a batch of calls on short kernels writes one slot per
// call, so the handshake is paid once per batch; the judge checks every slot). The judge treats
// every byte of it as hostile: it copies the outputs out while the runner is
// stopped and never reads a length, an offset or a flag back from it.
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

namespace accelopt_wire {

constexpr uint32_t kMagic = 0x41434a57;  // "ACJW"
constexpr uint32_t kVersion = 1;
constexpr int kMaxParams = 64;
constexpr int kSoFd = 3, kShmFd = 4, kCommandFd = 5, kReplyFd = 6;
constexpr uint64_t kPage = 4096;

enum Op : uint32_t {
  kNull = 'N',  // answer at once (before the candidate is loaded: the judge's handshake calibration)
  kLoad = 'L',  // load the candidate from kSoFd, look up the function, then lock the sandbox down
  kCall = 'C',  // call the kernel `count` times in a row, call i writing output slot i
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
  uint64_t offset;       // inputs and outputs: byte offset of the buffer (outputs: slot 0) in the region
  uint64_t slot_stride;  // outputs: bytes from one batch slot to the next
  int64_t elements;      // inputs/outputs: float elements; dims: the value
  double value;          // scalars
};

struct Header {
  uint32_t magic;
  uint32_t version;
  uint32_t nparams;
  uint32_t max_batch;    // output slots per output (>= 1)
  uint64_t region_bytes;
  ParamSlot params[kMaxParams];
};
static_assert(sizeof(Header) <= kPage, "the header fits in page 0");

}  // namespace accelopt_wire
