# lora baseline: out = x @ w + (x @ a) @ b (no scaling factor). xa = x @ a into
# a scratch buffer in device memory (one element per lane), then one output
# element per lane; no tiling.
# x: [M, K]; w: [K, N]; a: [K, R]; b: [R, N]; out: [M, N] (flat, row-major
# float32 CUDA tensors); scratch xa: [M, R].
# Naive baseline: scalar loops over k and r, no tl.dot, fp32 accumulation,
# int64 indices.
import torch
import triton
import triton.language as tl


@triton.jit
def lora_down(x_ptr, a_ptr, xa_ptr, M, K, R, BLOCK: tl.constexpr):
    M = tl.cast(M, tl.int64)
    K = tl.cast(K, tl.int64)
    R = tl.cast(R, tl.int64)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # i * R + r
    mask = offs < M * R
    i = offs // R
    r = offs % R
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, K):
        xk = tl.load(x_ptr + i * K + k, mask=mask, other=0.0)
        ak = tl.load(a_ptr + k * R + r, mask=mask, other=0.0)
        acc += xk * ak
    tl.store(xa_ptr + i * R + r, acc, mask=mask)


@triton.jit
def lora_out(x_ptr, w_ptr, xa_ptr, b_ptr, out_ptr, M, K, N, R, BLOCK: tl.constexpr):
    M = tl.cast(M, tl.int64)
    K = tl.cast(K, tl.int64)
    N = tl.cast(N, tl.int64)
    R = tl.cast(R, tl.int64)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # i * N + j
    mask = offs < M * N
    i = offs // N
    j = offs % N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, K):
        xk = tl.load(x_ptr + i * K + k, mask=mask, other=0.0)
        wk = tl.load(w_ptr + k * N + j, mask=mask, other=0.0)
        acc += xk * wk
    low_rank = tl.zeros([BLOCK], dtype=tl.float32)
    for r in range(0, R):
        xar = tl.load(xa_ptr + i * R + r, mask=mask, other=0.0)
        br = tl.load(b_ptr + r * N + j, mask=mask, other=0.0)
        low_rank += xar * br
    tl.store(out_ptr + i * N + j, acc + low_rank, mask=mask)


def lora(x, w, a, b, out, M, K, N, R):
    xa = torch.empty(M * R, dtype=torch.float32, device=x.device)
    BLOCK = 256
    lora_down[(triton.cdiv(M * R, BLOCK),)](x, a, xa, M, K, R, BLOCK=BLOCK, num_warps=8)
    lora_out[(triton.cdiv(M * N, BLOCK),)](x, w, xa, b, out, M, K, N, R, BLOCK=BLOCK,
                                           num_warps=8)
    # xa goes back to torch's caching allocator on the current stream, after
    # the kernels above in stream order.
