# rope_single_freq_apply baseline: rotate the two halves of x by (cos, sin),
# one (d, t) per lane.
# x, out: [2, Dh, T]; freqs_cos, freqs_sin: [Dh, T] (flat, row-major float32
# CUDA tensors).
# Naive baseline: one output pair per lane, no tiling, fp32, int64 indices.
import triton
import triton.language as tl


@triton.jit
def rope_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, n, BLOCK: tl.constexpr):
    n = tl.cast(n, tl.int64)
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # d * T + t
    mask = i < n
    x0 = tl.load(x_ptr + i, mask=mask, other=0.0)
    x1 = tl.load(x_ptr + n + i, mask=mask, other=0.0)
    c = tl.load(cos_ptr + i, mask=mask, other=0.0)
    s = tl.load(sin_ptr + i, mask=mask, other=0.0)
    tl.store(out_ptr + i, x0 * c - x1 * s, mask=mask)
    tl.store(out_ptr + n + i, x0 * s + x1 * c, mask=mask)


def rope_single_freq_apply(x, freqs_cos, freqs_sin, out, Dh, T):
    n = Dh * T
    BLOCK = 256
    rope_kernel[(triton.cdiv(n, BLOCK),)](x, freqs_cos, freqs_sin, out, n, BLOCK=BLOCK,
                                          num_warps=8)
