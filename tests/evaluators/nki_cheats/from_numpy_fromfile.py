# expect: numpy.fromfile is file or test access
from numpy import fromfile
import neuronxcc.nki as nki


@nki.jit
def kernel(x):
    return fromfile("/tmp/answer.bin")
