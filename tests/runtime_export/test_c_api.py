"""The C API: a C program loads an exported model, runs it and reads the outputs."""

import pathlib
import shutil
import subprocess

import numpy as np
import pytest

from ember.runtime.c_api import build_runtime

from export_models import mlp_executable

ROOT = pathlib.Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")


@pytest.fixture(scope="module")
def deploy_c(tmp_path_factory):
    runtime = build_runtime()
    exe = tmp_path_factory.mktemp("c") / "deploy_c"
    subprocess.run(["cc", "-O2", str(ROOT / "examples" / "deploy_c" / "main.c"), "-I", runtime.include_dir,
                    "-o", str(exe), *runtime.link_flags], check=True)
    return exe


def test_runtime_library_is_cached():
    assert build_runtime().library == build_runtime().library


def test_c_program_runs_exported_model(deploy_c, tmp_path):
    ex, reference = mlp_executable()
    ex.export_library(str(tmp_path / "m.so"))
    x = np.random.default_rng(3).standard_normal((2, 16)).astype("float32")
    x.tofile(tmp_path / "x.bin")
    done = subprocess.run([str(deploy_c), str(tmp_path / "m.so"), str(tmp_path / "x.bin"), str(tmp_path / "y")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    y = np.fromfile(tmp_path / "y0.bin", "float32").reshape(2, 4)
    np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-5)


def test_c_runtime_reports_bad_files(deploy_c, tmp_path):
    ex, _ = mlp_executable()
    ex.export_library(str(tmp_path / "m.so"))
    np.ones((2, 16), "float32").tofile(tmp_path / "x.bin")
    data = (tmp_path / "m.so").read_bytes()
    (tmp_path / "short.so").write_bytes(data[: len(data) // 2])
    tampered = bytearray(data)
    tampered[len(data) // 3] ^= 1
    (tmp_path / "tampered.so").write_bytes(bytes(tampered))
    for name, message in (("short.so", "truncated"), ("tampered.so", "modified after export")):
        done = subprocess.run([str(deploy_c), str(tmp_path / name), str(tmp_path / "x.bin"), str(tmp_path / "y")],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and message in done.stderr, done.stderr


def test_c_runtime_reports_missing_entry(deploy_c, tmp_path):
    ex, _ = mlp_executable("n")
    ex.export_library(str(tmp_path / "dyn.so"))
    done = subprocess.run([str(deploy_c), str(tmp_path / "dyn.so"), "x.bin", "y"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1 and "no native entry point" in done.stderr


_CYCLE = r"""
#include <stdio.h>
#include "ember_runtime.h"
int main(int argc, char** argv) {
  static float x[64];
  for (int k = 0; k < 100; k++) {  /* load, run, free: the OpenMP threads must survive dlclose */
    EmberModel* m = ember_model_load(argv[1]);
    if (!m) { printf("%s\n", ember_last_error()); return 1; }
    const EmberTensorInfo* info = ember_model_input_info(m, 0);
    DLTensor t = {x, {kDLCPU, 0}, info->ndim, info->dtype, (int64_t*)info->shape, NULL, 0};
    if (ember_model_set_input(m, 0, &t) || ember_model_run(m)) { printf("%s\n", ember_last_error()); return 1; }
    ember_model_free(m);
  }
  printf("ok\n");
  return 0;
}
"""


def test_load_run_free_cycles(tmp_path):
    from ember import relax, relay

    mod, params = relay.testing.mlp.get_workload(batch_size=1, image_shape=(1, 8, 8))
    relax.build(mod, "llvm", params=params).export_library(str(tmp_path / "mlp.so"))
    runtime = build_runtime()
    (tmp_path / "cycle.c").write_text(_CYCLE)
    subprocess.run(["cc", str(tmp_path / "cycle.c"), "-I", runtime.include_dir, "-o", str(tmp_path / "cycle"),
                    *runtime.link_flags], check=True)
    done = subprocess.run([str(tmp_path / "cycle"), str(tmp_path / "mlp.so")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", (done.returncode, done.stdout, done.stderr)


def test_c_program_multiple_outputs_and_views(deploy_c, tmp_path):
    """A model returning a tuple, with split/reshape views: both outputs from C match the VM."""
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    import ember
    from ember import relax

    nodes = [helper.make_node("Split", ["x"], ["a", "b"], axis=1, num_outputs=2),
             helper.make_node("Transpose", ["a"], ["at"], perm=[0, 1, 3, 2]),
             helper.make_node("Concat", ["at", "b"], ["c"], axis=1),
             helper.make_node("Reshape", ["c", "shape"], ["y"]),
             helper.make_node("Identity", ["b"], ["z"])]
    graph = helper.make_graph(
        nodes, "views", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 36]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 2, 3, 3])],
        [numpy_helper.from_array(np.array([1, 36], "int64"), "shape")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    exe = relax.build(relax.frontend.onnx.from_onnx(model), "llvm")
    entry = exe.export_library(str(tmp_path / "views.so"))
    assert "2 outputs" in entry.reason
    x = np.random.default_rng(4).standard_normal((1, 4, 3, 3)).astype("float32")
    expected = [t.numpy() for t in relax.VirtualMachine(exe, ember.cpu())["main"](x)]
    x.tofile(tmp_path / "x.bin")
    done = subprocess.run([str(deploy_c), str(tmp_path / "views.so"), str(tmp_path / "x.bin"), str(tmp_path / "o")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for i, want in enumerate(expected):
        np.testing.assert_array_equal(np.fromfile(tmp_path / f"o{i}.bin", "float32").reshape(want.shape), want)
