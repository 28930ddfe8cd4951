# bmm_softmax baseline: out[b] = softmax_rows(lhs[b] @ rhs[b]), row max subtracted.
# Two kernels: the product (one output element per lane, no tiling) into out,
# then the softmax in place (one row per lane).
# lhs: [B, M, K]; rhs: [B, K, N]; out: [B, M, N] (flat, row-major float32 CUDA tensors).
# Naive baseline: scalar loops over k and over the row, no tl.dot, fp32
# (tl.exp on fp32), int64 indices.
import triton
import triton.language as tl


@triton.jit
def bmm_softmax_product(lhs_ptr, rhs_ptr, out_ptr, M, K, N, BLOCK: tl.constexpr):
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


@triton.jit
def bmm_softmax_rows(out_ptr, rows, N, BLOCK: tl.constexpr):
    rows = tl.cast(rows, tl.int64)
    N = tl.cast(N, tl.int64)
    row = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # one row per lane
    mask = row < rows
    o_ptr = out_ptr + row * N
    row_max = tl.full([BLOCK], -float("inf"), tl.float32)
    for j in range(0, N):
        row_max = tl.maximum(row_max, tl.load(o_ptr + j, mask=mask, other=0.0))
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for j in range(0, N):
        e = tl.exp(tl.load(o_ptr + j, mask=mask, other=0.0) - row_max)
        tl.store(o_ptr + j, e, mask=mask)
        total += e
    for j in range(0, N):
        e = tl.load(o_ptr + j, mask=mask, other=0.0)
        tl.store(o_ptr + j, e / total, mask=mask)


def bmm_softmax(lhs, rhs, out, B, M, K, N):
    BLOCK = 256
    bmm_softmax_product[(triton.cdiv(M * N, BLOCK), B)](lhs, rhs, out, M, K, N, BLOCK=BLOCK,
                                                        num_warps=8)
    rows = B * M
    ROWS_BLOCK = 128
    bmm_softmax_rows[(triton.cdiv(rows, ROWS_BLOCK),)](out, rows, N, BLOCK=ROWS_BLOCK, num_warps=4)
