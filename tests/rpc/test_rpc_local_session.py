"""ember.rpc: local sessions upload, load and run exported libraries; Server/connect in
one process; errors of what a session runs arrive as RPCError; the rest is refused."""

import numpy as np
import pytest

import ember
from ember import relax, rpc
from ember.contrib import utils
from ember.error import RPCError
from ember.script import ir as I, relax as R, tir as T


@I.ir_module
class AddOne:
    @T.prim_func
    def add_one(a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("b"):
                vi = T.axis.remap("S", [i])
                b[vi] = a[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        cls = AddOne
        gv = R.call_tir(cls.add_one, (x,), R.Tensor((8,), dtype="float32"))
        return gv


@pytest.fixture(scope="module")
def exported_library():
    temp = utils.tempdir()
    path = temp.relpath("add_one.so")
    relax.build(AddOne, "llvm").export_library(path)
    yield path
    temp.remove()


def test_upload_download_listdir_remove(tmp_path):
    source = tmp_path / "data.bin"
    source.write_bytes(b"\x01\x02\x03")
    session = rpc.LocalSession()
    session.upload(str(source))
    session.upload(b"hello", target="greeting.txt")
    assert session.listdir() == ["data.bin", "greeting.txt"]
    assert session.download("data.bin") == bytearray(b"\x01\x02\x03")
    session.remove("data.bin")
    assert session.listdir() == ["greeting.txt"]
    with pytest.raises(RPCError, match="no file 'data.bin'"):
        session.download("data.bin")
    with pytest.raises(RPCError, match="outside the session's workspace"):
        session.download("../secret")
    with pytest.raises(ValueError, match="target must be given"):
        session.upload(b"bytes")


def test_load_and_run_an_uploaded_executable(exported_library):
    session = rpc.LocalSession()
    session.upload(exported_library)
    module = session.load_module("add_one.so")
    dev = session.cpu()
    vm = relax.VirtualMachine(module, dev)
    x = np.arange(8, dtype="float32")
    np.testing.assert_allclose(vm["main"](ember.nd.array(x, dev)).numpy(), x + 1)
    with pytest.raises(RPCError, match="no file 'missing.so'; upload it first"):
        session.load_module("missing.so")


def test_errors_in_the_session_become_rpc_errors(exported_library):
    session = rpc.LocalSession()
    session.upload(exported_library)
    vm = relax.VirtualMachine(session.load_module("add_one.so"), session.cpu())
    with pytest.raises(RPCError, match="ValueError: invoke_stateful\\('main'\\): no inputs were set") as info:
        vm.invoke_stateful("main")
    assert isinstance(info.value, RuntimeError) and isinstance(info.value.__cause__, ValueError)
    with pytest.raises(RPCError, match="expected shape\\[0\\] == 8"):
        vm["main"](ember.nd.array(np.zeros(4, "float32")))


def test_server_and_connect(exported_library):
    server = rpc.Server("127.0.0.1", port=9300, port_end=9310)
    other = rpc.Server("127.0.0.1", port=9300, port_end=9310)
    assert server.port == 9300 and other.port == 9301  # each server holds its own port
    remote = rpc.connect(server.host, server.port, session_timeout=10)
    remote.upload(exported_library)
    vm = relax.VirtualMachine(remote.load_module("add_one.so"), remote.cpu())
    vm.save_function("main", "saved", ember.nd.array(np.ones(8, "float32")))
    np.testing.assert_allclose(vm["saved"]().numpy(), np.full(8, 2, "float32"))
    server.terminate()
    other.terminate()
    with pytest.raises(RPCError, match="no ember RPC server at 127.0.0.1:9300"):
        rpc.connect("127.0.0.1", 9300)


def test_server_key_must_match():
    server = rpc.Server("localhost", port=9320, key="secret")
    with pytest.raises(RPCError, match="does not match"):
        rpc.connect("127.0.0.1", server.port, key="wrong")
    assert isinstance(rpc.connect("127.0.0.1", server.port, key="secret"), rpc.LocalSession)
    server.terminate()


def test_unsupported_parts_say_why():
    with pytest.raises(NotImplementedError, match="minimal C\\+\\+ RPC server"):
        rpc.with_minrpc(None)
    with pytest.raises(NotImplementedError, match="no RPC tracker"):
        rpc.connect_tracker("127.0.0.1", 9190)
    with pytest.raises(NotImplementedError, match="proxies and trackers"):
        rpc.Server("127.0.0.1", is_proxy=True)
