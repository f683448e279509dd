"""Tutorial: how to use pass instruments — time passes, print the IR around them, and
write a custom instrument with ``@tvm.instrument.pass_instrument`` that skips a pass."""

import ember as tvm
from ember import relax
from ember.script import relax as R


@R.function
def model(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    with R.dataflow():
        y = R.add(x, x)
        z = R.nn.relu(y)
        R.output(z)
    return z


def _pipeline():
    return tvm.transform.Sequential(
        [relax.transform.LegalizeOps(), relax.transform.DeadCodeElimination()], name="MyPipeline"
    )


def test_pass_timing_instrument():
    timing = tvm.ir.instrument.PassTimingInstrument()
    with tvm.transform.PassContext(opt_level=3, instruments=[timing]):
        _pipeline()(tvm.IRModule.from_expr(model))
        profile = timing.render()
    lines = profile.splitlines()
    assert lines[0] == "Pass timing (us):"
    assert any(line.strip().startswith("LegalizeOps:") for line in lines)
    assert lines[-1].startswith("MyPipeline:")


def test_print_before_and_after_all(capsys):
    with tvm.transform.PassContext(instruments=[tvm.ir.instrument.PrintBeforeAll(),
                                                tvm.ir.instrument.PrintAfterAll()]):
        relax.transform.LegalizeOps()(tvm.IRModule.from_expr(model))
    out = capsys.readouterr().out
    assert "Before Running Pass: LegalizeOps" in out and "After Running Pass: LegalizeOps" in out
    assert "R.nn.relu" in out and "R.call_tir" in out


def test_custom_instrument_skips_a_pass():
    @tvm.instrument.pass_instrument
    class SkipLegalize:
        def __init__(self):
            self.seen = []

        def should_run(self, mod, info):
            self.seen.append(info.name)
            return info.name != "LegalizeOps"

    skip = SkipLegalize()
    with tvm.transform.PassContext(instruments=[skip]):
        out = _pipeline()(tvm.IRModule.from_expr(model))
    assert "LegalizeOps" in skip.seen
    assert "R.call_tir" not in out.script()
