"""relax.frontend.detach_params."""

import numpy as np
import pytest

from ember import relax
from ember.relax.frontend import detach_params, nn


class AddOne(nn.Module):
    def forward(self, x):
        return x + 1.0


def test_detach_params_moves_the_attribute_out():
    mod, _ = AddOne().export_tvm({"forward": {"x": nn.spec.Tensor((2,))}})
    weights = [np.ones(2, "float32")]
    mod["forward"] = mod["forward"].with_attr("params", weights)
    out, params = detach_params(mod)
    assert list(params) == ["forward"] and params["forward"][0] is weights[0]
    assert "params" not in out["forward"].attrs and "params" in mod["forward"].attrs
    assert isinstance(out["forward"], relax.Function)


def test_detach_params_without_params_and_bad_input():
    mod, _ = AddOne().export_tvm({"forward": {"x": nn.spec.Tensor((2,))}})
    assert detach_params(mod)[1] == {}
    with pytest.raises(TypeError, match=r"detach_params: mod must be an IRModule, got dict"):
        detach_params({})
