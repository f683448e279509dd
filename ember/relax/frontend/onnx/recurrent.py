"""ONNX recurrent layers: RNN, LSTM and GRU, unrolled over a static sequence length.

Every direction ("forward", "reverse", "bidirectional") becomes one unrolled chain of
per-step Relax ops: the input projection ``X·Wᵀ`` for all steps is one matmul, then each
step adds ``H·Rᵀ``, splits the gates and applies the activations (any of ONNX's
activation names, with ``activation_alpha/beta`` taken per position as the ONNX reference
does), ``clip`` bounding the activations' inputs.  ``sequence_lens`` masks the steps past a
batch row's length (its state is held, its output is zero); a reverse direction with
``sequence_lens`` reverses each row's valid prefix (ReverseSequence) before and after.
``layout=1`` (batch-major) is transposed at the edges.  The sequence length must be known
at import; the batch may be symbolic.
"""

from __future__ import annotations

import numpy as np

from ember import relax
from ember.relax import op as R

from .common import ONNXImportError, dtype_of, shape_of
from .misc_ops import reverse_sequence
from .registry import converter

__all__ = ["ACTIVATIONS"]


def _affine(x, a, b):
    return R.add(R.multiply(x, _c(a, x)), _c(b, x))


def _c(value, like):
    return relax.const(np.array(value, dtype=dtype_of(like)))


#: ONNX activation name -> (fn(x, alpha, beta), default alpha, default beta)
ACTIVATIONS = {
    "relu": (lambda x, a, b: R.nn.relu(x), None, None),
    "tanh": (lambda x, a, b: R.tanh(x), None, None),
    "sigmoid": (lambda x, a, b: R.sigmoid(x), None, None),
    "affine": (_affine, 1.0, 0.0),
    "leakyrelu": (lambda x, a, b: R.where(R.less(x, _c(0, x)), R.multiply(x, _c(a, x)), x), 0.01, None),
    "thresholdedrelu": (lambda x, a, b: R.where(R.greater(x, _c(a, x)), x, _c(0, x)), 1.0, None),
    "scaledtanh": (lambda x, a, b: R.multiply(R.tanh(R.multiply(x, _c(b, x))), _c(a, x)), 1.0, 1.0),
    "hardsigmoid": (lambda x, a, b: R.clip(_affine(x, a, b), 0.0, 1.0), 0.2, 0.5),
    "elu": (lambda x, a, b: R.where(R.less(x, _c(0, x)),
                                    R.multiply(R.subtract(R.exp(x), _c(1, x)), _c(a, x)), x), 1.0, None),
    "softsign": (lambda x, a, b: R.divide(x, R.add(R.abs(x), _c(1, x))), None, None),
    "softplus": (lambda x, a, b: R.log(R.add(R.exp(x), _c(1, x))), None, None),
}

#: op -> (number of gates, default activations per direction)
_KINDS = {"RNN": (1, ["Tanh"]), "GRU": (3, ["Sigmoid", "Tanh"]), "LSTM": (4, ["Sigmoid", "Tanh", "Tanh"])}


def _activation_fns(node, attrs, per_dir: list[str], num_dirs: int):
    names = attrs.get("activations") or per_dir * num_dirs
    if len(names) != len(per_dir) * num_dirs:
        raise ONNXImportError(f"{node.op_type} {node.name!r}: activations must list {len(per_dir)} functions per "
                              f"direction ({len(per_dir) * num_dirs} in all), got {names}")
    alphas, betas = attrs.get("activation_alpha") or [], attrs.get("activation_beta") or []
    fns = []
    for i, name in enumerate(names):
        entry = ACTIVATIONS.get(name.lower())
        if entry is None:
            raise ONNXImportError(f"{node.op_type} {node.name!r}: activation {name!r} is not one of "
                                  f"{sorted(ACTIVATIONS)}")
        fn, a, b = entry
        a = alphas[i] if i < len(alphas) else a
        b = betas[i] if i < len(betas) else b
        fns.append(lambda x, fn=fn, a=a, b=b: fn(x, a, b))
    return [fns[d * len(per_dir):(d + 1) * len(per_dir)] for d in range(num_dirs)]


class _Step:
    """Per-step helpers shared by the three cells (the bound BlockBuilder and clip)."""

    def __init__(self, ctx, clip, hidden: int):
        self.ctx, self.clip, self.hidden = ctx, clip, hidden

    def emit(self, e):
        return self.ctx.emit(e)

    def act(self, fn, x):
        x = self.emit(x)
        if self.clip is not None:
            x = self.emit(R.clip(x, -float(self.clip), float(self.clip)))
        return self.emit(fn(x))

    def gate(self, x, k: int):
        """Gate ``k`` (columns k*H:(k+1)*H) of a [batch, G*H] tensor."""
        h = self.hidden
        return self.emit(R.strided_slice(x, [1], [k * h], [(k + 1) * h]))


def _dir_slice(ctx, x, d: int):
    """``x[d]`` of a [num_directions, ...] tensor, or None when ``x`` is None."""
    if x is None:
        return None
    return ctx.emit(R.squeeze(ctx.emit(R.strided_slice(x, [0], [d], [d + 1])), [0]))


def _rnn_cell(s, fns, xw, h, c, r_t, rb, p):
    pre = s.emit(R.add(xw, s.emit(R.matmul(h, r_t))))
    if rb is not None:
        pre = s.emit(R.add(pre, rb))
    return s.act(fns[0], pre), None


def _gru_cell(s, fns, xw, h, c, r_t, rb, p, linear_before_reset: bool):
    f, g = fns
    hr = s.emit(R.matmul(h, r_t))  # [batch, 3H]: z, r, h parts of H·Rᵀ
    if rb is not None:
        hr = s.emit(R.add(hr, rb))
    z = s.act(f, R.add(s.gate(xw, 0), s.gate(hr, 0)))
    r = s.act(f, R.add(s.gate(xw, 1), s.gate(hr, 1)))
    if linear_before_reset:
        cand_in = R.add(s.gate(xw, 2), R.multiply(r, s.gate(hr, 2)))
    else:
        rh_w = s.emit(R.strided_slice(r_t, [1], [2 * s.hidden], [3 * s.hidden]))
        rhh = R.matmul(s.emit(R.multiply(r, h)), rh_w)
        if rb is not None:
            rhh = R.add(rhh, s.emit(R.strided_slice(rb, [0], [2 * s.hidden], [3 * s.hidden])))
        cand_in = R.add(s.gate(xw, 2), rhh)
    cand = s.act(g, cand_in)
    one = _c(1, z)
    return s.emit(R.add(R.multiply(R.subtract(one, z), cand), R.multiply(z, h))), None


def _lstm_cell(s, fns, xw, h, c, r_t, rb, p, input_forget: bool):
    f, g, hf = fns
    pre = s.emit(R.add(xw, s.emit(R.matmul(h, r_t))))
    if rb is not None:
        pre = s.emit(R.add(pre, rb))
    pi, po, pf = p if p is not None else (None, None, None)
    i_in, o_in, f_in, c_in = (s.gate(pre, k) for k in range(4))
    if pi is not None:
        i_in = R.add(i_in, R.multiply(pi, c))
        f_in = R.add(f_in, R.multiply(pf, c))
    i = s.act(f, i_in)
    ft = s.emit(R.subtract(_c(1, i), i)) if input_forget else s.act(f, f_in)
    ct = s.act(g, c_in)
    c_new = s.emit(R.add(R.multiply(ft, c), R.multiply(i, ct)))
    if po is not None:
        o_in = R.add(o_in, R.multiply(po, c_new))
    o = s.act(f, o_in)
    return s.emit(R.multiply(o, s.act(hf, c_new))), c_new


def _convert(ctx, node, inputs, attrs, kind: str):
    num_gates, per_dir = _KINDS[kind]
    inputs = list(inputs) + [None] * (8 - len(inputs))
    x, w, r, b, seq_lens, h0 = inputs[:6]
    c0, peep = (inputs[6], inputs[7]) if kind == "LSTM" else (None, None)
    layout = int(attrs.get("layout", 0))
    if layout:
        x = ctx.emit(R.permute_dims(x, [1, 0, 2]))
    xshape, wshape = shape_of(x), shape_of(w)
    if xshape is None or len(xshape) != 3 or not isinstance(xshape[0], int):
        raise ONNXImportError(f"{kind} {node.name!r}: X must be 3-D with a sequence length known at import, "
                              f"got shape {xshape}")
    seq, batch = xshape[0], xshape[1]
    hidden = int(attrs.get("hidden_size") or (wshape[1] // num_gates))
    direction = attrs.get("direction", "forward")
    dirs = {"forward": [False], "reverse": [True], "bidirectional": [False, True]}.get(direction)
    if dirs is None:
        raise ONNXImportError(f"{kind} {node.name!r}: direction must be forward, reverse or bidirectional, "
                              f"got {direction!r}")
    fns = _activation_fns(node, attrs, per_dir, len(dirs))
    dtype = dtype_of(x)
    s = _Step(ctx, attrs.get("clip"), hidden)
    lbr = bool(attrs.get("linear_before_reset", 0))
    if layout and h0 is not None:
        h0 = ctx.emit(R.permute_dims(h0, [1, 0, 2]))
    if layout and c0 is not None:
        c0 = ctx.emit(R.permute_dims(c0, [1, 0, 2]))
    mask_lens = None
    if seq_lens is not None:
        lens = ctx.const_value(seq_lens)
        if lens is None or not np.all(np.asarray(lens) == seq):
            mask_lens = ctx.emit(R.expand_dims(ctx.emit(R.astype(seq_lens, "int64")), 1))  # [batch, 1]
    ys, hs, cs = [], [], []
    for d, reverse in enumerate(dirs):
        wd, rd = _dir_slice(ctx, w, d), _dir_slice(ctx, r, d)
        r_t = ctx.emit(R.permute_dims(rd, [1, 0]))
        xd = x
        if reverse and mask_lens is not None:
            xd = reverse_sequence(ctx, x, seq_lens, batch_axis=1, time_axis=0)
        xw = ctx.emit(R.matmul(xd, ctx.emit(R.permute_dims(wd, [1, 0]))))  # [seq, batch, G*H]
        wb = rb = None
        if b is not None:
            bd = _dir_slice(ctx, b, d)
            gh = num_gates * hidden
            wb = ctx.emit(R.strided_slice(bd, [0], [0], [gh]))
            rb = ctx.emit(R.strided_slice(bd, [0], [gh], [2 * gh]))
            if kind == "GRU":  # the h-gate's recurrent bias stays with H·Rᵀ (linear_before_reset) or r·H
                xw = ctx.emit(R.add(xw, wb))
            else:
                xw = ctx.emit(R.add(xw, ctx.emit(R.add(wb, rb))))
                rb = None
        h = _dir_slice(ctx, h0, d)
        if h is None:
            h = ctx.emit(R.zeros(relax.ShapeExpr([batch, hidden]), dtype))
        c = None
        if kind == "LSTM":
            c = _dir_slice(ctx, c0, d)
            if c is None:
                c = ctx.emit(R.zeros(relax.ShapeExpr([batch, hidden]), dtype))
        p = None
        if peep is not None:
            pd = _dir_slice(ctx, peep, d)
            p = [ctx.emit(R.strided_slice(pd, [0], [k * hidden], [(k + 1) * hidden])) for k in range(3)]
        steps = range(seq - 1, -1, -1) if reverse and mask_lens is None else range(seq)
        outs = [None] * seq
        for t in steps:
            xt = ctx.emit(R.squeeze(ctx.emit(R.strided_slice(xw, [0], [t], [t + 1])), [0]))
            if kind == "RNN":
                h_new, c_new = _rnn_cell(s, fns[d], xt, h, c, r_t, rb, p)
            elif kind == "GRU":
                h_new, c_new = _gru_cell(s, fns[d], xt, h, c, r_t, rb, p, lbr)
            else:
                h_new, c_new = _lstm_cell(s, fns[d], xt, h, c, r_t, rb, p, bool(attrs.get("input_forget", 0)))
            if mask_lens is not None:
                valid = ctx.emit(R.less(relax.const(np.array(t, "int64")), mask_lens))  # [batch, 1]
                outs[t] = ctx.emit(R.where(valid, h_new, _c(0, h_new)))
                h = ctx.emit(R.where(valid, h_new, h))
                if c_new is not None:
                    c = ctx.emit(R.where(valid, c_new, c))
            else:
                outs[t], h = h_new, h_new
                c = c_new if c_new is not None else c
        y = ctx.emit(R.concat([ctx.emit(R.expand_dims(o, 0)) for o in outs], axis=0))  # [seq, batch, H]
        if reverse and mask_lens is not None:
            y = reverse_sequence(ctx, y, seq_lens, batch_axis=1, time_axis=0)
        ys.append(ctx.emit(R.expand_dims(y, 1)))
        hs.append(ctx.emit(R.expand_dims(h, 0)))
        if c is not None:
            cs.append(ctx.emit(R.expand_dims(c, 0)))
    y = ys[0] if len(ys) == 1 else ctx.emit(R.concat(ys, axis=1))  # [seq, dirs, batch, H]
    y_h = hs[0] if len(hs) == 1 else ctx.emit(R.concat(hs, axis=0))  # [dirs, batch, H]
    y_c = None if not cs else (cs[0] if len(cs) == 1 else ctx.emit(R.concat(cs, axis=0)))
    if layout:
        y = ctx.emit(R.permute_dims(y, [2, 0, 1, 3]))
        y_h = ctx.emit(R.permute_dims(y_h, [1, 0, 2]))
        y_c = None if y_c is None else ctx.emit(R.permute_dims(y_c, [1, 0, 2]))
    results = [y, y_h] + ([y_c] if kind == "LSTM" else [])
    return results[:len(node.output)]


@converter("RNN", since=7)
def rnn(ctx, node, inputs, attrs):
    return _convert(ctx, node, inputs, attrs, "RNN")


@converter("GRU", since=7)
def gru(ctx, node, inputs, attrs):
    return _convert(ctx, node, inputs, attrs, "GRU")


@converter("LSTM", since=7)
def lstm(ctx, node, inputs, attrs):
    return _convert(ctx, node, inputs, attrs, "LSTM")
