# expect: '.benchmark': the kernel must not launch, simulate or time itself
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.benchmark(warmup=1, iters=1)
def kernel(x):
    return x
