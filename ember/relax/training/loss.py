"""Loss functions for training (TVM's ``relax.training.loss``): each is an object whose call
with the struct infos (or variables) of its inputs returns a Relax function
``<loss_name>(predictions, targets[, weights]) -> scalar`` (one dataflow block).

``num_backbone_outputs`` says how many leading parameters a model's outputs feed when the loss
is appended to the model (``relax.training.AppendLoss``); ``reduction`` is "mean", "sum" or
"none".
"""

from __future__ import annotations

from ember.relax import op as R
from ember.relax.block_builder import BlockBuilder
from ember.relax.expr import Expr, Function, Var
from ember.relax.struct_info import StructInfo

__all__ = ["Loss", "L1Loss", "MSELoss", "CrossEntropyLoss", "CategoricalCrossEntropyLoss"]


def _param(name: str, value) -> Var:
    sinfo = value.struct_info if isinstance(value, Expr) else value
    if not isinstance(sinfo, StructInfo):
        raise TypeError(f"relax.training.loss: {name} must be a StructInfo or a Relax variable, got {type(value).__name__}")
    return Var(name, sinfo)


class Loss:
    """Base of the losses: the name of the function built, its reduction and how many of its
    leading inputs come from the model."""

    def __init__(self, loss_name: str, num_backbone_outputs: int, reduction: str = "mean"):
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"relax.training.loss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        self._loss_name = loss_name
        self._num_backbone_outputs = num_backbone_outputs
        self._reduction = reduction

    @property
    def num_backbone_outputs(self) -> int:
        return self._num_backbone_outputs

    def _reduce(self, expr: Expr) -> Expr:
        if self._reduction == "mean":
            return R.mean(expr)
        if self._reduction == "sum":
            return R.sum(expr)
        return expr

    def _build(self, inputs: dict, body) -> Function:
        """A function of ``inputs`` (name → struct info or variable; None entries left out)
        whose dataflow block is made by ``body(bb, *params)``."""
        params = [_param(name, value) for name, value in inputs.items() if value is not None]
        bb = BlockBuilder()
        with bb.function(self._loss_name, params):
            with bb.dataflow():
                out = bb.emit_output(body(bb, *params))
            bb.emit_func_output(out)
        return bb.get()[self._loss_name]


class L1Loss(Loss):
    """Reduction of ``|predictions − targets|``."""

    def __init__(self, reduction: str = "mean"):
        super().__init__("l1_loss", 1, reduction)

    def __call__(self, predictions, targets) -> Function:
        def body(bb, p, t):
            return self._reduce(bb.emit(R.abs(bb.emit(R.subtract(p, t)))))

        return self._build({"predictions": predictions, "targets": targets}, body)


class MSELoss(Loss):
    """Reduction of ``(predictions − targets)²``."""

    def __init__(self, reduction: str = "mean"):
        super().__init__("mse_loss", 1, reduction)

    def __call__(self, predictions, targets) -> Function:
        def body(bb, p, t):
            diff = bb.emit(R.subtract(p, t))
            return self._reduce(bb.emit(R.multiply(diff, diff)))

        return self._build({"predictions": predictions, "targets": targets}, body)


class CrossEntropyLoss(Loss):
    """``nll_loss(log_softmax(predictions), targets, weights)`` with class-index targets."""

    def __init__(self, reduction: str = "mean", ignore_index: int = -100):
        super().__init__("cross_entropy_loss", 1, reduction)
        self.ignore_index = ignore_index

    def __call__(self, predictions, targets, weights=None) -> Function:
        def body(bb, p, t, *w):
            logp = bb.emit(R.nn.log_softmax(p, axis=-1))
            return R.nn.nll_loss(logp, t, w[0] if w else None, self._reduction, self.ignore_index)

        return self._build({"predictions": predictions, "targets": targets, "weights": weights}, body)


class CategoricalCrossEntropyLoss(Loss):
    """Cross entropy with one-hot (categorical) targets: reduction of
    ``−log_softmax(predictions) · targets`` (times the class weights); with ``ignore_index``
    the targets become class indices and ``nll_loss`` applies."""

    def __init__(self, reduction: str = "mean", ignore_index: int | None = None):
        super().__init__("categorical_cross_entropy_loss", 1, reduction)
        self.ignore_index = ignore_index

    def __call__(self, predictions, targets, weights=None) -> Function:
        def body(bb, p, t, *w):
            logp = bb.emit(R.nn.log_softmax(p, axis=-1))
            if self.ignore_index is not None:
                rows = t.struct_info.shape.values[0]
                index = R.reshape(R.argmax(t, axis=1), (rows,))
                return R.nn.nll_loss(logp, index, w[0] if w else None, self._reduction, self.ignore_index)
            loss = bb.emit(R.multiply(R.negative(logp), R.astype(t, str(p.struct_info.dtype))))
            if w:
                loss = bb.emit(R.multiply(loss, w[0]))
            return self._reduce(loss)

        return self._build({"predictions": predictions, "targets": targets, "weights": weights}, body)
