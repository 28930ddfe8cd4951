# expect: import from 'neuronxcc' is not allowed
from neuronxcc import nki, starfish
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    return x
