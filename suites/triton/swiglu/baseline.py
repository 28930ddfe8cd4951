# swiglu baseline: h = silu(x @ w_gate) * (x @ w_up) into a scratch buffer in
# device memory (one element of h per lane), then out = h @ w_down (one output
# element per lane); no tiling.
# x: [M, K]; w_up, w_gate: [K, N]; w_down: [N, K]; out: [M, K] (flat,
# row-major float32 CUDA tensors); scratch h: [M, N].
# Naive baseline: scalar loops over k and n, no tl.dot, fp32 (tl.exp on
# fp32), int64 indices.
import torch
import triton
import triton.language as tl


@triton.jit
def swiglu_hidden(x_ptr, w_up_ptr, w_gate_ptr, h_ptr, M, K, N, BLOCK: tl.constexpr):
    M = tl.cast(M, tl.int64)
    K = tl.cast(K, tl.int64)
    N = tl.cast(N, tl.int64)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # i * N + n
    mask = offs < M * N
    i = offs // N
    n = offs % N
    up = tl.zeros([BLOCK], dtype=tl.float32)
    gate = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, K):
        xk = tl.load(x_ptr + i * K + k, mask=mask, other=0.0)
        up += xk * tl.load(w_up_ptr + k * N + n, mask=mask, other=0.0)
        gate += xk * tl.load(w_gate_ptr + k * N + n, mask=mask, other=0.0)
    tl.store(h_ptr + i * N + n, gate / (1.0 + tl.exp(-gate)) * up, mask=mask)


@triton.jit
def swiglu_down(h_ptr, w_down_ptr, out_ptr, M, K, N, BLOCK: tl.constexpr):
    M = tl.cast(M, tl.int64)
    K = tl.cast(K, tl.int64)
    N = tl.cast(N, tl.int64)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # i * K + k
    mask = offs < M * K
    i = offs // K
    k = offs % K
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for n in range(0, N):
        hn = tl.load(h_ptr + i * N + n, mask=mask, other=0.0)
        wn = tl.load(w_down_ptr + n * K + k, mask=mask, other=0.0)
        acc += hn * wn
    tl.store(out_ptr + i * K + k, acc, mask=mask)


def swiglu(x, w_up, w_down, w_gate, out, M, K, N):
    h = torch.empty(M * N, dtype=torch.float32, device=x.device)
    BLOCK = 256
    swiglu_hidden[(triton.cdiv(M * N, BLOCK),)](x, w_up, w_gate, h, M, K, N, BLOCK=BLOCK,
                                                num_warps=8)
    swiglu_down[(triton.cdiv(M * K, BLOCK),)](h, w_down, out, M, K, N, BLOCK=BLOCK, num_warps=8)
    # h goes back to torch's caching allocator on the current stream, after
    # the kernels above in stream order.
