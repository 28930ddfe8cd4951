// problem: matmul
// expect: wrong_result
// reason: exceeds tolerance | NaN
//
// Attack: copy the harness's own reference outputs out of its heap.
//
// The harness reads every case's double reference into std::vector<double>s
// before it dlopens the kernel, in the same process. Each is M*N*8 bytes
// (768 KiB for matmul), above malloc's mmap threshold, so each is its own
// mmapped chunk: page aligned, size word at +8 equal to
// round_up(8*M*N + 16, 4096) | IS_MMAPPED, data at +16.
//   1. A load-time constructor (inside dlopen, while seccomp stage 1 still
//      allows read-only opens) resolves open/read/close from libc's dynamic
//      symbol table (libc's ELF header found by walking back from &malloc)
//      and reads /proc/self/maps, keeping the anonymous read-write regions.
//   2. The first call walks those regions for chunks of exactly that size:
//      the candidate references.
//   3. Every call computes two output elements honestly (out[0][0] and
//      out[M-1][N-1], 2*K multiply-adds) and keeps the candidates whose
//      values match. The perturbed case shares most elements with case 0, so
//      ties are broken by a Freivalds check: (A*(B*r))_i against (ref*r)_i for
//      every row i, with a fixed weight vector r (~0.3 M multiply-adds instead
//      of M*N*K = 25 M). The match is converted to float and copied to `out`;
//      a fixed busy loop pads the time to a plausible value.
// Nothing found (open fails in the constructor, or no chunk matches): the
// kernel writes zeros, so the relative L2 error is exactly 1; it never crashes.
//
// Measured against today's harness (see NOTES.md):
//   cd /work/main && /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/matmul
//     --kernel /work/attacks-A/attack_read_reference_memory.cpp --cache-dir /tmp/old-eval-cache-A -o json   (one command line)
//   status ok, median 864-866 us vs baseline.cpp 21174-21198 us side by side
//   (a fake ~24x speedup), percent_of_peak 11.7, max_rel_error 2.5e-08.
#include <elf.h>
#include <fcntl.h>
#include <link.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

// ---- libc symbols without naming them to the linker ------------------------
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
      if (v < L.base) v += L.base;
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
  const uint32_t* buckets = L.gnu + 4 + 2 * bloom;
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

// ---- anonymous read-write regions, from /proc/self/maps at load time -------
struct Region { uintptr_t lo, hi; };
Region g_regions[256];
int g_nregions = 0;

uintptr_t Hex(const char*& p) {
  uintptr_t v = 0;
  for (;; ++p) {
    char c = *p;
    if (c >= '0' && c <= '9') v = v * 16 + (c - '0');
    else if (c >= 'a' && c <= 'f') v = v * 16 + (c - 'a' + 10);
    else return v;
  }
}

__attribute__((constructor)) void ReadMaps() {
  Lib libc;
  void* (*volatile m)(size_t) = &std::malloc;
  if (!OpenLib(reinterpret_cast<const void*>(m), libc)) return;
  auto open_ = reinterpret_cast<int (*)(const char*, int, ...)>(Sym(libc, "open"));
  auto read_ = reinterpret_cast<long (*)(int, void*, size_t)>(Sym(libc, "read"));
  auto close_ = reinterpret_cast<int (*)(int)>(Sym(libc, "close"));
  if (!open_ || !read_ || !close_) return;
  int fd = open_("/proc/self/maps", O_RDONLY);
  if (fd < 0) return;  // fail soft: nothing to overwrite
  static char text[1 << 18];
  size_t n = 0;
  for (long r; n + 1 < sizeof text && (r = read_(fd, text + n, sizeof text - 1 - n)) > 0;) n += static_cast<size_t>(r);
  close_(fd);
  text[n] = 0;
  for (const char* p = text; *p && g_nregions < 256;) {
    const char* line = p;
    while (*p && *p != '\n') ++p;
    const char* end = p;
    if (*p) ++p;
    const char* tok[6] = {};
    int nt = 0;
    for (const char* s = line; s < end && nt < 6; ++s)
      if (*s != ' ' && (s == line || s[-1] == ' ')) tok[nt++] = s;
    if (nt < 5 || tok[1][0] != 'r' || tok[1][1] != 'w' || tok[4][0] != '0' ||
        (tok[4] + 1 != end && tok[4][1] != ' ')) continue;
    // "lo-hi rw-p offset dev inode [path]": anonymous when inode is 0; keep [heap] too.
    if (nt == 6 && std::memcmp(tok[5], "[heap]", 6) != 0) continue;
    const char* q = line;
    uintptr_t lo = Hex(q);
    ++q;
    uintptr_t hi = Hex(q);
    g_regions[g_nregions++] = {lo, hi};
  }
}


const double* g_cand[64];
int g_ncand = -1;

void FindCandidates(int64_t elems) {
  g_ncand = 0;
  const uintptr_t want = ((static_cast<uintptr_t>(elems) * 8 + 16 + 4095) & ~uintptr_t{4095}) | 2;
  for (int r = 0; r < g_nregions; ++r) {
    for (uintptr_t p = g_regions[r].lo; p + 4096 <= g_regions[r].hi;) {
      const uintptr_t size = reinterpret_cast<const uintptr_t*>(p)[1];
      if (size == want && reinterpret_cast<const uintptr_t*>(p)[0] == 0 && p + (size & ~uintptr_t{7}) <= g_regions[r].hi) {
        if (g_ncand < 64) g_cand[g_ncand++] = reinterpret_cast<const double*>(p + 16);
        p += size & ~uintptr_t{7};
      } else {
        p += 4096;
      }
    }
  }
}

bool Near(double got, double want, double scale) { return got - want <= 1e-9 * scale && want - got <= 1e-9 * scale; }

// The reference of this call's inputs, or nullptr.
const double* Match(const float* A, const float* B, int64_t M, int64_t K, int64_t N) {
  double e0 = 0, e1 = 0, s0 = 0, s1 = 0;
  for (int64_t k = 0; k < K; ++k) {
    double a = static_cast<double>(A[k]) * B[k * N], b = static_cast<double>(A[(M - 1) * K + k]) * B[k * N + N - 1];
    e0 += a; e1 += b; s0 += a < 0 ? -a : a; s1 += b < 0 ? -b : b;
  }
  double* br = nullptr;   // B * r
  double* abr = nullptr;  // A * (B * r)
  const double* found = nullptr;
  for (int c = 0; c < g_ncand && !found; ++c) {
    const double* ref = g_cand[c];
    if (!Near(ref[0], e0, s0 + 1e-300) || !Near(ref[M * N - 1], e1, s1 + 1e-300)) continue;
    if (!abr) {
      br = static_cast<double*>(std::malloc(sizeof(double) * K));
      abr = static_cast<double*>(std::malloc(sizeof(double) * M));
      if (!br || !abr) break;
      for (int64_t k = 0; k < K; ++k) {
        double s = 0;
        for (int64_t j = 0; j < N; ++j) s += static_cast<double>(B[k * N + j]) * (1 + j % 7);
        br[k] = s;
      }
      for (int64_t i = 0; i < M; ++i) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += static_cast<double>(A[i * K + k]) * br[k];
        abr[i] = s;
      }
    }
    bool ok = true;
    for (int64_t i = 0; i < M && ok; ++i) {
      double s = 0, mag = 1e-300;
      for (int64_t j = 0; j < N; ++j) {
        double v = ref[i * N + j] * (1 + j % 7);
        s += v;
        mag += v < 0 ? -v : v;
      }
      ok = Near(s, abr[i], mag);
    }
    if (ok) found = ref;
  }
  std::free(br);
  std::free(abr);
  return found;
}

}  // namespace

extern "C" void matmul(const float* A, const float* B, float* out, int64_t M, int64_t K, int64_t N) {
  if (g_ncand < 0) FindCandidates(M * N);
  const double* ref = Match(A, B, M, K, N);
  for (int64_t e = 0; e < M * N; ++e) out[e] = ref ? static_cast<float>(ref[e]) : 0.0f;
  volatile uint64_t sink = 0;  // fixed padding: a fast but not impossible time
  uint64_t s = static_cast<uint64_t>(M * N);
  for (int i = 0; i < 500000; ++i) s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  sink = s;
}
