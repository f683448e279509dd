"""The command line's main flows on a small ONNX model: compile → run (matches ONNX
Runtime), the compile cache, the C example on a compiled model, inspect, bench, tune."""

import pathlib
import shutil
import subprocess

import numpy as np
import pytest

from ember.cli.main import main

from cli_models import random_weights_resnet50, small_cnn, with_unsupported_op

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("cli")


@pytest.fixture(scope="module")
def model(workdir):
    return small_cnn(str(workdir / "small.onnx"))


def _ort(path, feeds):
    import onnxruntime

    return onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    """A fresh compile cache; the compiler fingerprint is pinned for the test, so edits to the
    source tree while it runs do not count as a compiler change."""
    import ember.cli.model

    fingerprint = ember.cli.model._source_fingerprint()
    monkeypatch.setattr(ember.cli.model, "_source_fingerprint", lambda: fingerprint)
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_compile_then_run_matches_onnxruntime(model, workdir, cache, capsys):
    so = str(workdir / "small.so")
    assert main(["compile", model, "-o", so]) == 0
    out = capsys.readouterr()
    assert "native entry point included" in out.out and "compiling for llvm" in out.err
    x = np.random.default_rng(0).standard_normal((1, 3, 8, 8)).astype("float32")
    np.savez(workdir / "in.npz", x=x)
    assert main(["run", so, "--inputs", str(workdir / "in.npz"), "--outputs", str(workdir / "out.npz"),
                 "--print-time", "--repeat", "2"]) == 0
    printed = capsys.readouterr().out
    assert "logits" in printed and "mean ms" in printed
    got = np.load(workdir / "out.npz")["logits"]
    np.testing.assert_allclose(got, _ort(model, {"x": x})[0], rtol=1e-5, atol=1e-5)

    assert main(["compile", model, "-o", str(workdir / "again.so")]) == 0  # the compile cache serves it
    out = capsys.readouterr()
    assert "from the compile cache" in out.out and "served from the compile cache" in out.err
    assert (workdir / "again.so").read_bytes() == pathlib.Path(so).read_bytes()


def test_run_onnx_directly_with_random_inputs(model, cache, capsys):
    assert main(["run", model, "-q"]) == 0
    assert "logits" in capsys.readouterr().out


def test_c_example_runs_compiled_model(model, workdir, cache, capsys):
    if shutil.which("cc") is None:
        pytest.skip("needs a C compiler")
    from ember.runtime.c_api import build_runtime

    so = str(workdir / "for_c.so")
    assert main(["compile", model, "-o", so, "-q"]) == 0
    runtime = build_runtime()
    exe = workdir / "deploy_c"
    subprocess.run(["cc", str(ROOT / "examples" / "deploy_c" / "main.c"), "-I", runtime.include_dir, "-o", str(exe),
                    *runtime.link_flags], check=True)
    x = np.random.default_rng(1).standard_normal((1, 3, 8, 8)).astype("float32")
    x.tofile(workdir / "x.bin")
    done = subprocess.run([str(exe), so, str(workdir / "x.bin"), str(workdir / "c_out")], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    got = np.fromfile(workdir / "c_out0.bin", "float32").reshape(1, 5)
    np.testing.assert_allclose(got, _ort(model, {"x": x})[0], rtol=1e-5, atol=1e-5)


def test_inspect_lists_ops_and_unsupported(model, workdir, capsys):
    assert main(["inspect", model]) == 0
    out = capsys.readouterr().out
    assert "Conv" in out and "1x3x8x8" in out and "ember can import every operator" in out
    bad = with_unsupported_op(str(workdir / "bad.onnx"))
    assert main(["inspect", bad]) == 0
    assert "cannot import 1 operator type(s) yet: FancyOp" in capsys.readouterr().out


def test_model_ember_rejects_exits_1(workdir, cache, capsys):
    bad = with_unsupported_op(str(workdir / "bad2.onnx"))
    assert main(["compile", bad, "-o", str(workdir / "bad.so"), "-q"]) == 1
    err = capsys.readouterr().err
    assert "FancyOp" in err and "Traceback" not in err
    (workdir / "junk.onnx").write_bytes(b"not a model")
    assert main(["inspect", str(workdir / "junk.onnx")]) == 1
    assert "not a readable ONNX model" in capsys.readouterr().err
    (workdir / "junk.so").write_bytes(b"\x7fELF truncated")
    assert main(["run", str(workdir / "junk.so")]) == 1
    assert "is not a shared library" in capsys.readouterr().err


def test_verbose_shows_traceback(workdir, capsys):
    (workdir / "junk2.so").write_bytes(b"nope")
    assert main(["run", str(workdir / "junk2.so"), "--verbose"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_run_with_wrong_inputs(model, workdir, cache, capsys):
    so = str(workdir / "small2.so")
    assert main(["compile", model, "-o", so, "-q"]) == 0
    np.savez(workdir / "wrong.npz", y=np.zeros(3, "float32"))
    assert main(["run", so, "--inputs", str(workdir / "wrong.npz")]) == 2
    assert "no array for input 'x'" in capsys.readouterr().err
    np.savez(workdir / "wrong2.npz", x=np.zeros((1, 3, 4, 4), "float32"))
    assert main(["run", so, "--inputs", str(workdir / "wrong2.npz")]) == 2
    assert "expected shape (1, 3, 8, 8)" in capsys.readouterr().err


def test_bench_compares_with_onnxruntime(model, cache, capsys):
    assert main(["bench", model, "--compare", "ort", "--repeat", "2", "-q"]) == 0
    out = capsys.readouterr().out
    assert "ONNX Runtime" in out and "best vs ember" in out


def test_tune_without_meta_schedule_says_so(model, workdir, capsys, monkeypatch):
    import ember.cli.model

    monkeypatch.setattr(ember.cli.model, "meta_schedule_entry", lambda name: None)
    assert main(["tune", model, "--budget", "1m", "--work-dir", str(workdir / "tune")]) == 1
    assert "not available yet" in capsys.readouterr().err


def test_tuning_db_without_meta_schedule_says_so(model, workdir, cache, capsys, monkeypatch):
    import ember.cli.model

    monkeypatch.setattr(ember.cli.model, "meta_schedule_entry", lambda name: None)
    (workdir / "db").mkdir(exist_ok=True)
    assert main(["compile", model, "--tuning-db", str(workdir / "db"), "-o", str(workdir / "t.so")]) == 1
    assert "not available yet" in capsys.readouterr().err


def test_compile_to_tar_and_run(model, workdir, cache, capsys):
    tar = str(workdir / "small.tar")
    assert main(["compile", model, "-o", tar, "-q"]) == 0
    assert main(["run", tar, "-q"]) == 0
    assert "logits" in capsys.readouterr().out


def test_input_shapes_name_checked(model, cache, capsys):
    assert main(["compile", model, "--input-shapes", "data:1x3x8x8", "-o", "x.so"]) == 2
    assert "no input(s) 'data'" in capsys.readouterr().err


def test_compiler_change_misses_the_cache(model, workdir, cache, capsys, monkeypatch):
    import ember.cli.model

    assert main(["compile", model, "-o", str(workdir / "c1.so"), "-q"]) == 0
    monkeypatch.setattr(ember.cli.model, "_source_fingerprint", lambda: "another compiler")
    assert main(["compile", model, "-o", str(workdir / "c2.so"), "-q"]) == 0
    assert "from the compile cache" not in capsys.readouterr().out


@pytest.mark.slow
def test_resnet50_compile_run_matches_onnxruntime(tmp_path, capsys, monkeypatch):
    import ember.cli.model

    # the cache key covers ember's own source; other edits to the tree during this long test must not
    # count as a compiler change here
    fingerprint = ember.cli.model._source_fingerprint()
    monkeypatch.setattr(ember.cli.model, "_source_fingerprint", lambda: fingerprint)
    model = random_weights_resnet50(str(tmp_path / "resnet50.onnx"))
    so = str(tmp_path / "resnet50.so")
    assert main(["compile", model, "-o", so]) == 0
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype("float32")
    np.savez(tmp_path / "in.npz", **{"gpu_0/data_0": x})
    assert main(["run", so, "--inputs", str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "out.npz")]) == 0
    got = np.load(tmp_path / "out.npz")["gpu_0/softmax_1"]
    expected = _ort(model, {"gpu_0/data_0": x})[0]
    assert expected.std() > 1e-4  # random weights: the output is not uniform
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-5)
    capsys.readouterr()
    assert main(["compile", model, "-o", str(tmp_path / "again.so")]) == 0
    assert "from the compile cache" in capsys.readouterr().out
    if shutil.which("cc") is not None:  # the same library from C, through the native entry point
        from ember.runtime.c_api import build_runtime

        runtime = build_runtime()
        subprocess.run(["cc", str(ROOT / "examples" / "deploy_c" / "main.c"), "-I", runtime.include_dir, "-o",
                        str(tmp_path / "deploy_c"), *runtime.link_flags], check=True)
        x.tofile(tmp_path / "x.bin")
        subprocess.run([str(tmp_path / "deploy_c"), so, str(tmp_path / "x.bin"), str(tmp_path / "c_out")], check=True,
                       timeout=600)
        np.testing.assert_allclose(np.fromfile(tmp_path / "c_out0.bin", "float32").reshape(1, 1000), expected,
                                   rtol=1e-3, atol=1e-5)


def test_run_library_exported_from_python(tmp_path, capsys):
    """A library written by export_library (no CLI metadata): inputs are read from its checks."""
    from ember import relax, relay

    mod, params = relay.testing.mlp.get_workload(batch_size=1)
    relax.build(mod, "llvm", params=params).export_library(str(tmp_path / "mlp.so"))
    assert main(["run", str(tmp_path / "mlp.so"), "-q"]) == 0
    assert "output0  1x10" in capsys.readouterr().out


@pytest.mark.slow
def test_tune_then_compile_with_tuning_db(model, tmp_path, cache, capsys):
    assert main(["tune", model, "--budget", "10s", "--work-dir", str(tmp_path / "tune"), "-q"]) == 0
    assert "--tuning-db" in capsys.readouterr().out
    so = str(tmp_path / "tuned.so")
    assert main(["compile", model, "--tuning-db", str(tmp_path / "tune"), "-o", so, "-q"]) == 0
    x = np.random.default_rng(2).standard_normal((1, 3, 8, 8)).astype("float32")
    np.savez(tmp_path / "in.npz", x=x)
    assert main(["run", so, "--inputs", str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "out.npz"), "-q"]) == 0
    np.testing.assert_allclose(np.load(tmp_path / "out.npz")["logits"], _ort(model, {"x": x})[0], rtol=1e-4,
                               atol=1e-5)
