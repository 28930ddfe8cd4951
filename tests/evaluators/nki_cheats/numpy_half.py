# expect: 'half': reduced precision
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=np.half, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(x))
    return out
