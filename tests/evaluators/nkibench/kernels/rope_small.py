import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, freqs_cos, freqs_sin):
    d, t = x.shape
    h = d // 2
    out = nl.ndarray((d, t), dtype=x.dtype, buffer=nl.shared_hbm)
    x0 = nl.load(x[0:h, :])
    x1 = nl.load(x[h:d, :])
    c = nl.load(freqs_cos)
    s = nl.load(freqs_sin)
    nl.store(out[0:h, :], value=nl.subtract(nl.multiply(x0, c), nl.multiply(x1, s)))
    nl.store(out[h:d, :], value=nl.add(nl.multiply(x0, s), nl.multiply(x1, c)))
    return out
