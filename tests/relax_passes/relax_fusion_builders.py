"""Builders the fusion tests share: a one-dataflow-block Relax function from a body callback,
and the lowering FuseOps expects (LegalizeOps, then AnnotateTIROpPattern)."""

from ember import relax
from ember.relax.transform import AnnotateTIROpPattern, LegalizeOps


def dataflow_function(params, body):
    """An IRModule whose ``main`` takes ``params`` and returns ``body(bb, *params)``, emitted
    inside one dataflow block."""
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(body(bb, *params))
        bb.emit_func_output(out)
    return bb.get()


def legalize_and_annotate(mod):
    return AnnotateTIROpPattern()(LegalizeOps()(mod))
