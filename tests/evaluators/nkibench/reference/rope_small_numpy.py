import numpy as np

B = 1
H = 2
N = 64
D = 16


def get_inputs():
    x = np.random.normal(loc=0, scale=1.0, size=(D, B * H * N)).astype(np.float32)
    cos = np.random.uniform(-1.0, 1.0, size=(D // 2, B * H * N)).astype(np.float32)
    sin = np.random.uniform(-1.0, 1.0, size=(D // 2, B * H * N)).astype(np.float32)
    return [x, cos, sin]


def forward(x, freqs_cos, freqs_sin):
    h = D // 2
    first = x[:h] * freqs_cos - x[h:] * freqs_sin
    second = x[:h] * freqs_sin + x[h:] * freqs_cos
    return np.concatenate([first, second], axis=0)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    outs = k_res if isinstance(k_res, tuple) else (k_res,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    return [np.reshape(o, r.shape) for o, r in zip(outs, refs)]
