"""Small PyTorch models built in code (random weights, no downloads) used by the frontend
tests and benchmarks/bench_torch.py: ResNet-style CNN, MobileNetV2-style CNN, BERT encoder,
GPT-2-style decoder with a causal mask, LSTM tagger, ViT."""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F


# -- CNNs -------------------------------------------------------------------------------------

class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + (x if self.down is None else self.down(x)))


class ResNet(nn.Module):
    """ResNet-18 layout (stem, 4 stages of ``blocks`` basic blocks, global pool, fc) at a small
    width; ``blocks=2`` is ResNet-18, ``blocks=1`` the same stages at half the depth."""

    def __init__(self, width=8, num_classes=10, blocks=2):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 7, 2, 3, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        chans = [width, width * 2, width * 4, width * 8]
        layers, cin = [], width
        for i, c in enumerate(chans):
            layers += [BasicBlock(cin, c, 1 if i == 0 else 2)] + [BasicBlock(c, c) for _ in range(blocks - 1)]
            cin = c
        self.layers = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.layers(self.stem(x))), 1))


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.block = nn.Sequential(
            nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(inplace=True),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False), nn.BatchNorm2d(hidden),
            nn.ReLU6(inplace=True),
            nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return x + self.block(x) if self.use_res else self.block(x)


class MobileNetV2(nn.Module):
    """MobileNetV2 layout (inverted residuals, depthwise 3x3, ReLU6) at a small width."""

    def __init__(self, num_classes=10, settings=((1, 8, 1, 1), (6, 12, 2, 2), (6, 16, 2, 2), (6, 24, 1, 1))):
        super().__init__()
        layers = [nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU6(inplace=True)]
        cin = 8
        for t, c, n, s in settings:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers += [nn.Conv2d(cin, 64, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU6(inplace=True)]
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(64, num_classes))

    def forward(self, x):
        x = self.features(x)
        return self.classifier(F.adaptive_avg_pool2d(x, 1).flatten(1))


# -- transformers -----------------------------------------------------------------------------

class BertLayer(nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.ff1 = nn.Linear(d, ff)
        self.ff2 = nn.Linear(ff, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-12)

    def forward(self, x, mask):
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads) + mask
        ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, d)
        x = self.ln1(x + self.out(ctx))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


class BertEncoder(nn.Module):
    """BERT encoder: token + position + segment embeddings, post-LN layers, padding mask, pooler."""

    def __init__(self, vocab=100, d=32, heads=4, ff=64, layers=2, max_len=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        self.seg = nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList([BertLayer(d, heads, ff) for _ in range(layers)])
        self.pool = nn.Linear(d, d)

    def forward(self, ids, attention_mask):
        s = ids.shape[1]
        pos = torch.arange(s, device=ids.device).unsqueeze(0)
        x = self.ln(self.tok(ids) + self.pos(pos) + self.seg(torch.zeros_like(ids)))
        mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask)
        return x, torch.tanh(self.pool(x[:, 0]))


class GPT2Block(nn.Module):
    def __init__(self, d, heads, max_len):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.fc_out = nn.Linear(4 * d, d)
        self.register_buffer("bias", torch.tril(torch.ones(max_len, max_len)).view(1, 1, max_len, max_len))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.attn(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        w = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // self.heads))
        w = w.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        y = (F.softmax(w, dim=-1) @ v).transpose(1, 2).contiguous().view(b, t, d)
        x = x + self.proj(y)
        return x + self.fc_out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT2(nn.Module):
    """GPT-2 decoder: learned positions, pre-LN blocks with a causal-mask buffer, tied LM head."""

    def __init__(self, vocab=100, d=32, heads=4, layers=2, max_len=64):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(max_len, d)
        self.blocks = nn.ModuleList([GPT2Block(d, heads, max_len) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)

    def forward(self, ids):
        t = ids.shape[1]
        x = self.wte(ids) + self.wpe(torch.arange(t, device=ids.device))
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.t()


class LSTMTagger(nn.Module):
    """Embedding → bidirectional LSTM (``layers`` deep) → per-token tag scores (log-softmax)."""

    def __init__(self, vocab=50, emb=16, hidden=16, tags=5, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=layers, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, tags)

    def forward(self, ids):
        h, _ = self.lstm(self.emb(ids))
        return F.log_softmax(self.out(h), dim=-1)


class ViT(nn.Module):
    """Vision transformer: patch conv, class token, learned positions, nn.TransformerEncoder
    (pre-LN, GELU), head on the class token."""

    def __init__(self, image=16, patch=4, d=32, heads=4, layers=2, num_classes=10):
        super().__init__()
        self.patch = nn.Conv2d(3, d, patch, patch)
        n = (image // patch) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, num_classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        x = self.encoder(x)
        return self.head(self.norm(x[:, 0]))


def seeded(cls, *args, seed=0, **kwargs):
    """An eval-mode model with reproducible random weights (and non-trivial BN statistics)."""
    torch.manual_seed(seed)
    model = cls(*args, **kwargs).eval()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
    return model
