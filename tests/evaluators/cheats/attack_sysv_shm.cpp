// problem: matmul
// expect: runtime_error
// reason: forbidden system call
//
// Attack (class C, SysV IPC outlives the evaluation): the runner at 3a16638
// may call shmget/shmat (not in its seccomp lists; Landlock does not cover
// SysV IPC; only the network namespace is private). The kernel resolves
// shmget and shmat in libc at run time (walking libc's ELF dynamic section
// from the address of malloc, so the symbol allow-list never sees them),
// attaches one segment with a fixed key and keeps there, across
// evaluations, the outputs of every input it ever saw (keyed by a hash of
// the whole input). Secret seeds come from a pool of 8 per case label, so
// after a few evaluations the held-out cases of the history check are
// hits too, its minimum first-sight ratio is ~1, and every timed call is a
// copy (plus a quarter of a matmul of padding, to stay under the roofline).
//
// Measured against the judge at 3a16638 (2-core Xeon, AVX-512), after
// learning runs with the same cache dir (the same judge secret):
//   cd /work/main && for i in $(seq 8); do /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/matmul \
//     --kernel tests/evaluators/cheats/attack_sysv_shm.cpp --cache-dir /tmp/old-cache -o json; done
//   then the same with --compare tests/evaluators/kernels/fast_matmul.cpp
//   -> learning runs 1-2: suspicious (history); runs 3-8: ok; then with --compare:
//      ok, 1.28x and 1.29x faster than fast_matmul measured interleaved
//      (~95% intervals 1.24-1.30x, 0.67-1.53x)
// Under the round-3 judge: shmget is a forbidden system call (seccomp, stage
// 1), the judge and its runners have a private IPC namespace where the host
// allows one, and no timed input repeats anyway.
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

struct Lib { uintptr_t base = 0; const ElfW(Sym)* sym = nullptr; const char* str = nullptr; const uint32_t* gnu = nullptr; };

bool Same(const char* a, const char* b) {
  while (*a && *a == *b) { ++a; ++b; }
  return *a == *b;
}

bool OpenLib(const void* inside, Lib& L) {
  uintptr_t p = reinterpret_cast<uintptr_t>(inside) & ~uintptr_t{4095};
  for (int i = 0; i < 4096 && !L.base; ++i, p -= 4096) {
    const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(p);
    if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_type == ET_DYN && eh->e_machine == EM_X86_64) L.base = p;
  }
  if (!L.base) return false;
  const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(L.base);
  const auto* ph = reinterpret_cast<const ElfW(Phdr)*>(L.base + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type != PT_DYNAMIC) continue;
    for (auto* d = reinterpret_cast<const ElfW(Dyn)*>(L.base + ph[i].p_vaddr); d->d_tag != DT_NULL; ++d) {
      uintptr_t v = d->d_un.d_ptr;
      if (v < L.base) v += L.base;  // glibc relocates these in place; be safe either way
      if (d->d_tag == DT_SYMTAB) L.sym = reinterpret_cast<const ElfW(Sym)*>(v);
      if (d->d_tag == DT_STRTAB) L.str = reinterpret_cast<const char*>(v);
      if (d->d_tag == DT_GNU_HASH) L.gnu = reinterpret_cast<const uint32_t*>(v);
    }
  }
  return L.sym && L.str && L.gnu;
}

void* Sym(const Lib& L, const char* name) {
  if (!L.gnu) return nullptr;
  uint32_t h = 5381;
  for (const char* s = name; *s; ++s) h = h * 33 + static_cast<unsigned char>(*s);
  const uint32_t nb = L.gnu[0], off = L.gnu[1], bloom = L.gnu[2];
  const uint32_t* buckets = L.gnu + 4 + 2 * bloom;  // 64-bit bloom words
  const uint32_t* chain = buckets + nb;
  for (uint32_t i = buckets[h % nb]; i >= off && i != 0; ++i) {
    const uint32_t c = chain[i - off];
    const ElfW(Sym)& s = L.sym[i];
    if ((c | 1) == (h | 1) && s.st_shndx != SHN_UNDEF && Same(L.str + s.st_name, name)) {
      void* a = reinterpret_cast<void*>(L.base + s.st_value);
      if (ELF64_ST_TYPE(s.st_info) == STT_GNU_IFUNC) a = reinterpret_cast<void* (*)()>(a)();
      return a;
    }
    if (c & 1) break;
  }
  return nullptr;
}

const Lib& Libc() {
  static Lib L;
  static bool done = false;
  if (!done) {
    done = true;
    void* (*volatile m)(size_t) = &std::malloc;
    OpenLib(reinterpret_cast<const void*>(m), L);
  }
  return L;
}

}  // namespace

// The honest work: tests/evaluators/kernels/fast_matmul.cpp's blocked OpenMP
// matmul (4-row register block, the compiler vectorizes the inner loop).
static void HonestMatmul(const float* A, const float* B, float* C, int64_t M, int64_t K, int64_t N) {
  const int64_t KB = 128, NB = 512;
#pragma omp parallel for schedule(static)
  for (int64_t i0 = 0; i0 < M; i0 += 4) {
    const int64_t i1 = std::min(M, i0 + 4);
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * N + j] = 0.0f;
    for (int64_t k0 = 0; k0 < K; k0 += KB) {
      const int64_t k1 = std::min(K, k0 + KB);
      for (int64_t j0 = 0; j0 < N; j0 += NB) {
        const int64_t j1 = std::min(N, j0 + NB);
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

// Full-content memo key: every input word, weighted by its position (the
// loop vectorizes; ~60 us for the 640 KB of inputs here).
static uint64_t HashAll(const float* A, size_t na, const float* B, size_t nb) {
  uint64_t acc = 0x12345;
  auto mix = [](const float* p, size_t n, uint64_t seed) {
    const uint32_t* w = reinterpret_cast<const uint32_t*>(p);
    uint64_t s = 0;
#pragma omp simd reduction(+ : s)
    for (size_t i = 0; i < n; ++i) s += (static_cast<uint64_t>(w[i]) + seed) * ((i << 1) | 1);
    return s;
  };
  acc ^= mix(A, na, 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL;
  acc ^= mix(B, nb, 0xc2b2ae3d27d4eb4fULL) * 0xc4ceb9fe1a85ec53ULL;
  return acc;
}
namespace {
struct Segment { uint64_t magic; uint64_t used; };
constexpr uint64_t kMagic = 0x41434f5053484dULL;
constexpr int kEntries = 32;

char* Attach(size_t entry_bytes) {
  using GetFn = int (*)(int, size_t, int);
  using AtFn = void* (*)(int, const void*, int);
  auto get = reinterpret_cast<GetFn>(Sym(Libc(), "shmget"));
  auto at = reinterpret_cast<AtFn>(Sym(Libc(), "shmat"));
  if (!get || !at) return nullptr;
  const size_t bytes = sizeof(Segment) + kEntries * entry_bytes;
  int id = get(0x41434f50, bytes, 01000 /* IPC_CREAT */ | 0600);
  if (id < 0) return nullptr;
  void* p = at(id, nullptr, 0);
  return p == reinterpret_cast<void*>(-1) ? nullptr : static_cast<char*>(p);
}

}  // namespace

extern "C" void matmul(const float* A, const float* B, float* out, int64_t M, int64_t K, int64_t N) {
  static char* seg = nullptr;
  static bool tried = false;
  static float* scratch = nullptr;
  const size_t n_out = static_cast<size_t>(M * N), entry = 8 + sizeof(float) * n_out;
  if (!tried) { tried = true; seg = Attach(entry); scratch = static_cast<float*>(std::malloc(sizeof(float) * n_out)); }
  if (!seg) { HonestMatmul(A, B, out, M, K, N); return; }
  auto* head = reinterpret_cast<Segment*>(seg);
  if (head->magic != kMagic) { head->magic = kMagic; head->used = 0; }
  const uint64_t key = HashAll(A, static_cast<size_t>(M * K), B, static_cast<size_t>(K * N));
  char* entries = seg + sizeof(Segment);
  for (uint64_t e = 0; e < head->used && e < kEntries; ++e) {
    char* p = entries + e * entry;
    if (*reinterpret_cast<uint64_t*>(p) != key) continue;
    std::memcpy(out, p + 8, sizeof(float) * n_out);
    HonestMatmul(A, B, scratch, M / 4, K, N);  // padding
    return;
  }
  HonestMatmul(A, B, out, M, K, N);
  if (head->used < kEntries) {
    char* p = entries + head->used * entry;
    *reinterpret_cast<uint64_t*>(p) = key;
    std::memcpy(p + 8, out, sizeof(float) * n_out);
    ++head->used;
  }
}
