// problem: matmul
// expect: runtime_error
// reason: sched_setaffinity
// settings: {"threads": 1, "cores": [0]}
//
// Attack: use more cores than the slot grants.
// The slot is one core (threads 1 -> OMP_NUM_THREADS=1). The kernel ignores
// OpenMP and starts std::thread workers on every core the machine has
// (std::thread::hardware_concurrency, i.e. get_nprocs, not the affinity
// mask). Before that, on its first call, it widens the process's CPU
// affinity to all CPUs with sched_setaffinity, a symbol the static check does
// not allow, resolved at run time instead of linked: take the address of the
// allowed libc function get_nprocs, walk back page by page to libc's ELF
// header, read its PT_DYNAMIC (DT_SYMTAB, DT_STRTAB, DT_HASH, DT_VERSYM) and
// pick the default-version sched_setaffinity@@GLIBC_2.3.4 from the dynamic
// symbol table. If the lookup fails it just carries on (no crash).
// Work: the blocked matmul of tests/evaluators/kernels/fast_matmul.cpp,
// blocks of 8 rows handed to the workers by an atomic counter.
//
// Measured against today's harness (which neither pins the process nor filters
// sched_setaffinity; numbers in NOTES.md):
//   /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/matmul \
//     --kernel /work/attacks-B/attack_more_cores.cpp --cache-dir /tmp/old-eval-cache-B -o json --threads 1
//   -> status ok, median ~480 us, avg_cores_busy ~2, percent_of_peak ~21
//   honest fast_matmul.cpp, same command (--threads 1): ok, median ~900 us, avg_cores_busy ~1, ~11% of peak
// Under the new judge (runner pinned to its cores, sched_setaffinity trapped
// by seccomp): "forbidden system call: sched_setaffinity" -> runtime_error.
#include <elf.h>
#include <immintrin.h>
#include <sched.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using SetAffinity = int (*)(int, size_t, const cpu_set_t*);

SetAffinity FindSetAffinity() {
  // get_nprocs lives in libc's text; libc's mappings are contiguous from its ELF header.
  uintptr_t page = reinterpret_cast<uintptr_t>(&get_nprocs) & ~uintptr_t(4095);
  const Elf64_Ehdr* eh = nullptr;
  for (int i = 0; i < 16384 && page >= 4096; ++i, page -= 4096) {
    const auto* h = reinterpret_cast<const Elf64_Ehdr*>(page);
    if (std::memcmp(h->e_ident, ELFMAG, SELFMAG) == 0 && h->e_ident[EI_CLASS] == ELFCLASS64 &&
        h->e_type == ET_DYN && h->e_machine == EM_X86_64) { eh = h; break; }
  }
  if (!eh) return nullptr;
  const uintptr_t base = reinterpret_cast<uintptr_t>(eh);
  const auto* ph = reinterpret_cast<const Elf64_Phdr*>(base + eh->e_phoff);
  uintptr_t bias = base;
  const Elf64_Dyn* dyn = nullptr;
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) bias = base - ph[i].p_vaddr;
    if (ph[i].p_type == PT_DYNAMIC) dyn = reinterpret_cast<const Elf64_Dyn*>(ph[i].p_vaddr);
  }
  if (!dyn) return nullptr;
  dyn = reinterpret_cast<const Elf64_Dyn*>(bias + reinterpret_cast<uintptr_t>(dyn));
  auto addr = [&](uint64_t v) { return v < bias ? bias + v : v; };  // the loader may have relocated d_ptr
  const Elf64_Sym* sym = nullptr;
  const char* str = nullptr;
  const uint32_t* hash = nullptr;
  const uint16_t* versym = nullptr;
  for (const Elf64_Dyn* d = dyn; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB) sym = reinterpret_cast<const Elf64_Sym*>(addr(d->d_un.d_ptr));
    if (d->d_tag == DT_STRTAB) str = reinterpret_cast<const char*>(addr(d->d_un.d_ptr));
    if (d->d_tag == DT_HASH) hash = reinterpret_cast<const uint32_t*>(addr(d->d_un.d_ptr));
    if (d->d_tag == DT_VERSYM) versym = reinterpret_cast<const uint16_t*>(addr(d->d_un.d_ptr));
  }
  if (!sym || !str) return nullptr;
  size_t count = hash ? hash[1] : (reinterpret_cast<uintptr_t>(str) - reinterpret_cast<uintptr_t>(sym)) / sizeof(Elf64_Sym);
  for (size_t i = 1; i < count; ++i) {
    if (sym[i].st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC) continue;
    if (versym && (versym[i] & 0x8000)) continue;  // skip the old sched_setaffinity@GLIBC_2.3.3
    if (std::memcmp(str + sym[i].st_name, "sched_setaffinity", 18) == 0)  // 18: with the NUL
      return reinterpret_cast<SetAffinity>(bias + sym[i].st_value);
  }
  return nullptr;
}

// Rows [r0, r1) of C, as fast_matmul.cpp does them: 4-row register blocks, K and N blocking.
void rows(const float* A, const float* B, float* C, int64_t r0, int64_t r1, int64_t K, int64_t N) {
  const int64_t KB = 128, NB = 512;
  for (int64_t i0 = r0; i0 < r1; i0 += 4) {
    const int64_t i1 = std::min(r1, i0 + 4);
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * N + j] = 0.0f;
    for (int64_t k0 = 0; k0 < K; k0 += KB)
      for (int64_t j0 = 0; j0 < N; j0 += NB) {
        const int64_t k1 = std::min(K, k0 + KB), j1 = std::min(N, j0 + NB);
        if (i1 - i0 == 4) {
          float *c0 = C + i0 * N, *c1 = c0 + N, *c2 = c1 + N, *c3 = c2 + N;
          for (int64_t k = k0; k < k1; ++k) {
            const float a0 = A[i0 * K + k], a1 = A[(i0 + 1) * K + k], a2 = A[(i0 + 2) * K + k],
                        a3 = A[(i0 + 3) * K + k];
            const float* b = B + k * N;
#pragma omp simd
            for (int64_t j = j0; j < j1; ++j) {
              const float bj = b[j];
              c0[j] += a0 * bj; c1[j] += a1 * bj; c2[j] += a2 * bj; c3[j] += a3 * bj;
            }
          }
        } else {
          for (int64_t i = i0; i < i1; ++i)
            for (int64_t k = k0; k < k1; ++k) {
              const float a = A[i * K + k];
              const float* b = B + k * N;
              float* c = C + i * N;
#pragma omp simd
              for (int64_t j = j0; j < j1; ++j) c[j] += a * b[j];
            }
        }
      }
  }
}

// A persistent worker pool (threads created once; an idle vCPU takes too long to
// wake for a thread started per call). g_word = generation << 32 | rows left;
// rows are taken from the top in blocks of 8 by compare-and-swap, so a thread
// only works on the call whose generation it read, and a worker that loses
// its core to a neighbour only costs the block it holds.
struct Job { const float *A, *B; float* C; int64_t K, N; };
Job g_job;
std::atomic<uint64_t> g_word{0};
std::atomic<int64_t> g_done{0};

void take_blocks() {
  for (uint64_t v = g_word.load(std::memory_order_acquire); static_cast<uint32_t>(v) != 0;) {
    const uint32_t left = static_cast<uint32_t>(v), take = std::min<uint32_t>(left, 8);
    if (!g_word.compare_exchange_weak(v, v - take, std::memory_order_acq_rel)) continue;
    rows(g_job.A, g_job.B, g_job.C, left - take, left, g_job.K, g_job.N);
    g_done.fetch_add(take, std::memory_order_release);
    v = g_word.load(std::memory_order_acquire);
  }
}

void worker() {
  for (uint64_t seen = 0;;) {
    for (int i = 0; g_word.load(std::memory_order_acquire) == seen; ++i) {
      if (i < 4096) _mm_pause(); else sched_yield();
    }
    take_blocks();
    seen = g_word.load(std::memory_order_acquire);
  }
}

bool g_started = false;

}  // namespace

extern "C" void matmul(const float* A, const float* B, float* out, int64_t M, int64_t K, int64_t N) {
  if (!g_started) {
    g_started = true;
    if (SetAffinity set = FindSetAffinity()) {
      cpu_set_t all;
      CPU_ZERO(&all);
      for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &all);
      set(0, sizeof all, &all);  // the calling thread; the workers inherit it
    }
    for (unsigned t = 1; t < std::thread::hardware_concurrency(); ++t) std::thread(worker).detach();
  }
  static uint64_t gen = 0;
  g_job = {A, B, out, K, N};
  g_done.store(0, std::memory_order_relaxed);
  g_word.store((++gen << 32) | static_cast<uint64_t>(M), std::memory_order_release);
  take_blocks();
  while (g_done.load(std::memory_order_acquire) != M) _mm_pause();
}
