#!/usr/bin/env python3
"""Export the models `cstsim import onnx` is tested on, as Debian's PyTorch writes them.

    python3 tools/models/export_torch.py OUT_DIR [NAME ...]

Writes OUT_DIR/NAME.onnx and OUT_DIR/NAME.json (the analytic MAC count of the model's matrix
products and convolutions, from its shapes, and the exporter's versions). Weights are random
(torchvision's constructors with weights=None): nothing is downloaded. Names:

  resnet18, resnet50, mobilenet_v2   torchvision, batch 1, 224 x 224, eval mode (BN folded into conv)
  encoder_op13, encoder_op17         nn.TransformerEncoderLayer(512, 8, 2048), batch 1, sequence 128
  gpt_block_op14                     a GPT-2-style block (768, 12 heads), sequence 128, causal mask
                                     built from the sequence length (torch.triu), exact (erf) GELU
"""
import json
import math
import sys
import warnings

import torch
import torch.nn as nn
import torchvision

warnings.filterwarnings("ignore")


class GptBlock(nn.Module):
    """Pre-norm block: LayerNorm, causal self-attention, LayerNorm, GELU MLP."""

    def __init__(self, d=768, heads=12):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.act = nn.GELU()
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        b, s, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, s, h, d // h).transpose(1, 2)
        k = k.view(b, s, h, d // h).transpose(1, 2)
        v = v.view(b, s, h, d // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // h)
        mask = torch.triu(torch.ones(s, s, dtype=torch.bool), diagonal=1)
        att = att.masked_fill(mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        return x + self.out(self.act(self.fc(self.ln2(x))))


def conv_linear_macs(model, example):
    """MACs of every Conv2d and Linear and of the batched matmuls, counted by hooks on the shapes."""
    total = [0]

    def conv_hook(m, inp, out):
        k = m.in_channels // m.groups * m.kernel_size[0] * m.kernel_size[1]
        total[0] += out.numel() * k

    def linear_hook(m, inp, out):
        total[0] += out.numel() * m.in_features

    hooks = []
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            hooks.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, nn.Linear):
            hooks.append(m.register_forward_hook(linear_hook))
    with torch.no_grad():
        model(example)
    for h in hooks:
        h.remove()
    return total[0]


def transformer_macs(batch, seq, d, ffn):
    """One encoder or decoder block: q, k, v and output projections (4 d^2 per token), the
    scores q k^T and the context p v (2 S d per token, all heads together), the FFN (2 d ffn)."""
    return batch * seq * (4 * d * d + 2 * seq * d + 2 * d * ffn)


def models():
    """(name, module, example input, opset, MACs: None to count the CNN's by hooks)."""
    x_img = torch.randn(1, 3, 224, 224)
    yield "resnet18", torchvision.models.resnet18(weights=None), x_img, 13, None
    yield "resnet50", torchvision.models.resnet50(weights=None), x_img, 13, None
    yield "mobilenet_v2", torchvision.models.mobilenet_v2(weights=None), x_img, 13, None
    # The encoder's eval-mode fast path skips module hooks: its MACs by formula.
    enc = nn.TransformerEncoderLayer(512, 8, 2048, dropout=0.0, batch_first=True)
    x_seq = torch.randn(1, 128, 512)
    yield "encoder_op13", enc, x_seq, 13, transformer_macs(1, 128, 512, 2048)
    yield "encoder_op17", enc, x_seq, 17, transformer_macs(1, 128, 512, 2048)
    yield "gpt_block_op14", GptBlock(), torch.randn(1, 128, 768), 14, transformer_macs(1, 128, 768, 4 * 768)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    wanted = set(sys.argv[2:])
    torch.manual_seed(0)
    for name, model, example, opset, macs in models():
        if wanted and name not in wanted:
            continue
        model.eval()
        path = f"{out}/{name}.onnx"
        torch.onnx.export(model, example, path, opset_version=opset, do_constant_folding=True,
                          input_names=["input"], output_names=["output"])
        if macs is None:
            macs = conv_linear_macs(model, example)
        with open(f"{out}/{name}.json", "w") as f:
            json.dump({"model": name, "opset": opset, "macs": macs, "torch": torch.__version__,
                       "torchvision": torchvision.__version__}, f)
        print(f"{path}: {macs} MACs (opset {opset}, torch {torch.__version__})")


if __name__ == "__main__":
    main()
