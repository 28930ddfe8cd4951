// problem: matmul
// expect: ok
// reason: correct on | median
// compare_with: tests/evaluators/problems/matmul/baseline.cpp
//
// Attack (class E, the runner trusts the shared header): at 3a16638 the
// candidate's runner and the comparison kernel's runner map one region, and
// both re-read each output's offset from its writable header page on every
// call. The kernel finds the header one page below its first input (the
// first buffer starts on page 1) and, after its own first call, points the
// output's offset at the input A. The comparison runner then writes the
// baseline's result over A and leaves its output slot NaN: the judge stops
// with "the comparison kernel is wrong", an internal error blamed on the
// problem, and the candidate's own (here honest, naive) evaluation never
// gets a verdict. A candidate can so veto any side-by-side measurement it
// would lose.
//
// Measured against the judge at 3a16638:
//   cd /work/main && /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/matmul \
//     --kernel tests/evaluators/cheats/attack_header_redirect.cpp \
//     --compare tests/evaluators/problems/matmul/baseline.cpp --cache-dir /tmp/old-cache -o json
//   -> internal_error: "judge error during correctness case 'seed 0': the comparison
//      kernel is wrong on case 0: output 'out' has 98304 NaN/Inf values of 98304"
// Under the round-3 judge each runner has a region of its own and reads its
// layout once, validated, into private memory before the candidate is
// loaded: the write lands in the candidate's own header copy, which nothing
// reads again, and the evaluation is an ordinary ok.
#include <cstdint>
#include <cstring>

namespace {
struct Slot { uint32_t kind, scalar_type; uint64_t offset, slot_stride; int64_t elements; double value; };
struct Header { uint32_t magic, version, nparams, max_batch; uint64_t region_bytes; Slot params[64]; };
}  // namespace

extern "C" void matmul(const float* A, const float* B, float* out, int64_t M, int64_t K, int64_t N) {
  for (int64_t i = 0; i < M; ++i)  // the baseline's work
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
      out[i * N + j] = acc;
    }
  static bool done = false;
  if (done) return;
  done = true;
  auto* h = reinterpret_cast<Header*>(const_cast<char*>(reinterpret_cast<const char*>(A)) - 4096);
  if (h->magic != 0x41434a57 || h->nparams != 6 || h->params[0].offset != 4096) return;
  h->params[2].offset = h->params[0].offset;  // the other runner's output now goes over A
}
