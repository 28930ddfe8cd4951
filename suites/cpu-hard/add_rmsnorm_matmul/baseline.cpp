// add_rmsnorm_matmul baseline (cpu-hard): y = x + z; y = y / sqrt(mean_k y^2 + eps) * g;
// out = y @ w; x, z [M, K], g [K], w [K, N], out [M, N].
// The normalized rows go to a scratch [M, K] (AVX2, OpenMP over rows), then a
// cache-blocked GEMM (packed 256 x 256 blocks of w, a 6 x 16 AVX2/FMA
// register tile), OpenMP over 256-column blocks of out.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

static inline float HSum8(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

static inline float HMax8(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// One thread's cache-blocked GEMM: C[M, N] (+)= A[M, K] * B[K, N], all
// row-major (rows lda, ldb, ldc apart). Blocks of kKC x kNC of B are packed
// into 16-column strips (zero-padded) in `pack` (kKC * kNC floats, 32-byte
// aligned) and multiplied by a 6 x 16 AVX2/FMA register tile.
constexpr int64_t kMR = 6, kNR = 16, kKC = 256, kNC = 256;

static inline void StoreRow(float* c, __m256 v0, __m256 v1, bool accumulate, int64_t nr) {
  if (nr == kNR) {
    if (accumulate) {
      v0 = _mm256_add_ps(v0, _mm256_loadu_ps(c));
      v1 = _mm256_add_ps(v1, _mm256_loadu_ps(c + 8));
    }
    _mm256_storeu_ps(c, v0);
    _mm256_storeu_ps(c + 8, v1);
    return;
  }
  alignas(32) float t[kNR];
  _mm256_store_ps(t, v0);
  _mm256_store_ps(t + 8, v1);
  for (int64_t j = 0; j < nr; ++j) c[j] = accumulate ? c[j] + t[j] : t[j];
}

// C[mr x nr] (+)= A[mr x kc] * Bp[kc x 16], mr <= 6, nr <= 16: twelve
// accumulators in registers; rows past mr read row 0 and are not stored.
static inline void MicroTile(int64_t kc, const float* A, int64_t lda, int64_t mr, const float* Bp, float* C,
                             int64_t ldc, bool accumulate, int64_t nr) {
  const float* a0 = A;
  const float* a1 = A + (mr > 1 ? lda : 0);
  const float* a2 = A + (mr > 2 ? 2 * lda : 0);
  const float* a3 = A + (mr > 3 ? 3 * lda : 0);
  const float* a4 = A + (mr > 4 ? 4 * lda : 0);
  const float* a5 = A + (mr > 5 ? 5 * lda : 0);
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  for (int64_t k = 0; k < kc; ++k) {
    const __m256 b0 = _mm256_load_ps(Bp + kNR * k), b1 = _mm256_load_ps(Bp + kNR * k + 8);
    __m256 a = _mm256_broadcast_ss(a0 + k);
    c00 = _mm256_fmadd_ps(a, b0, c00);
    c01 = _mm256_fmadd_ps(a, b1, c01);
    a = _mm256_broadcast_ss(a1 + k);
    c10 = _mm256_fmadd_ps(a, b0, c10);
    c11 = _mm256_fmadd_ps(a, b1, c11);
    a = _mm256_broadcast_ss(a2 + k);
    c20 = _mm256_fmadd_ps(a, b0, c20);
    c21 = _mm256_fmadd_ps(a, b1, c21);
    a = _mm256_broadcast_ss(a3 + k);
    c30 = _mm256_fmadd_ps(a, b0, c30);
    c31 = _mm256_fmadd_ps(a, b1, c31);
    a = _mm256_broadcast_ss(a4 + k);
    c40 = _mm256_fmadd_ps(a, b0, c40);
    c41 = _mm256_fmadd_ps(a, b1, c41);
    a = _mm256_broadcast_ss(a5 + k);
    c50 = _mm256_fmadd_ps(a, b0, c50);
    c51 = _mm256_fmadd_ps(a, b1, c51);
  }
  StoreRow(C, c00, c01, accumulate, nr);
  if (mr > 1) StoreRow(C + ldc, c10, c11, accumulate, nr);
  if (mr > 2) StoreRow(C + 2 * ldc, c20, c21, accumulate, nr);
  if (mr > 3) StoreRow(C + 3 * ldc, c30, c31, accumulate, nr);
  if (mr > 4) StoreRow(C + 4 * ldc, c40, c41, accumulate, nr);
  if (mr > 5) StoreRow(C + 5 * ldc, c50, c51, accumulate, nr);
}

static void PackB(int64_t kc, int64_t nc, const float* B, int64_t ldb, float* pack) {
  for (int64_t s = 0; s * kNR < nc; ++s) {
    float* p = pack + s * kNR * kc;
    const int64_t j0 = s * kNR, nr = std::min(kNR, nc - j0);
    if (nr == kNR) {
      for (int64_t k = 0; k < kc; ++k) {
        _mm256_store_ps(p + kNR * k, _mm256_loadu_ps(B + k * ldb + j0));
        _mm256_store_ps(p + kNR * k + 8, _mm256_loadu_ps(B + k * ldb + j0 + 8));
      }
    } else {
      for (int64_t k = 0; k < kc; ++k)
        for (int64_t j = 0; j < kNR; ++j) p[kNR * k + j] = j < nr ? B[k * ldb + j0 + j] : 0.0f;
    }
  }
}

static void GemmST(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
                   int64_t ldc, bool accumulate, float* pack) {
  for (int64_t jc = 0; jc < N; jc += kNC) {
    const int64_t nc = std::min(kNC, N - jc);
    for (int64_t pc = 0; pc < K; pc += kKC) {
      const int64_t kc = std::min(kKC, K - pc);
      PackB(kc, nc, B + pc * ldb + jc, ldb, pack);
      const bool acc = accumulate || pc > 0;
      for (int64_t ic = 0; ic < M; ic += kMR) {
        const int64_t mr = std::min(kMR, M - ic);
        const float* a = A + ic * lda + pc;
        for (int64_t s = 0; s * kNR < nc; ++s) {
          const float* bp = pack + s * kNR * kc;
          float* c = C + ic * ldc + jc + s * kNR;
          const int64_t nr = std::min(kNR, nc - s * kNR);
          MicroTile(kc, a, lda, mr, bp, c, ldc, acc, nr);
        }
      }
    }
  }
}

static float* NewPack() {
  return static_cast<float*>(std::aligned_alloc(64, sizeof(float) * kKC * kNC));
}

// C[M, N] (+)= A * B over the calling team: column blocks of kNC split among
// the threads. Call from inside `#pragma omp parallel`.
[[maybe_unused]] static void GemmTeam(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                     float* C, int64_t ldc, bool accumulate, float* pack) {
  const int64_t nb = (N + kNC - 1) / kNC;
#pragma omp for schedule(dynamic, 1)
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t j0 = b * kNC;
    GemmST(M, std::min(kNC, N - j0), K, A, lda, B + j0, ldb, C + j0, ldc, accumulate, pack);
  }
}

extern "C" void add_rmsnorm_matmul(const float* x, const float* z, const float* g, const float* w, float* out,
                                   float eps, int64_t M, int64_t K, int64_t N) {
  float* y = static_cast<float*>(std::malloc(sizeof(float) * M * K));
  const int64_t kv = K / 8 * 8;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int64_t i = 0; i < M; ++i) {
      float* yi = y + i * K;
      __m256 acc = _mm256_setzero_ps();
      for (int64_t k = 0; k < kv; k += 8) {
        const __m256 s = _mm256_add_ps(_mm256_loadu_ps(x + i * K + k), _mm256_loadu_ps(z + i * K + k));
        _mm256_storeu_ps(yi + k, s);
        acc = _mm256_fmadd_ps(s, s, acc);
      }
      float ss = HSum8(acc);
      for (int64_t k = kv; k < K; ++k) {
        yi[k] = x[i * K + k] + z[i * K + k];
        ss += yi[k] * yi[k];
      }
      const float inv = 1.0f / std::sqrt(ss / static_cast<float>(K) + eps);
      const __m256 vinv = _mm256_set1_ps(inv);
      for (int64_t k = 0; k < kv; k += 8)
        _mm256_storeu_ps(yi + k, _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(yi + k), vinv), _mm256_loadu_ps(g + k)));
      for (int64_t k = kv; k < K; ++k) yi[k] = yi[k] * inv * g[k];
    }
    float* pack = NewPack();
    GemmTeam(M, N, K, y, K, w, N, out, N, false, pack);
    std::free(pack);
  }
  std::free(y);
}
