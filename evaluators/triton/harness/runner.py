# The triton runner: the untrusted process that runs one Triton candidate for
# the trusted judge (evaluators/judge/harness/judge_main.cpp, job `clock
# device`). It speaks the judge's wire (evaluators/judge/harness/wire.hpp) and
# answers every call with a DeviceReply, exactly as the cuda runner
# (evaluators/cuda/harness/runner_loop.hpp) does; the judge bounds its
# claimed device time by its own clock and compares every output itself.
#
# Started by the judge as `runner FUNCTION` (a copy of this file whose
# first line names the configured interpreter with -I), with descriptors
#   3 the candidate module's source (read only), 4 the shared memory,
#   5 commands, 6 replies
# and an environment of OMP_NUM_THREADS and the job's runner_env alone
# (CUDA_VISIBLE_DEVICES: the one GPU leased; TRITON_CACHE_DIR: a folder of
# this evaluation only, so no candidate finds another's compiled kernels).
#
# One call, in the cuda runner's order (runner_call.hpp):
#   1. upload every input from the shared region (fresh every call);
#   2. NaN-fill every output on the device;
#   3. flush the L2 (a write over a buffer larger than it);
#   4. start event on the current stream; the candidate's function; stop
#      event on the same stream, waited for;
#   5. download every output into this call's slot right after the stop
#      event (work left running on another stream is missing: NaN);
#   6. synchronize the device, then download every input back over the
#      judge's copy (the judge's "inputs are read-only" check sees writes).
# Any device error or exception: the runner exits (4: device, 3: load), and
# is never reused.
#
# The device is a class with the methods TorchDevice has; the real runner
# uses TorchDevice. tests/fakes/triton/fake_runner.py runs this same loop on
# a host-memory stand-in (numpy), to test the protocol without a GPU.
# NEVER RUN ON A GPU (docs/evaluation.md, "triton runner").
import math
import mmap
import os
import struct
import sys

MAGIC = 0x41434A57  # "ACJW"
VERSION = 2  # wire.hpp kVersion: inputs have max_batch slots too
MAX_PARAMS = 64
SO_FD, SHM_FD, COMMAND_FD, REPLY_FD = 3, 4, 5, 6
PAGE = 4096
OP_NULL, OP_LOAD, OP_CALL = ord("N"), ord("L"), ord("C")
DONE, LOAD_FAILED = 0, 1

HEADER = struct.Struct("=IIIIQ")  # magic, version, nparams, max_batch, region_bytes
PARAM = struct.Struct("=IIQQqd")  # kind, scalar_type, offset, slot_stride, elements, value
COMMAND = struct.Struct("=IIQ")  # op, count, seq
DEVICE_REPLY = struct.Struct("=IIQQ")  # op, status, seq, device_ns
assert HEADER.size == 24 and PARAM.size == 40 and COMMAND.size == 16 and DEVICE_REPLY.size == 24

# The modules a candidate may import (the static check says the same).
ALLOWED_IMPORTS = ("triton", "triton.language", "torch", "math")


def die(message, code=2):
    try:
        os.write(2, ("runner error: " + message + "\n").encode("utf-8", "replace"))
    finally:
        os._exit(code)


def read_full(fd, n):
    out = b""
    while len(out) < n:
        chunk = os.read(fd, n - len(out))
        if not chunk:
            return None
        out += chunk
    return out


def answer(op, seq, status, device_ns):
    data = DEVICE_REPLY.pack(op, status, seq, int(device_ns))
    while data:
        try:
            n = os.write(REPLY_FD, data)
        except OSError:
            os._exit(0)
        if n <= 0:
            os._exit(0)
        data = data[n:]


class TorchDevice:
    """The GPU through torch: CUDA events on the current stream."""

    def __init__(self):
        import torch  # noqa: imported here so the fake needs no torch

        self.torch = torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch sees no CUDA device")
        if torch.cuda.device_count() != 1:
            raise RuntimeError("torch sees %d CUDA devices, not the one leased" % torch.cuda.device_count())
        torch.cuda.init()
        self.stream = torch.cuda.current_stream()
        props = torch.cuda.get_device_properties(0)
        l2 = int(getattr(props, "L2_cache_size", 0) or 0)
        # Twice the L2 and at least 256 MiB, as the cuda runner.
        self.flush = torch.empty(max(2 * l2, 256 << 20), dtype=torch.int8, device="cuda")
        self.start_event = torch.cuda.Event(enable_timing=True)
        self.stop_event = torch.cuda.Event(enable_timing=True)

    def alloc(self, elements):
        return self.torch.empty(elements, dtype=self.torch.float32, device="cuda")

    def host_view(self, region, offset, elements):
        return self.torch.frombuffer(region, dtype=self.torch.float32, count=elements, offset=offset)

    def upload(self, device, host):
        device.copy_(host)

    def fill_nan(self, device):
        device.fill_(math.nan)

    def flush_l2(self):
        self.flush.zero_()

    def start(self):
        self.start_event.record(self.stream)

    def stop(self):
        """Records the stop event, waits for it; the start->stop time in ns."""
        self.stop_event.record(self.stream)
        self.stop_event.synchronize()
        return self.start_event.elapsed_time(self.stop_event) * 1e6

    def download(self, host, device):
        host.copy_(device)

    def synchronize(self):
        self.torch.cuda.synchronize()


def load_candidate(function):
    """Executes the candidate's module from fd 3; its function."""
    source = b""
    while True:
        chunk = os.read(SO_FD, 1 << 20)
        if not chunk:
            break
        source += chunk
    os.close(SO_FD)
    import linecache
    import types

    text = source.decode("utf-8")
    # triton.jit reads its functions' source (inspect.getsource): the module
    # has no file, so its lines are registered where inspect looks.
    linecache.cache["candidate.py"] = (len(text), None, text.splitlines(True), "candidate.py")
    module = types.ModuleType("candidate")
    module.__file__ = "candidate.py"
    sys.modules["candidate"] = module  # triton.jit reads its function's module source
    code = compile(text, "candidate.py", "exec")
    exec(code, module.__dict__)
    fn = module.__dict__.get(function)
    if not callable(fn):
        raise LookupError("the module does not define a function " + function)
    return fn


def run(make_device, argv):
    if len(argv) != 2:
        die("usage: triton_runner FUNCTION")
    function = argv[1]
    try:  # die with the judge (PR_SET_PDEATHSIG, SIGKILL), as the cuda runner
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0)
    except Exception:
        pass
    if not os.environ.get("CUDA_VISIBLE_DEVICES"):
        die("CUDA_VISIBLE_DEVICES is not set: the judge names the runner's one GPU")
    size = os.fstat(SHM_FD).st_size
    if size < PAGE:
        die("no shared memory on fd 4")
    region = mmap.mmap(SHM_FD, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    os.close(SHM_FD)
    magic, version, nparams, max_batch, _ = HEADER.unpack_from(region, 0)
    if magic != MAGIC or version != VERSION or nparams > MAX_PARAMS or max_batch < 1 or max_batch > 4096:
        die("bad shared memory header")
    try:
        dev = make_device()
    except Exception as e:  # no GPU, no driver, no torch: the runner cannot start
        die("CUDA: %s: %s" % (type(e).__name__, e), 4)

    args, buffers = [], []  # buffers: (kind, device, host slot views)
    for k in range(nparams):
        kind, scalar_type, offset, slot_stride, elements, value = PARAM.unpack_from(region, HEADER.size + k * PARAM.size)
        kind, scalar_type = chr(kind), chr(scalar_type)
        if kind in ("i", "o"):
            # The layout is read once, here, and validated (wire.hpp ReadLayout);
            # the header page is never read again.
            slots = max_batch
            if (elements < 0 or offset < PAGE or offset % PAGE or slot_stride % PAGE or slot_stride < 4 * elements
                    or offset + (slots - 1) * slot_stride + 4 * elements > size):
                die("buffer outside the shared memory")
            try:
                device = dev.alloc(elements)
                views = [dev.host_view(region, offset + s * slot_stride, elements) for s in range(slots)]
            except Exception as e:
                die("CUDA: %s: %s" % (type(e).__name__, e), 4)
            buffers.append((kind, device, views))
            args.append(device)  # the candidate sees device tensors only
        elif kind == "d" or (kind == "s" and scalar_type == "i"):
            args.append(int(elements) if kind == "d" else int(value))
        else:
            args.append(float(value))

    def call_once(slot, fn):
        stage = "uploading the inputs"
        try:
            for kind, device, views in buffers:
                if kind == "i":
                    dev.upload(device, views[slot])
            stage = "NaN-filling the outputs"
            for kind, device, views in buffers:
                if kind == "o":
                    dev.fill_nan(device)
            stage = "flushing the L2"
            dev.flush_l2()
            stage = "recording the start event"
            dev.start()
            stage = "the kernel"
            if fn is not None:
                fn(*args)
            stage = "the kernel (at its stop event)"
            ns = dev.stop()
            stage = "copying the outputs out"
            for kind, device, views in buffers:
                if kind == "o":
                    dev.download(views[slot], device)
            stage = "the kernel (after its stop event)"
            dev.synchronize()
            stage = "copying the inputs back"
            for kind, device, views in buffers:
                if kind == "i":
                    dev.download(views[slot], device)
            return ns
        except Exception as e:  # the candidate's or the device's: never reused
            die("CUDA: %s: %s: %s" % (stage, type(e).__name__, e), 4)

    fn = None
    while True:
        raw = read_full(COMMAND_FD, COMMAND.size)
        if raw is None:
            os._exit(0)
        op, count, seq = COMMAND.unpack(raw)
        if op == OP_NULL:  # the same device work as a call, without the kernel
            call_once(0, None)
            answer(op, seq, DONE, 0)
        elif op == OP_LOAD:
            if fn is not None:
                die("loaded twice")
            try:
                fn = load_candidate(function)
            except Exception as e:  # said, answered as a load failure (as the cpu runner does), then gone
                os.write(2, ("load error: cannot load the kernel: %s: %s\n" % (type(e).__name__, e)).encode("utf-8", "replace"))
                answer(op, seq, LOAD_FAILED, 0)
                os._exit(3)
            answer(op, seq, DONE, 0)
        elif op == OP_CALL:
            if fn is None:
                die("call before load")
            if count < 1 or count > max_batch:
                die("bad batch size")
            total = 0.0
            for i in range(count):
                total += call_once(i, fn)
            answer(op, seq, DONE, total)
        else:
            die("unknown command")


if __name__ == "__main__":
    run(TorchDevice, sys.argv)
