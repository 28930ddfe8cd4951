# expect: numpy_alias.load is file or test access
import numpy as numpy_alias
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    cached = numpy_alias.load("/tmp/answer.npy")
    return cached
