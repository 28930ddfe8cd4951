# expect: import of 'socket' is not allowed
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    import numpy as np; import socket
    return x
