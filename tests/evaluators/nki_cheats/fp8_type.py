# expect: 'float8_e4m3': reduced precision
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.copy(nl.load(x), dtype=nl.float8_e4m3))
    return out
