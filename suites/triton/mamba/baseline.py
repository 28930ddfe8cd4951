# mamba baseline: Mamba-v1 selective scan, one channel per lane (the scan over
# t is sequential), the S-element state in registers.
#   h[c][s] = exp(delta[c][t] * a[c][s]) * h[c][s] + delta[c][t] * b[s][t] * u[c][t]
#   out[c][t] = sum_s c[s][t] * h[c][s]
# delta, u, out: [C, M]; a: [C, S]; b, c: [S, M] (flat, row-major float32 CUDA
# tensors). h starts at zero.
# Naive baseline: a scalar loop over t; the lane's state is a row of a
# [BLOCK_C, BLOCK_S] register tensor (Triton has no per-lane arrays), summed
# over s with tl.sum; a[c][s] reloaded every step as in the cuda baseline;
# fp32 (tl.exp on fp32), int64 indices.
import triton
import triton.language as tl


@triton.jit
def mamba_kernel(delta_ptr, u_ptr, a_ptr, b_ptr, c_ptr, out_ptr, C, S, M,
                 BLOCK_C: tl.constexpr, BLOCK_S: tl.constexpr):
    C = tl.cast(C, tl.int64)
    S = tl.cast(S, tl.int64)
    M = tl.cast(M, tl.int64)
    ch = tl.program_id(0).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)  # one channel per lane
    ch_mask = ch < C
    s = tl.arange(0, BLOCK_S)
    s_mask = s < S
    cs_mask = ch_mask[:, None] & s_mask[None, :]
    h = tl.zeros([BLOCK_C, BLOCK_S], dtype=tl.float32)
    for t in range(0, M):
        dt = tl.load(delta_ptr + ch * M + t, mask=ch_mask, other=0.0)
        ut = tl.load(u_ptr + ch * M + t, mask=ch_mask, other=0.0)
        a = tl.load(a_ptr + ch[:, None] * S + s[None, :], mask=cs_mask, other=0.0)
        bt = tl.load(b_ptr + s * M + t, mask=s_mask, other=0.0)
        ct = tl.load(c_ptr + s * M + t, mask=s_mask, other=0.0)
        # padded states (s >= S) have a = b = c = 0: h stays 0 and adds 0 to y
        h = tl.exp(dt[:, None] * a) * h + dt[:, None] * bt[None, :] * ut[:, None]
        y = tl.sum(ct[None, :] * h, axis=1)
        tl.store(out_ptr + ch * M + t, y, mask=ch_mask)


def mamba(delta, u, a, b, c, out, C, S, M):
    BLOCK_C = 32
    BLOCK_S = triton.next_power_of_2(S)  # the suite's S is 16
    mamba_kernel[(triton.cdiv(C, BLOCK_C),)](delta, u, a, b, c, out, C, S, M, BLOCK_C=BLOCK_C,
                                             BLOCK_S=BLOCK_S, num_warps=1)
