"""The workloads of ``bench_models.py``: ONNX models with random weights, as bytes.

Two sources: the ``light_*`` models shipped inside the onnx package's backend tests
(ResNet-50, SqueezeNet, Inception v1, DenseNet-121; batch 1 only, their graphs fix it)
and models written here in PyTorch and exported with the TorchScript exporter
(MobileNetV2, a BERT encoder, a GPT-2-style decoder step, the MLP 784-256-10).  The
PyTorch module comes back too, so PyTorch eager / ``torch.compile`` run the same model.
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Workload:
    name: str
    onnx_bytes: bytes
    inputs: dict  # ONNX input name → numpy array
    torch_module: object = None  # None for the light models
    notes: list = field(default_factory=list)


# what a weight is, from where it is used: (op type, input index) → its random values
def _he_normal(rng, shape):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    return rng.standard_normal(shape) * math.sqrt(2.0 / fan_in)


def _fully_connected(rng, shape):
    return rng.standard_normal(shape) * math.sqrt(2.0 / shape[-1])


def _bias(rng, shape):
    return rng.normal(0.0, 0.05, shape)


_WEIGHT_FILL = {
    ("Conv", 1): _he_normal,
    ("Gemm", 1): _fully_connected,
    ("Reshape", 0): _fully_connected,  # Inception's classifier weight, (1, 1, 1000, 1024) → Gemm
    ("Conv", 2): _bias,
    ("Gemm", 2): _bias,
    ("BatchNormalization", 1): lambda rng, shape: rng.uniform(0.2, 0.6, shape),
    ("BatchNormalization", 2): lambda rng, shape: rng.normal(0.0, 0.1, shape),
    ("BatchNormalization", 3): lambda rng, shape: rng.normal(0.0, 0.1, shape),
}


def _randomize_light_weights(model, rng) -> None:
    """The light models build every weight as ConstantOfShape(0.02): all channels alike, so
    the softmax output is uniform and comparing outputs checks nothing.  Each such weight
    becomes a random initializer scaled so activations keep their size through the network
    (He-normal kernels; BatchNorm scales in [0.2, 0.6], so ResNet's residual sums grow slowly,
    variances in [0.5, 1.5])."""
    from onnx import numpy_helper

    use = {}
    for node in model.graph.node:
        for index, name in enumerate(node.input):
            use.setdefault(name, (node.op_type, index))
    shapes = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    kept = []
    for node in model.graph.node:
        role = use.get(node.output[0]) if node.op_type == "ConstantOfShape" else None
        if role is None or node.input[0] not in shapes:
            kept.append(node)
            continue
        shape = [int(d) for d in shapes[node.input[0]]]
        fill = _WEIGHT_FILL.get(role, lambda rng, shape: rng.uniform(0.5, 1.5, shape))
        value = np.asarray(fill(rng, shape), dtype="float32")
        model.graph.initializer.append(numpy_helper.from_array(value, node.output[0]))
    del model.graph.node[:]
    model.graph.node.extend(kept)
    # IR 4 lets initializers stay out of the graph inputs, where ORT would not fold them
    model.ir_version = max(model.ir_version, 4)
    used = {name for node in model.graph.node for name in node.input}
    inits = [i for i in model.graph.initializer if i.name in used]
    names = {i.name for i in inits}
    inputs = [i for i in model.graph.input if i.name not in names and i.name in used]
    del model.graph.initializer[:], model.graph.input[:]
    model.graph.initializer.extend(inits)
    model.graph.input.extend(inputs)


def _light(name: str, batch: int) -> Workload | None:
    import onnx

    path = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light", f"light_{name}.onnx")
    if batch != 1:
        return None
    model = onnx.load(path)
    rng = np.random.default_rng(0)
    _randomize_light_weights(model, rng)
    inits = {i.name for i in model.graph.initializer}
    inputs = {}
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        dims = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        inputs[inp.name] = rng.standard_normal(dims).astype("float32")
    return Workload(name, model.SerializeToString(), inputs)


def _torch_models():
    import torch
    from torch import nn

    class Bottleneck(nn.Module):  # MobileNetV2's inverted residual
        def __init__(self, cin, cout, stride, expand):
            super().__init__()
            hidden = cin * expand
            layers = []
            if expand != 1:
                layers += [nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6()]
            layers += [nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False), nn.BatchNorm2d(hidden),
                       nn.ReLU6(), nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
            self.body = nn.Sequential(*layers)
            self.residual = stride == 1 and cin == cout

        def forward(self, x):
            return x + self.body(x) if self.residual else self.body(x)

    class MobileNetV2(nn.Module):
        def __init__(self):
            super().__init__()
            cfg = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                   (6, 320, 1, 1)]
            layers = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6()]
            cin = 32
            for t, c, n, s in cfg:
                for k in range(n):
                    layers.append(Bottleneck(cin, c, s if k == 0 else 1, t))
                    cin = c
            layers += [nn.Conv2d(cin, 1280, 1, bias=False), nn.BatchNorm2d(1280), nn.ReLU6()]
            self.features = nn.Sequential(*layers)
            self.classifier = nn.Linear(1280, 1000)

        def forward(self, x):
            return self.classifier(self.features(x).mean((2, 3)))

    class EncoderLayer(nn.Module):
        def __init__(self, hidden, heads, ffn):
            super().__init__()
            self.heads = heads
            self.qkv = nn.Linear(hidden, 3 * hidden)
            self.out = nn.Linear(hidden, hidden)
            self.ln1, self.ln2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
            self.fc1, self.fc2 = nn.Linear(hidden, ffn), nn.Linear(ffn, hidden)

        def forward(self, x):
            b, s, h = x.shape
            q, k, v = self.qkv(x).reshape(b, s, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(h // self.heads), dim=-1)
            ctx = (att @ v).transpose(1, 2).reshape(b, s, h)
            x = self.ln1(x + self.out(ctx))
            return self.ln2(x + self.fc2(torch.nn.functional.gelu(self.fc1(x))))

    class Encoder(nn.Module):
        def __init__(self, layers=6, hidden=384, heads=12):
            super().__init__()
            self.layers = nn.ModuleList(EncoderLayer(hidden, heads, 4 * hidden) for _ in range(layers))

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    class DecoderStep(nn.Module):  # pre-LN GPT-2 block, one new token against a KV cache
        def __init__(self, layers=4, hidden=768, heads=12):
            super().__init__()
            self.heads, self.hidden = heads, hidden
            self.blocks = nn.ModuleList(nn.ModuleDict({
                "ln1": nn.LayerNorm(hidden), "qkv": nn.Linear(hidden, 3 * hidden), "proj": nn.Linear(hidden, hidden),
                "ln2": nn.LayerNorm(hidden), "fc": nn.Linear(hidden, 4 * hidden), "fc_out": nn.Linear(4 * hidden, hidden),
            }) for _ in range(layers))
            self.ln_f = nn.LayerNorm(hidden)

        def forward(self, x, past_k, past_v):
            b = x.shape[0]
            d = self.hidden // self.heads
            for n, blk in enumerate(self.blocks):
                q, k, v = blk["qkv"](blk["ln1"](x)).reshape(b, 1, 3, self.heads, d).permute(2, 0, 3, 1, 4)
                keys = torch.cat([past_k[n], k], dim=2)
                values = torch.cat([past_v[n], v], dim=2)
                att = torch.softmax(q @ keys.transpose(-1, -2) / math.sqrt(d), dim=-1)
                x = x + blk["proj"]((att @ values).transpose(1, 2).reshape(b, 1, self.hidden))
                x = x + blk["fc_out"](torch.nn.functional.gelu(blk["fc"](blk["ln2"](x)), approximate="tanh"))
            return self.ln_f(x)

    mlp = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    return {"mobilenet_v2": MobileNetV2, "bert": Encoder, "gpt2_step": DecoderStep, "mlp": lambda: mlp}


def _randomize_bn(module) -> None:
    import torch

    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)


def _exported(name: str, batch: int, dynamic: bool) -> Workload:
    import torch

    torch.manual_seed(0)
    module = _torch_models()[name]().eval()
    _randomize_bn(module)
    rng = np.random.default_rng(0)
    if name == "mobilenet_v2":
        args = {"x": rng.standard_normal((batch, 3, 224, 224))}
    elif name == "bert":
        args = {"x": rng.standard_normal((batch, 128, 384))}
    elif name == "gpt2_step":
        args = {"x": rng.standard_normal((batch, 1, 768)), "past_k": rng.standard_normal((4, batch, 12, 127, 64)),
                "past_v": rng.standard_normal((4, batch, 12, 127, 64))}
    else:
        args = {"x": rng.standard_normal((batch, 784))}
    args = {k: v.astype("float32") for k, v in args.items()}
    dynamic_axes = {"x": {0: "batch", 1: "seq"}} if dynamic else None
    buf = io.BytesIO()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, tuple(torch.from_numpy(v) for v in args.values()), buf, dynamo=False,
                          opset_version=17, input_names=list(args), output_names=["out"], dynamic_axes=dynamic_axes)
    return Workload(name + ("_dyn" if dynamic else ""), buf.getvalue(), args, module)


LIGHT = ("resnet50", "squeezenet", "inception_v1", "densenet121")
EXPORTED = ("mobilenet_v2", "bert", "gpt2_step", "mlp")
ALL = LIGHT + EXPORTED + ("bert_dyn",)


def workload(name: str, batch: int) -> Workload | None:
    """The named workload at ``batch``, or None when it has no such batch."""
    if name in LIGHT:
        return _light(name, batch)
    if name == "bert_dyn":
        return _exported("bert", batch, dynamic=True)
    return _exported(name, batch, dynamic=False)


def ember_fallback(w: Workload):
    """The workload built with ``relax.frontend.nn`` (weights from its PyTorch module bound
    as constants), for models the ONNX importer cannot take yet; None when there is none."""
    if not w.name.startswith("bert"):
        return None
    from ember import relax
    from ember.relax.frontend import nn

    torch_layers = w.torch_module.layers
    hidden, heads = 384, 12

    class Layer(nn.Module):
        def __init__(self):
            self.qkv, self.out = nn.Linear(hidden, 3 * hidden), nn.Linear(hidden, hidden)
            self.ln1, self.ln2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
            self.fc1, self.fc2 = nn.Linear(hidden, 4 * hidden), nn.Linear(4 * hidden, hidden)

        def forward(self, x):
            b, s = x.shape[0], x.shape[1]
            qkv = nn.op.permute_dims(nn.op.reshape(self.qkv(x), (b, s, 3, heads, hidden // heads)), (2, 0, 3, 1, 4))
            q, k, v = nn.op.split(qkv, 3, axis=0)
            q, k, v = (nn.op.squeeze(t, 0) for t in (q, k, v))
            scores = nn.op.matmul(q, nn.op.permute_dims(k, (0, 1, 3, 2))) * (1.0 / math.sqrt(hidden // heads))
            ctx = nn.op.matmul(nn.op.softmax(scores, axis=-1), v)
            ctx = nn.op.reshape(nn.op.permute_dims(ctx, (0, 2, 1, 3)), (b, s, hidden))
            x = self.ln1(x + self.out(ctx))
            return self.ln2(x + self.fc2(nn.op.gelu(self.fc1(x))))

    class Encoder(nn.Module):
        def __init__(self):
            self.layers = nn.ModuleList([Layer() for _ in torch_layers])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    batch, seq = ("batch", "seq") if w.name.endswith("_dyn") else w.inputs["x"].shape[:2]
    mod, _ = Encoder().export_tvm(spec={"forward": {"x": nn.spec.Tensor((batch, seq, hidden), "float32")}})
    params = {f"layers.{n}.{k}": v.detach().numpy() for n, layer in enumerate(torch_layers)
              for k, v in layer.state_dict().items()}
    mod = relax.transform.BindParams("forward", params)(mod)
    return mod, "forward"
