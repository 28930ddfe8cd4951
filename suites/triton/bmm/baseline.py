# bmm baseline: out[b] = lhs[b] @ rhs[b].
# lhs: [B, M, K]; rhs: [B, K, N]; out: [B, M, N] (flat, row-major float32 CUDA tensors).
# Naive baseline: one output element per lane, no tiling: program axis 1 is
# the batch b, each lane owns one out[b][i][j] and runs a scalar loop over k;
# no tl.dot, fp32 accumulation, int64 indices.
import triton
import triton.language as tl


@triton.jit
def bmm_kernel(lhs_ptr, rhs_ptr, out_ptr, M, K, N, BLOCK: tl.constexpr):
    M = tl.cast(M, tl.int64)
    K = tl.cast(K, tl.int64)
    N = tl.cast(N, tl.int64)
    b = tl.program_id(1).to(tl.int64)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # i * N + j
    mask = offs < M * N
    i = offs // N
    j = offs % N
    l_ptr = lhs_ptr + b * M * K
    r_ptr = rhs_ptr + b * K * N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, K):
        x = tl.load(l_ptr + i * K + k, mask=mask, other=0.0)
        y = tl.load(r_ptr + k * N + j, mask=mask, other=0.0)
        acc += x * y
    tl.store(out_ptr + (b * M + i) * N + j, acc, mask=mask)


def bmm(lhs, rhs, out, B, M, K, N):
    BLOCK = 256
    grid = (triton.cdiv(M * N, BLOCK), B)
    bmm_kernel[grid](lhs, rhs, out, M, K, N, BLOCK=BLOCK, num_warps=8)
