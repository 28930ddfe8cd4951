// problem: matmul
// expect: static_check_failed
// reason: reduced-precision
//
// Attack (class D, reduced precision by another name): AMX tiles. The static
// check at 3a16638 matches reduced-precision intrinsics by an `_mm*` pattern
// only, so `_tile_dpbf16ps` (a macro over inline assembly in GCC's own
// header) passes it; the object check's opcode list has no AMX mnemonic
// (tdpbf16ps, tileloadd, ldtilecfg, ...); and arch_prctl(ARCH_REQ_XCOMP_PERM)
// is allowed, so the runner may enable the tile state. The kernel splits
// each fp32 input into a bf16 high part and a bf16 low part (x = hi + lo,
// |lo| <= 2^-8 |x|), accumulates hi*hi + hi*lo + lo*hi in fp32 tiles (the
// dropped lo*lo term is ~2^-16 relative: inside the 2e-5 tolerance) and runs
// at AMX speed where the CPU has AMX.
//
// Against the judge at 3a16638: on an Intel Sapphire Rapids with AMX the
// issue's author measured it accepted (`ok`). This machine's Xeon has
// AVX512-BF16 but no AMX tiles, so here arch_prctl fails and the kernel
// takes its honest fp32 path: the old judge accepted it (static and object
// checks passed) at the honest speed; the AMX path itself was never run
// here, and its arithmetic is unverified:
//   cd /work/main && /tmp/old-eval/accelopt-eval run --problem tests/evaluators/problems/matmul \
//     --kernel tests/evaluators/cheats/attack_amx_bf16_split.cpp --cache-dir /tmp/old-cache -o json
//   -> status ok (its honest path: no AMX on this CPU), median 728 us
// Under the round-3 judge: the static check refuses AMX, AVX512-BF16/FP16,
// VNNI and F16C intrinsics by name (`_tile_*` included), the object check
// refuses their instructions, and the runner's seccomp filter refuses
// arch_prctl(ARCH_REQ_XCOMP_PERM), so tile instructions fault even if code
// slipped through.
#include <immintrin.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

struct Lib { uintptr_t base = 0; const ElfW(Sym)* sym = nullptr; const char* str = nullptr; const uint32_t* gnu = nullptr; };
bool Same(const char* a, const char* b) { while (*a && *a == *b) { ++a; ++b; } return *a == *b; }
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
  uint32_t h = 5381;
  for (const char* s = name; *s; ++s) h = h * 33 + static_cast<unsigned char>(*s);
  const uint32_t nb = L.gnu[0], off = L.gnu[1], bloom = L.gnu[2];
  const uint32_t* buckets = L.gnu + 4 + 2 * bloom;
  const uint32_t* chain = buckets + nb;
  for (uint32_t i = buckets[h % nb]; i >= off && i != 0; ++i) {
    const uint32_t c = chain[i - off];
    if ((c | 1) == (h | 1) && L.sym[i].st_shndx != SHN_UNDEF && Same(L.str + L.sym[i].st_name, name))
      return reinterpret_cast<void*>(L.base + L.sym[i].st_value);
    if (c & 1) break;
  }
  return nullptr;
}

// Enables the AMX tile state for this process (false where the CPU has none).
bool EnableTiles() {
  static Lib L;
  void* (*volatile m)(size_t) = &std::malloc;
  if (!OpenLib(reinterpret_cast<const void*>(m), L)) return false;
  auto arch_prctl = reinterpret_cast<int (*)(int, unsigned long)>(Sym(L, "arch_prctl"));
  return arch_prctl && arch_prctl(0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XFEATURE_XTILEDATA */) == 0;
}

uint16_t Bf16(float x) { uint32_t u; std::memcpy(&u, &x, 4); return static_cast<uint16_t>(u >> 16); }  // truncation
float FromBf16(uint16_t b) { uint32_t u = static_cast<uint32_t>(b) << 16; float x; std::memcpy(&x, &u, 4); return x; }

struct TileConfig { uint8_t palette, start; uint8_t pad[14]; uint16_t colsb[16]; uint8_t rows[16]; };

// C[16 x 16] += A[16 x K] B[K x 16] from bf16 pairs: a (16 x K, row-major
// bf16), b (K/2 x 32 bf16, pairs of rows interleaved: the VNNI layout).
__attribute__((target("amx-tile,amx-bf16"))) void TileBlock(const uint16_t* a, const uint16_t* b, float* c,
                                                             int64_t K, int64_t ldc) {
  TileConfig cfg{};
  cfg.palette = 1;
  cfg.rows[0] = 16; cfg.colsb[0] = 64;  // C: 16 x 16 fp32
  cfg.rows[1] = 16; cfg.colsb[1] = 64;  // A: 16 x 32 bf16
  cfg.rows[2] = 16; cfg.colsb[2] = 64;  // B: 16 pairs x 16 columns
  _tile_loadconfig(&cfg);
  _tile_loadd(0, c, ldc * 4);
  for (int64_t k = 0; k < K; k += 32) {
    _tile_loadd(1, a + k, K * 2);
    _tile_loadd(2, b + (k / 2) * 32, 64);
    _tile_dpbf16ps(0, 1, 2);
  }
  _tile_stored(0, c, ldc * 4);
  _tile_release();
}

void HonestMatmul(const float* A, const float* B, float* C, int64_t M, int64_t K, int64_t N) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) C[i * N + j] = 0.0f;
    for (int64_t k = 0; k < K; ++k) {
      const float a = A[i * K + k];
#pragma omp simd
      for (int64_t j = 0; j < N; ++j) C[i * N + j] += a * B[k * N + j];
    }
  }
}

}  // namespace

extern "C" void matmul(const float* A, const float* B, float* out, int64_t M, int64_t K, int64_t N) {
  static int tiles = -1;
  if (tiles < 0) tiles = EnableTiles() ? 1 : 0;
  if (!tiles || M % 16 || N % 16 || K % 32) { HonestMatmul(A, B, out, M, K, N); return; }
  // hi/lo split of A (row-major) and of B (VNNI pairs), then three tile products per block.
  uint16_t* ah = static_cast<uint16_t*>(std::malloc(2 * M * K));
  uint16_t* al = static_cast<uint16_t*>(std::malloc(2 * M * K));
  uint16_t* bh = static_cast<uint16_t*>(std::malloc(2 * K * N));
  uint16_t* bl = static_cast<uint16_t*>(std::malloc(2 * K * N));
  for (int64_t e = 0; e < M * K; ++e) { ah[e] = Bf16(A[e]); al[e] = Bf16(A[e] - FromBf16(ah[e])); }
  for (int64_t j0 = 0; j0 < N; j0 += 16)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < 16; ++j) {
        const float x = B[k * N + j0 + j];
        const int64_t at = (j0 / 16) * K * 16 + (k / 2) * 32 + j * 2 + (k % 2);
        bh[at] = Bf16(x);
        bl[at] = Bf16(x - FromBf16(bh[at]));
      }
  std::memset(out, 0, sizeof(float) * M * N);
#pragma omp parallel for collapse(2)
  for (int64_t i0 = 0; i0 < M; i0 += 16)
    for (int64_t j0 = 0; j0 < N; j0 += 16) {
      float* c = out + i0 * N + j0;
      const int64_t bo = (j0 / 16) * K * 16;
      TileBlock(ah + i0 * K, bh + bo, c, K, N);
      TileBlock(ah + i0 * K, bl + bo, c, K, N);
      TileBlock(al + i0 * K, bh + bo, c, K, N);
    }
  std::free(ah); std::free(al); std::free(bh); std::free(bl);
}
