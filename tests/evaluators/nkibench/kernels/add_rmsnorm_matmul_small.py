import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def optimized_kernel(x, w, eps, z, g):
    m, k = x.shape
    n = w.shape[1]
    out = nl.ndarray((m, n), dtype=x.dtype, buffer=nl.shared_hbm)
    y = nl.add(nl.load(x), nl.load(z))
    ms = nl.mean(nl.multiply(y, y), axis=[1], keepdims=True)
    yn = nl.multiply(nl.multiply(y, nl.rsqrt(nl.add(ms, eps))), nl.load(g.reshape((1, k))))
    nl.store(out, value=nl.matmul(yn, nl.load(w)))
    return out
