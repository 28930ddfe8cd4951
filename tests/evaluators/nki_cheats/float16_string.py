# expect: 'float16' in a string
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype="float16", buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(x))
    return out
