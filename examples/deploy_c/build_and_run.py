"""Compile a model, export it, build the C program in this folder against ember's C API,
and run the model from C; compare with the Python VM.

Run: python examples/deploy_c/build_and_run.py
"""

import os
import subprocess
import tempfile

import numpy as np

import ember
from ember import relax, relay
from ember.runtime.c_api import build_runtime

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    mod, params = relay.testing.mlp.get_workload(batch_size=1)
    exe = relax.build(mod, target="llvm", params=params)
    x = np.random.default_rng(0).random((1, 1, 28, 28), dtype="float32")
    expected = relax.VirtualMachine(exe, ember.cpu())["main"](x).numpy()
    runtime = build_runtime()  # libember_runtime.so, compiled once and cached
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "mlp.so")
        exe.export_library(model)
        program = os.path.join(tmp, "deploy_c")
        cmd = ["cc", "-O2", os.path.join(HERE, "main.c"), "-I", runtime.include_dir, "-o", program,
               *runtime.link_flags]
        print("$", " ".join(cmd))
        subprocess.run(cmd, check=True)
        x.tofile(os.path.join(tmp, "x.bin"))
        done = subprocess.run([program, model, os.path.join(tmp, "x.bin"), os.path.join(tmp, "out")],
                              capture_output=True, text=True, check=True)
        print(done.stdout.strip())
        got = np.fromfile(os.path.join(tmp, "out0.bin"), "float32").reshape(expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    print("C program: output matches the Python VM")


if __name__ == "__main__":
    main()
