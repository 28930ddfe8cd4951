# expect: 'os' is not allowed
import numpy as np
import neuronxcc.nki as nki


@nki.jit
def kernel(x):
    np.core.os.environ["NEURON_CC_FLAGS"] = ""
    return x
