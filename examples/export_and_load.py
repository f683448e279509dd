"""Export a compiled model as one shared library, load it in a fresh process without the
compiler, and run it; then the classic deploy flow (relay.build → graph_runtime).

Run: python examples/export_and_load.py
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

import ember
from ember import relax, relay
from ember.contrib import graph_runtime

LOADER = """
import sys
import numpy as np
import ember
ex = ember.runtime.load_module(sys.argv[1])           # kernels, program and weights in one file
vm = ember.runtime.vm.VirtualMachine(ex, ember.cpu())
np.save(sys.argv[3], vm["main"](np.load(sys.argv[2])).numpy())
compiler = [m for m in sys.modules if m.startswith(("ember.relax", "ember.tir", "ember.te"))]
print("compiler modules loaded:", compiler or "none")
"""


def main():
    mod, params = relay.testing.mlp.get_workload(batch_size=1)
    exe = relax.build(mod, target="llvm", params=params)  # weights bound as constants
    x = np.random.default_rng(0).random((1, 1, 28, 28), dtype="float32")
    expected = relax.VirtualMachine(exe, ember.cpu())["main"](x).numpy()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mlp.so")
        entry = exe.export_library(path)
        print(f"exported {path}: {os.path.getsize(path) / 1e3:.0f} kB; C API: {entry.reason}")
        np.save(os.path.join(tmp, "x.npy"), x)
        done = subprocess.run([sys.executable, "-c", LOADER, path, os.path.join(tmp, "x.npy"),
                               os.path.join(tmp, "y.npy")], capture_output=True, text=True, check=True)
        print(done.stdout.strip())
        np.testing.assert_allclose(np.load(os.path.join(tmp, "y.npy")), expected, rtol=1e-6)
        print("fresh process: output matches")

        # the classic flow: graph JSON + library + params, loaded back with graph_runtime
        with relay.build_config(opt_level=3):
            graph, lib, params = relay.build(mod, "llvm", params=params)
        lib.export_library(os.path.join(tmp, "deploy_lib.so"))
        with open(os.path.join(tmp, "deploy_param.params"), "wb") as f:
            f.write(relay.save_param_dict(params))
        module = graph_runtime.create(graph, ember.runtime.load_module(os.path.join(tmp, "deploy_lib.so")),
                                      ember.cpu())
        with open(os.path.join(tmp, "deploy_param.params"), "rb") as f:
            module.load_params(f.read())
        module.set_input("data", x)
        module.run()
        np.testing.assert_allclose(module.get_output(0).asnumpy(), expected, rtol=1e-6)
        print("classic deploy flow (relay.build → graph_runtime): output matches")


if __name__ == "__main__":
    main()
