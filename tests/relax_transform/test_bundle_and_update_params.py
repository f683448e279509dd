"""BundleModelParams (model parameters into one tuple) and UpdateParamStructInfo."""

import numpy as np

from ember import relax
from ember.script import ir as I, relax as R


@I.ir_module
class Model:
    @R.function
    def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y = R.multiply(x, w)
            z = R.add(y, b)
            R.output(z)
        return z


def test_bundle_reads_each_parameter_where_first_used():
    out = relax.transform.BundleModelParams()(Model)
    main = out["main"]
    assert [p.name_hint for p in main.params] == ["x", "params"]
    names = [b.var.name_hint for b in main.body.blocks[0].bindings]
    assert names == ["w", "y", "b", "z"]
    relax.analysis.check_well_formed(out)
    x, w, b = (np.arange(4, dtype="float32") + k for k in range(3))
    got = relax.reference.run(out, x, (w, b))
    np.testing.assert_allclose(np.asarray(got), x * w + b)


def test_bundle_name_and_functions_without_num_input():
    out = relax.transform.BundleModelParams("weights")(Model)
    assert out["main"].params[1].name_hint == "weights"

    @I.ir_module
    class Plain:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            return x

    assert relax.transform.BundleModelParams()(Plain)["main"] is Plain["main"]


def test_update_param_struct_info_reinfers_shapes():
    def resize(var):
        return relax.TensorStructInfo([8], "float32") if var.name_hint != "x" else relax.TensorStructInfo([8], "float32")

    out = relax.transform.UpdateParamStructInfo(resize)(Model)
    z = out["main"].body.blocks[0].bindings[-1].var
    assert [int(d) for d in z.struct_info.shape.values] == [8]
    assert [int(d) for d in out["main"].ret_struct_info.shape.values] == [8]
