import numpy as np

M = 128
N = 256
K = 128


def get_inputs():
    x = np.random.normal(loc=0, scale=1.0, size=(M, K)).astype(np.float32)
    w = np.random.normal(loc=0, scale=1.0, size=(K, N)).astype(np.float32)
    z = np.random.normal(loc=0, scale=1.0, size=(M, K)).astype(np.float32)
    g = np.abs(np.random.normal(loc=0, scale=0.5, size=(K,))).astype(np.float32)
    return [x, w, 1e-5, z, g]


def forward(x, w, eps, z, g):
    y = x + z
    rms = np.sqrt(np.mean(y * y, axis=-1, keepdims=True) + eps)
    return np.matmul(y / rms * g, w)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    outs = k_res if isinstance(k_res, tuple) else (k_res,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    return [np.reshape(o, r.shape) for o, r in zip(outs, refs)]
