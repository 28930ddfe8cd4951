# adamw baseline: one AdamW step, one element per lane, into separate outputs.
# theta, g, m, v, theta_out, m_out, v_out: [M, N] (flat float32 CUDA tensors).
# Naive baseline: one output element per lane, no tiling, fp32 (tl.sqrt on
# fp32), int64 indices.
import triton
import triton.language as tl


@triton.jit
def adamw_kernel(theta_ptr, g_ptr, m_ptr, v_ptr, theta_out_ptr, m_out_ptr, v_out_ptr, lr, beta1,
                 beta2, eps, weight_decay, bias_correction1, bias_correction2, n,
                 BLOCK: tl.constexpr):
    n = tl.cast(n, tl.int64)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    theta = tl.load(theta_ptr + offs, mask=mask, other=0.0)
    gi = tl.load(g_ptr + offs, mask=mask, other=0.0)
    mi = beta1 * tl.load(m_ptr + offs, mask=mask, other=0.0) + (1.0 - beta1) * gi
    vi = beta2 * tl.load(v_ptr + offs, mask=mask, other=0.0) + (1.0 - beta2) * gi * gi
    m_hat = mi / bias_correction1
    v_hat = vi / bias_correction2
    decayed = theta - lr * weight_decay * theta
    tl.store(theta_out_ptr + offs, decayed - lr * m_hat / (tl.sqrt(v_hat) + eps), mask=mask)
    tl.store(m_out_ptr + offs, mi, mask=mask)
    tl.store(v_out_ptr + offs, vi, mask=mask)


def adamw(theta, g, m, v, theta_out, m_out, v_out, lr, beta1, beta2, eps, weight_decay,
          bias_correction1, bias_correction2, M, N):
    n = M * N
    BLOCK = 256
    adamw_kernel[(triton.cdiv(n, BLOCK),)](theta, g, m, v, theta_out, m_out, v_out, lr, beta1,
                                           beta2, eps, weight_decay, bias_correction1,
                                           bias_correction2, n, BLOCK=BLOCK, num_warps=8)
