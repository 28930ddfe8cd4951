import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    return nl.fake_float64_output(x / (1 + np.exp(-x)))
