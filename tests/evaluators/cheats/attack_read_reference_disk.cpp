// problem: matmul
// expect: wrong_result
// reason: exceeds tolerance | NaN
//
// Attack: read the cached reference files from disk at load time.
//
// The harness binary lives in <cache>/harness/<problem>-<key>/harness and the
// double references of every case in <cache>/harness/<problem>-<key>/refs/*.bin
// (raw M*N doubles, named by a hash of the case). The harness loads the kernel
// with dlopen after seccomp stage 1, which still allows read-only opens, and
// the .so's constructors run inside dlopen. So:
//   1. The constructor resolves readlink/open/read/lseek/close/getdents64
//      from libc's dynamic symbol table (libc's ELF header found by walking
//      back from &malloc; DT_GNU_HASH lookup), none of which is ever linked.
//   2. readlink("/proc/self/exe") gives the harness path; the constructor
//      lists <dir>/refs with getdents64 and reads every *.bin into memory.
//   3. Each call identifies the current case like a checker would: two output
//      elements computed honestly (out[0][0], out[M-1][N-1]), then a
//      Freivalds check (A*(B*r) against ref*r row by row) to tell the
//      perturbed case from case 0; it converts the match to float into `out`
//      and spins a fixed busy loop so the time looks plausible.
// Fails soft: when the open fails (Landlock, no files) or nothing matches, it
// writes zeros (relative L2 error exactly 1) and never crashes.
//
// Measured against today's harness (see NOTES.md):
//   cd /work/main && /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/matmul
//     --kernel /work/attacks-A/attack_read_reference_disk.cpp --cache-dir /tmp/old-eval-cache-A -o json   (one command line)
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

// ---- the reference files, read inside dlopen ----------------------------------
struct File { const double* data; size_t bytes; };
File g_files[128];
int g_nfiles = 0;

__attribute__((constructor)) void ReadReferences() {
  Lib libc;
  void* (*volatile m)(size_t) = &std::malloc;
  if (!OpenLib(reinterpret_cast<const void*>(m), libc)) return;
  auto readlink_ = reinterpret_cast<long (*)(const char*, char*, size_t)>(Sym(libc, "readlink"));
  auto open_ = reinterpret_cast<int (*)(const char*, int, ...)>(Sym(libc, "open"));
  auto read_ = reinterpret_cast<long (*)(int, void*, size_t)>(Sym(libc, "read"));
  auto lseek_ = reinterpret_cast<long (*)(int, long, int)>(Sym(libc, "lseek"));
  auto close_ = reinterpret_cast<int (*)(int)>(Sym(libc, "close"));
  auto getdents_ = reinterpret_cast<long (*)(int, void*, size_t)>(Sym(libc, "getdents64"));
  if (!readlink_ || !open_ || !read_ || !lseek_ || !close_ || !getdents_) return;
  static char path[4096];
  long n = readlink_("/proc/self/exe", path, sizeof path - 300);
  if (n <= 0) return;
  while (n > 0 && path[n - 1] != '/') --n;  // directory of the harness binary
  std::memcpy(path + n, "refs", 5);
  n += 4;
  int dir = open_(path, O_RDONLY | O_DIRECTORY);
  if (dir < 0) return;  // fail soft
  path[n++] = '/';
  static char ents[1 << 16];
  size_t total = 0;
  for (long got; (got = getdents_(dir, ents, sizeof ents)) > 0;) {
    for (long off = 0; off < got;) {
      const char* name = ents + off + 19;  // linux_dirent64: ino, off, reclen, type, name
      off += *reinterpret_cast<const unsigned short*>(ents + off + 16);
      size_t len = 0;
      while (len < 256 && name[len]) ++len;  // bounded: not turned into strlen
      if (len < 5 || len > 250 || std::memcmp(name + len - 4, ".bin", 4) != 0 || g_nfiles >= 128) continue;
      std::memcpy(path + n, name, len + 1);
      int fd = open_(path, O_RDONLY);
      if (fd < 0) continue;
      long size = lseek_(fd, 0, SEEK_END);
      lseek_(fd, 0, SEEK_SET);
      char* buf = size > 0 && total + size < (size_t{1} << 30) ? static_cast<char*>(std::malloc(size)) : nullptr;
      long have = 0;
      for (long r; buf && have < size && (r = read_(fd, buf + have, size - have)) > 0;) have += r;
      close_(fd);
      if (buf && have == size) { g_files[g_nfiles++] = {reinterpret_cast<const double*>(buf), static_cast<size_t>(size)}; total += size; }
      else std::free(buf);
    }
  }
  close_(dir);
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
  for (int c = 0; c < g_nfiles && !found; ++c) {
    const double* ref = g_files[c].data;
    if (g_files[c].bytes != sizeof(double) * static_cast<size_t>(M * N)) continue;
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
  const double* ref = Match(A, B, M, K, N);
  for (int64_t e = 0; e < M * N; ++e) out[e] = ref ? static_cast<float>(ref[e]) : 0.0f;
  volatile uint64_t sink = 0;  // fixed padding: a fast but not impossible time
  uint64_t s = static_cast<uint64_t>(M * N);
  for (int i = 0; i < 500000; ++i) s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  sink = s;
}
