# matmul baseline: out = lhs @ rhs.
# lhs: [M, K]; rhs: [K, N]; out: [M, N] (flat, row-major float32 CUDA tensors).
# Naive baseline: one output element per lane, no tiling: each lane owns one
# out[i][j] and runs a scalar loop over k (lhs[i][k] gathered, rhs[k][j]
# across the lanes); no tl.dot, fp32 accumulation, int64 indices.
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(lhs_ptr, rhs_ptr, out_ptr, M, K, N, BLOCK: tl.constexpr):
    M = tl.cast(M, tl.int64)
    K = tl.cast(K, tl.int64)
    N = tl.cast(N, tl.int64)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # i * N + j
    mask = offs < M * N
    i = offs // N
    j = offs % N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, K):
        a = tl.load(lhs_ptr + i * K + k, mask=mask, other=0.0)
        b = tl.load(rhs_ptr + k * N + j, mask=mask, other=0.0)
        acc += a * b
    tl.store(out_ptr + offs, acc, mask=mask)


def matmul(lhs, rhs, out, M, K, N):
    BLOCK = 256
    grid = (triton.cdiv(M * N, BLOCK),)
    matmul_kernel[grid](lhs, rhs, out, M, K, N, BLOCK=BLOCK, num_warps=8)
