// problem: softmax
// expect: wrong_result
// reason: exceeds tolerance | NaN
//
// Attack: replay stale outputs chosen by the call count, never reading the
// input in the timing phase.
// Today's harness makes its correctness calls in a fixed order (softmax:
// seed 0, seed 0 perturbed, seeds 21, 42, 63, 84, two adversarial cases = 8
// calls) and then times calls that cycle round-robin over the 5 seed cases
// (timing_cases[next++ % 5], warmups and the extra per-round call included),
// each with its inputs restored bit for bit. So the kernel computes the 8
// correctness calls honestly, keeps the outputs of calls 1, 3, 4, 5, 6, and on
// timed call n copies the kept output of timing case (n - 1) % 5. Unlike
// attack_sampled_checks.cpp it does not need to know which calls are fully
// checked or where the sampled check looks: every timed output is complete
// and exact, just stale. The inputs are never read after call 8.
//
// Measured against today's harness (numbers in NOTES.md):
//   /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/softmax \
//     --kernel /work/attacks-B/attack_call_counting.cpp --cache-dir /tmp/old-eval-cache-B -o json
//   -> status ok, median ~21 us, percent_of_peak ~19
//   honest AVX-512 softmax (compare/honest_softmax.cpp): ok, ~30 us (2 threads, quiet machine),
//   ~37 us (--threads 1); baseline.cpp: ~400 us
// The gain is bounded by memory bandwidth: the replay still has to read and
// write 512 KB per call (a bare 512 KB memcpy costs ~17 us on this VM).
// Under the new judge the timed inputs are first-sight and differ from the
// correctness inputs: the stale output -> "exceeds tolerance".
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

void honest(const float* x, float* out, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M; ++i) {
    const float* r = x + i * N; float* o = out + i * N;
    float m = r[0], s = 0;
    for (int64_t j = 1; j < N; ++j) m = r[j] > m ? r[j] : m;
    for (int64_t j = 0; j < N; ++j) { o[j] = std::exp(r[j] - m); s += o[j]; }
    for (int64_t j = 0; j < N; ++j) o[j] /= s;
  }
}

const long kCorrectnessCalls = 8;             // default settings: 5 seeds + perturbed + 2 adversarial
const long kTimingCall[5] = {1, 3, 4, 5, 6};  // correctness call of each timing case
std::vector<float> g_kept[5];
long g_calls = 0;

}  // namespace

extern "C" void softmax(const float* x, float* out, int64_t M, int64_t N) {
  const long call = ++g_calls;
  const size_t bytes = sizeof(float) * M * N;
  if (call <= kCorrectnessCalls) {
    honest(x, out, M, N);
    for (int t = 0; t < 5; ++t)
      if (kTimingCall[t] == call) g_kept[t].assign(out, out + M * N);
    return;
  }
  const std::vector<float>& kept = g_kept[(call - kCorrectnessCalls - 1) % 5];  // stale, by call count
  if (kept.size() * sizeof(float) == bytes) std::memcpy(out, kept.data(), bytes);
  else std::memset(out, 0, bytes);
}
