# expect: unterminated string literal
import neuronxcc.nki as nki


@nki.jit
def kernel(x):
    s = """never closed
    return x
