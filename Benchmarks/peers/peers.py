#!/usr/bin/env python3
"""Spotter's classifier side by side with PyTorch and ONNX Runtime, on one thread.

The same network with the same weights (read from a Spotter weights file) runs in:
  - Spotter, through libspotter (ctypes),
  - PyTorch eager, and TorchScript (traced),
  - ONNX Runtime (the PyTorch model exported to ONNX).
Outputs are checked against Spotter's to 1e-4 before anything is timed. Timing is interleaved
in one process, round after round, and reported as paired ratios (peer time / Spotter time in
the same round), median over rounds, so drift in the machine's speed cancels out.

Not part of `make test`. See README.md beside this file.
"""

import argparse
import ctypes
import io
import json
import os
import statistics
import struct
import sys
import time
import zlib

import numpy as np

# One thread everywhere, before the libraries start their pools.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
torch.set_num_interop_threads(1)

MAGIC = b"SPOTWTS\0"


def read_weights(path):
    """Parses a Spotter weights file (Weights/FORMAT.md): metadata and named tensors."""
    data = open(path, "rb").read()
    if data[:8] != MAGIC:
        sys.exit(f"{path}: not a Spotter weights file")
    (stored,) = struct.unpack_from("<I", data, len(data) - 4)
    if zlib.crc32(data[:-4]) != stored:
        sys.exit(f"{path}: checksum mismatch")
    version, meta_len = struct.unpack_from("<II", data, 8)
    metadata = json.loads(data[16 : 16 + meta_len])
    offset = 16 + meta_len
    (count,) = struct.unpack_from("<I", data, offset)
    offset += 4
    tensors = {}
    for _ in range(count):
        (name_len,) = struct.unpack_from("<I", data, offset)
        offset += 4
        name = data[offset : offset + name_len].decode()
        offset += name_len
        (rank,) = struct.unpack_from("<I", data, offset)
        offset += 4
        shape = struct.unpack_from("<" + "I" * rank, data, offset)
        offset += 4 * rank
        n = int(np.prod(shape))
        tensors[name] = np.frombuffer(data, dtype="<f4", count=n, offset=offset).reshape(shape).copy()
        offset += 4 * n
    return metadata, tensors


class TemporalNet(torch.nn.Module):
    """The Spotter network in PyTorch: Conv1d (no padding, dilation) + ReLU, mean over time,
    Linear, softmax. Input (B, T, F) as Spotter takes it."""

    def __init__(self, metadata, tensors):
        super().__init__()
        arch = metadata["architecture"]
        layers = []
        channels = arch["input_features"]
        for i, conv in enumerate(arch["convolutions"]):
            layer = torch.nn.Conv1d(channels, conv["channels"], conv["kernel"], dilation=conv["dilation"])
            # Spotter: (k, C_in, C_out); PyTorch: (C_out, C_in, k).
            layer.weight.data = torch.from_numpy(tensors[f"conv{i}.weight"].transpose(2, 1, 0).copy())
            layer.bias.data = torch.from_numpy(tensors[f"conv{i}.bias"])
            layers += [layer, torch.nn.ReLU()]
            channels = conv["channels"]
        self.convolutions = torch.nn.Sequential(*layers)
        self.linear = torch.nn.Linear(channels, arch["classes"])
        self.linear.weight.data = torch.from_numpy(tensors["linear.weight"].T.copy())
        self.linear.bias.data = torch.from_numpy(tensors["linear.bias"])

    def forward(self, windows):
        x = self.convolutions(windows.transpose(1, 2))
        return torch.softmax(self.linear(x.mean(dim=2)), dim=1)


class Spotter:
    """libspotter through ctypes."""

    def __init__(self, library, weights):
        self.lib = ctypes.CDLL(library)
        self.lib.spotter_model_load.restype = ctypes.c_void_p
        self.lib.spotter_model_load.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        self.lib.spotter_predict.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        self.lib.spotter_model_free.argtypes = [ctypes.c_void_p]
        error = ctypes.create_string_buffer(512)
        self.model = self.lib.spotter_model_load(weights.encode(), error, 512)
        if not self.model:
            sys.exit(f"libspotter: {error.value.decode()}")

    def predict(self, windows, out):
        self.lib.spotter_predict(self.model, windows.ctypes.data, windows.shape[0], out.ctypes.data)
        return out


def cpu_name():
    """The CPU's model name, so every figure says where it was measured."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or "unknown CPU"


def time_call(call, repeats):
    start = time.perf_counter()
    for _ in range(repeats):
        call()
    return (time.perf_counter() - start) / repeats


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--weights", default=os.path.join(root, "Weights", "default.spotter"),
                        help="weights file (default: Weights/default.spotter, else a standard-size model "
                             "written by `spotter init-weights`)")
    parser.add_argument("--library", default=os.path.join(root, ".build", "release", "libspotter.so"),
                        help="libspotter.so (default: .build/release/libspotter.so, from `make libspotter`)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=0.2, help="time per engine per round")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()

    if not os.path.exists(args.weights):
        sys.exit(f"{args.weights}: no such file (make weights, or spotter init-weights --output FILE)")
    metadata, tensors = read_weights(args.weights)
    arch = metadata["architecture"]
    T, F, K = arch["window"], arch["input_features"], arch["classes"]

    model = TemporalNet(metadata, tensors).eval()
    scripted = torch.jit.trace(model, torch.zeros(1, T, F))
    onnx_bytes = io.BytesIO()
    torch.onnx.export(model, torch.zeros(1, T, F), onnx_bytes, input_names=["windows"], output_names=["p"],
                      dynamic_axes={"windows": {0: "batch"}, "p": {0: "batch"}}, dynamo=False)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(onnx_bytes.getvalue(), options, providers=["CPUExecutionProvider"])
    spotter = Spotter(args.library, args.weights)

    rng = np.random.default_rng(7)
    cpu = cpu_name()
    results = {"cpu": cpu, "threads": 1, "torch": torch.__version__, "onnxruntime": ort.__version__,
               "batches": {}}
    print(f"CPU: {cpu}")
    print(f"torch {torch.__version__}, onnxruntime {ort.__version__}, 1 thread each; "
          f"model {args.weights}: T={T} F={F} K={K}")
    for batch in (1, 64):
        windows = rng.uniform(-1, 1, size=(batch, T, F)).astype(np.float32)
        windows[:, ::7, :] = 0  # frames with nobody, as in real streams
        tensor = torch.from_numpy(windows)
        out = np.zeros((batch, K), dtype=np.float32)
        engines = {
            "spotter": lambda: spotter.predict(windows, out),
            "onnxruntime": lambda: session.run(None, {"windows": windows})[0],
        }
        with torch.inference_mode():
            engines["torch eager"] = lambda: model(tensor).numpy()
            engines["torchscript"] = lambda: scripted(tensor).numpy()
            reference = engines["spotter"]().copy()
            for name, call in engines.items():
                difference = float(np.abs(call() - reference).max())
                if difference > 1e-4:
                    sys.exit(f"{name} differs from spotter by {difference:.2e} at batch {batch}")
                print(f"  batch {batch}: {name} matches spotter within {difference:.1e}")
            repeats = {name: max(1, int(args.seconds / time_call(call, 3))) for name, call in engines.items()}
            times = {name: [] for name in engines}
            for _ in range(args.rounds):
                for name, call in engines.items():
                    times[name].append(time_call(call, repeats[name]))
        row = {}
        for name in engines:
            ratios = [peer / mine for peer, mine in zip(times[name], times["spotter"])]
            row[name] = {"median_seconds": statistics.median(times[name]), "ratio_to_spotter": statistics.median(ratios)}
        results["batches"][str(batch)] = row
        print(f"batch {batch} ({cpu}):")
        for name, value in row.items():
            print(f"  {name:12s} {value['median_seconds'] * 1e6:10.1f} µs   {value['ratio_to_spotter']:6.2f}× Spotter's time")
    print(f"Spotter is faster by (peer time ÷ Spotter's, median of paired rounds), on {cpu}:")
    for batch, row in results["batches"].items():
        ratios = ", ".join(f"{name} {value['ratio_to_spotter']:.2f}×" for name, value in row.items()
                           if name != "spotter")
        print(f"  batch {batch}: {ratios}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=2)


if __name__ == "__main__":
    main()
