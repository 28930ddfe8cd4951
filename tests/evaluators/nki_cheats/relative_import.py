# expect: relative imports are not allowed
from . import helpers
import neuronxcc.nki as nki


@nki.jit
def kernel(x):
    return helpers.run(x)
