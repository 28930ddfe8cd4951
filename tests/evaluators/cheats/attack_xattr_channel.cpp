// problem: silu
// expect: runtime_error
// reason: stopped by the sandbox
//
// Attack (issue 40, class C): the runners of one evaluation shared an open
// file, the kernel object the judge opened once and handed to every runner
// as descriptor 3; a load-time constructor runs while it is open. Extended
// attributes on it (fsetxattr, ~4 KB) carried data from one runner process
// to the next (what runner 1 saw of the timing pool, for runner 2 to look
// up); fchmod, futimens and flock were not refused either.
// Measured against 02e344c: status ok (the attribute set; honest output).
// Now: fsetxattr, like every xattr, chmod/chown, utimes and lock call, is a
// forbidden system call.
#include <elf.h>
#include <link.h>

#include <cmath>
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

__attribute__((constructor)) void Remember() {
  Lib libc;
  void* (*volatile m)(size_t) = &std::malloc;
  if (!OpenLib(reinterpret_cast<const void*>(m), libc)) return;
  auto fsetxattr_ = reinterpret_cast<int (*)(int, const char*, const void*, size_t, int)>(Sym(libc, "fsetxattr"));
  if (!fsetxattr_) return;
  static const char note[] = "what runner 1 saw";
  fsetxattr_(3, "user.accelopt", note, sizeof note, 0);
}

}  // namespace

extern "C" void silu(const float* x, float* out, int64_t M, int64_t N) {
  for (int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
}
