"""contrib.popen_pool (child interpreters with time limits) and contrib.cc (system compiler)."""

import ctypes
import os
import time

import pytest

from ember.contrib import cc, popen_pool


def _square(x):
    return x * x


def _fail(message):
    raise ValueError(message)


def _sleep(seconds):
    time.sleep(seconds)


def test_popen_worker_runs_calls_in_a_child_process():
    worker = popen_pool.PopenWorker()
    worker.send(os.getpid)
    assert worker.recv() != os.getpid()
    offset = 10
    worker.send(lambda x: x + offset, (5,))  # closures travel with cloudpickle
    assert worker.recv() == 15
    worker.send(_fail, ("bad input",))
    with pytest.raises(ValueError, match="bad input"):
        worker.recv()
    worker.send(_sleep, (30,), timeout=0.5)
    with pytest.raises(TimeoutError, match="killed"):
        worker.recv()
    worker.send(_square, (3,))  # a new child replaces the killed one
    assert worker.recv() == 9
    with pytest.raises(RuntimeError, match="nothing was sent"):
        worker.recv()
    worker.kill()


def test_popen_worker_reports_a_dead_child():
    worker = popen_pool.PopenWorker()
    worker.send(os._exit, (3,))
    with pytest.raises(ChildProcessError, match="exit code 3"):
        worker.recv()


def test_a_child_error_carries_the_child_traceback_and_a_child_that_cannot_start_is_named(monkeypatch):
    worker = popen_pool.PopenWorker()
    worker.send(_fail, ("bad input",))
    with pytest.raises(ValueError, match="bad input") as info:
        worker.recv()
    (note,) = info.value.__notes__
    assert note.startswith("the child process's traceback:") and "in _fail" in note
    worker.kill()
    monkeypatch.setattr(popen_pool.sys, "executable", "/bin/false")
    with pytest.raises(ChildProcessError, match=r"died while starting \(exit code 1\)"):
        popen_pool.PopenWorker().send(_square, (2,))


def test_pool_executor_futures_and_error_catching():
    with popen_pool.PopenPoolExecutor(max_workers=2, timeout=20) as pool:
        assert [pool.submit(_square, i).result() for i in range(4)] == [0, 1, 4, 9]
        results = pool.map_with_error_catching(_fail, ["a"])
    assert results[0].status == popen_pool.StatusKind.EXCEPTION
    assert isinstance(results[0].value, ValueError)


def test_cc_shared_and_static_libraries(tmp_path):
    source = tmp_path / "answer.c"
    source.write_text("int answer(void) { return 42; }\n")
    obj = tmp_path / "answer.o"
    cc.create_shared(str(tmp_path / "direct.so"), [str(source)])
    assert ctypes.CDLL(str(tmp_path / "direct.so")).answer() == 42
    os.system(f"{cc.get_cc()} -c -fPIC -o {obj} {source}")  # noqa: S605 - test setup
    cc.create_staticlib(str(tmp_path / "libanswer.a"), [str(obj)])
    linked = str(tmp_path / "from_archive.so")
    cc.create_shared(linked, ["-Wl,--whole-archive", str(tmp_path / "libanswer.a"), "-Wl,--no-whole-archive"])
    assert ctypes.CDLL(linked).answer() == 42
    assert cc.create_staticlib.output_format == "a"
    with pytest.raises(RuntimeError, match="create_shared failed"):
        cc.create_shared(str(tmp_path / "broken.so"), [str(tmp_path / "missing.c")])


def test_cross_compiler_appends_options(tmp_path):
    source = tmp_path / "two.c"
    source.write_text("int two(void) { return TWO; }\n")
    fcompile = cc.cross_compiler(cc.create_shared, options=["-DTWO=2"])
    fcompile(str(tmp_path / "two.so"), [str(source)])
    assert ctypes.CDLL(str(tmp_path / "two.so")).two() == 2
    assert fcompile.output_format == "so"
