# expect: 'time' is not allowed
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    t0 = time.perf_counter()
    return x
