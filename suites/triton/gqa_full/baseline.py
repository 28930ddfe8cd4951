# gqa_full baseline: non-causal grouped-query attention in three kernels over
# a scores buffer in device memory: scores (one score per lane), softmax (one
# row per lane), scores @ v (one output element per lane). No tiling.
# q: [B, N, QH, D]; k, v: [B, N, KH, D]; out: [B, QH, N, D] (flat, row-major
# float32 CUDA tensors). Query head h reads key/value head h / (QH / KH).
# Naive baseline: scalar loops over d and over the keys, no tl.dot, fp32
# (tl.exp on fp32), int64 indices; scratch p: [B, QH, N, N].
import math

import torch
import triton
import triton.language as tl


@triton.jit
def gqa_scores(q_ptr, k_ptr, p_ptr, N, QH, KH, D, scale, BLOCK: tl.constexpr):
    N = tl.cast(N, tl.int64)
    QH = tl.cast(QH, tl.int64)
    KH = tl.cast(KH, tl.int64)
    D = tl.cast(D, tl.int64)
    bh = tl.program_id(1).to(tl.int64)  # b * QH + h
    b = bh // QH
    h = bh % QH
    kh = h // (QH // KH)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # i * N + j
    mask = offs < N * N
    i = offs // N
    j = offs % N
    qi_ptr = q_ptr + ((b * N + i) * QH + h) * D
    kj_ptr = k_ptr + ((b * N + j) * KH + kh) * D
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for d in range(0, D):
        qd = tl.load(qi_ptr + d, mask=mask, other=0.0)
        kd = tl.load(kj_ptr + d, mask=mask, other=0.0)
        s += qd * kd
    tl.store(p_ptr + (bh * N + i) * N + j, s * scale, mask=mask)


@triton.jit
def gqa_softmax(p_ptr, rows, N, BLOCK: tl.constexpr):
    rows = tl.cast(rows, tl.int64)
    N = tl.cast(N, tl.int64)
    row = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # one row per lane
    mask = row < rows
    r_ptr = p_ptr + row * N
    row_max = tl.full([BLOCK], -float("inf"), tl.float32)
    for j in range(0, N):
        row_max = tl.maximum(row_max, tl.load(r_ptr + j, mask=mask, other=0.0))
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for j in range(0, N):
        e = tl.exp(tl.load(r_ptr + j, mask=mask, other=0.0) - row_max)
        tl.store(r_ptr + j, e, mask=mask)
        total += e
    for j in range(0, N):
        e = tl.load(r_ptr + j, mask=mask, other=0.0)
        tl.store(r_ptr + j, e / total, mask=mask)


@triton.jit
def gqa_values(p_ptr, v_ptr, out_ptr, N, QH, KH, D, BLOCK: tl.constexpr):
    N = tl.cast(N, tl.int64)
    QH = tl.cast(QH, tl.int64)
    KH = tl.cast(KH, tl.int64)
    D = tl.cast(D, tl.int64)
    bh = tl.program_id(1).to(tl.int64)  # b * QH + h
    b = bh // QH
    h = bh % QH
    kh = h // (QH // KH)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # i * D + d
    mask = offs < N * D
    i = offs // D
    d = offs % D
    r_ptr = p_ptr + (bh * N + i) * N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for j in range(0, N):
        pj = tl.load(r_ptr + j, mask=mask, other=0.0)
        vj = tl.load(v_ptr + ((b * N + j) * KH + kh) * D + d, mask=mask, other=0.0)
        acc += pj * vj
    tl.store(out_ptr + (bh * N + i) * D + d, acc, mask=mask)


def gqa_full(q, k, v, out, B, N, QH, KH, D):
    p = torch.empty(B * QH * N * N, dtype=torch.float32, device=q.device)
    scale = 1.0 / math.sqrt(D)  # rounded to fp32 at the launch
    BLOCK = 256
    gqa_scores[(triton.cdiv(N * N, BLOCK), B * QH)](q, k, p, N, QH, KH, D, scale, BLOCK=BLOCK,
                                                    num_warps=8)
    rows = B * QH * N
    ROWS_BLOCK = 128
    gqa_softmax[(triton.cdiv(rows, ROWS_BLOCK),)](p, rows, N, BLOCK=ROWS_BLOCK, num_warps=4)
    gqa_values[(triton.cdiv(N * D, BLOCK), B * QH)](p, v, out, N, QH, KH, D, BLOCK=BLOCK,
                                                    num_warps=8)
    # p goes back to torch's caching allocator on the current stream, after the
    # kernels above in stream order.
