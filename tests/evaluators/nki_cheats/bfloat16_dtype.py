# expect: 'bfloat16': reduced precision
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x, dtype=nl.bfloat16)
    nl.store(out, value=t)
    return out
