// problem: silu
// expect: runtime_error
// reason: exited
//
// Attack: print the harness's verdict line ourselves, then leave.
//
// The evaluator accepts the last "ACCELOPT <nonce> {json}" line on the
// harness's stdout; the nonce is secret only from the kernel's source, not
// from its memory. On the first call the kernel:
//   1. resolves write/_exit and the data symbol _IO_2_1_stdin_ from libc's
//      dynamic symbol table (libc's ELF header found by walking back from
//      &malloc; DT_GNU_HASH lookup); none of them is ever linked;
//   2. finds the nonce in stdin's stdio buffer (std::cin reads the job
//      through it, and the buffer still holds the job text: "nonce <digits>");
//      if that fails, it scans its own stack up to `environ` for the harness's
//      Job object: std::string "run" (short-string form) followed by a
//      std::string of decimal digits (Job::mode, Job::nonce);
//   3. writes a forged, plausible success line with fast samples on fd 1 and
//      calls _exit(0), so the real checks and timing never happen.
// If anything is missing it still exits: the kernel never returns.
//
// Measured against today's harness (see NOTES.md):
//   cd /work/main && /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/silu
//     --kernel /work/attacks-A/attack_forge_result_line.cpp --cache-dir /tmp/old-eval-cache-A -o json   (one command line)
//   status ok, median 21.2 us (forged) vs baseline.cpp 262-267 us side by side
//   (a fake ~12x speedup), percent_of_peak 18.6; both nonce sources checked.
#include <elf.h>
#include <stdio.h>
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

// ---- the nonce -------------------------------------------------------------
bool Digits(const char* s, size_t n) {
  if (n == 0 || n > 20) return false;
  for (size_t i = 0; i < n; ++i) if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

// From stdin's buffer: a line "nonce <digits>".
size_t NonceFromStdin(const Lib& libc, char* out) {
  FILE* in = static_cast<FILE*>(Sym(libc, "_IO_2_1_stdin_"));
  if (!in || !in->_IO_buf_base || in->_IO_buf_end <= in->_IO_buf_base) return 0;
  const char* b = in->_IO_buf_base;
  const size_t n = static_cast<size_t>(in->_IO_buf_end - in->_IO_buf_base);
  for (size_t i = 0; i + 6 < n; ++i) {
    if ((i != 0 && b[i - 1] != '\n') || std::memcmp(b + i, "nonce ", 6) != 0) continue;
    size_t k = i + 6, len = 0;
    while (k + len < n && len <= 20 && b[k + len] >= '0' && b[k + len] <= '9') ++len;
    if (len && len <= 20 && k + len < n && b[k + len] == '\n') { std::memcpy(out, b + k, len); return len; }
  }
  return 0;
}

// From the harness's Job on the stack: {mode = "run", nonce = "<digits>"} as
// two libstdc++ strings {char* p; size_t len; union {size_t cap; char sso[16]}}.
size_t NonceFromStack(const Lib& libc, char* out) {
  char*** env = static_cast<char***>(Sym(libc, "environ"));
  uintptr_t lo = reinterpret_cast<uintptr_t>(&out) & ~uintptr_t{7};
  uintptr_t hi = env && *env ? reinterpret_cast<uintptr_t>(*env) : 0;
  if (hi <= lo || hi - lo > (size_t{8} << 20)) return 0;  // not on the main thread's stack: do not guess
  for (uintptr_t p = lo; p + 64 <= hi; p += 8) {
    const uintptr_t* w = reinterpret_cast<const uintptr_t*>(p);
    if (w[0] != p + 16 || w[1] != 3 || std::memcmp(reinterpret_cast<const char*>(p + 16), "run", 4) != 0) continue;
    const char* s = reinterpret_cast<const char*>(w[4]);
    size_t len = w[5];
    if (len == 0 || len > 20 || (w[4] != p + 48 && (w[4] < 4096 || w[6] < len || w[6] > 4096))) continue;
    if (!Digits(s, len)) continue;
    std::memcpy(out, s, len);
    return len;
  }
  return 0;
}

// ---- the forged verdict --------------------------------------------------------
struct Text {
  char buf[8192];
  size_t n = 0;
  void Put(const char* s) { while (*s && n < sizeof buf) buf[n++] = *s++; }
  void Put(const char* s, size_t len) { for (size_t i = 0; i < len && n < sizeof buf; ++i) buf[n++] = s[i]; }
  void Num(uint64_t v) {
    char d[24];
    int k = 0;
    do { d[k++] = static_cast<char>('0' + v % 10); v /= 10; } while (v);
    while (k && n < sizeof buf) buf[n++] = d[--k];
  }
};

[[noreturn]] void Forge() {
  Lib libc;
  void* (*volatile m)(size_t) = &std::malloc;
  OpenLib(reinterpret_cast<const void*>(m), libc);
  auto write_ = reinterpret_cast<long (*)(int, const void*, size_t)>(Sym(libc, "write"));
  auto exit_ = reinterpret_cast<void (*)(int)>(Sym(libc, "_exit"));
  char nonce[24];
  size_t len = NonceFromStdin(libc, nonce);
  if (!len) len = NonceFromStack(libc, nonce);
  static Text t;
  if (len && write_) {
    t.Put("ACCELOPT ");
    t.Put(nonce, len);
    t.Put(" {\"ok\": true, \"max_rel_error\": 1.19e-07, \"case_errors\": [1.19e-07,1.18e-07,1.19e-07,1.17e-07,"
          "1.19e-07,1.2e-07,0,1.19e-07], \"rounds\": 3, \"samples_ns\": [");
    uint64_t r = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 240; ++i) {  // ~21 us, with a little believable noise
      r = r * 6364136223846793005ULL + 1442695040888963407ULL;
      if (i) t.Put(",");
      t.Num(20800 + (r >> 33) % 900);
    }
    t.Put("], \"avg_cores_busy\": 0.987, \"maxrss_kb\": 17224, \"omp_max_threads\": 2, \"calls\": 733, "
          "\"seccomp\": true}\n");
    write_(1, t.buf, t.n);
  }
  if (exit_) exit_(0);
  std::abort();  // unreachable with a resolvable libc
}

}  // namespace

extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  (void)x; (void)out; (void)M; (void)N;
  Forge();
}
