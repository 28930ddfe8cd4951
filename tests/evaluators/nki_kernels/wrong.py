import numpy as np
import neuronxcc.nki as nki


@nki.jit
def kernel(x):
    # tanh-approximated SiLU: close, but not within 2e-5.
    return (x * 0.5 * (1 + np.tanh(0.5 * x * 1.001))).astype(np.float32)
