# silu baseline: out = x / (1 + exp(-x)), one element per lane.
# x, out: [M, N] (flat float32 CUDA tensors).
# Naive baseline: one output element per lane, no tiling, fp32 (tl.exp on
# fp32), int64 indices.
import triton
import triton.language as tl


@triton.jit
def silu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    n = tl.cast(n, tl.int64)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x / (1.0 + tl.exp(-x)), mask=mask)


def silu(x, out, M, N):
    n = M * N
    BLOCK = 256
    silu_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK, num_warps=8)
