import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(delta, u, a, b, c):
    ch, m = delta.shape
    s = a.shape[1]
    out = nl.ndarray((ch, m), dtype=delta.dtype, buffer=nl.shared_hbm)
    h = nl.zeros((ch, s), dtype=np.float32)
    for t in nl.sequential_range(m):
        d = nl.load(delta[:, t])
        h = nl.add(nl.multiply(nl.exp(nl.multiply(d, nl.load(a))), h),
                   nl.multiply(nl.multiply(d, nl.load(b[:, t])), nl.load(u[:, t])))
        nl.store(out[:, t], value=nl.sum(nl.multiply(h, nl.load(c[:, t])), axis=[1]))
    return out
