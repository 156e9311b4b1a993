#!/usr/bin/env python3
"""Models as Debian's PyTorch and torchvision export them, imported and run on npu-128-hbm3.

    torch_exports.py CSTSIM SOURCE_DIR WORK_DIR

Exports ResNet-18, ResNet-50, MobileNetV2, nn.TransformerEncoderLayer (opset 13 and 17) and a
GPT-style block (opset 14) with tools/models/export_torch.py; imports each with --dtype int8;
runs it on the full hierarchy; the run's MACs must equal the count made from the PyTorch
module's shapes (hooks on its convolutions and linears, or the block's formula), and the
exporter's decompositions must come back as one op each (LayerNorm, GELU, ReLU6 as clip).
"""
import json
import pathlib
import re
import subprocess
import sys

# What each model's graph must hold after import: op kind -> count.
EXPECTED_OPS = {
    "resnet18": {"conv2d": 20, "matmul": 1},
    "resnet50": {"conv2d": 53, "matmul": 1},
    "mobilenet_v2": {"conv2d": 52, "clip": 35, "matmul": 1},
    "encoder_op13": {"layernorm": 2, "softmax": 1, "slice": 3},
    "encoder_op17": {"layernorm": 2, "softmax": 1, "slice": 3},
    "gpt_block_op14": {"layernorm": 2, "gelu": 1, "softmax": 1, "slice": 3},
}


def main():
    cstsim, source, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(source / "tools/models/export_torch.py"), str(work)], check=True)
    failures, cycles = [], {}
    for name, want in EXPECTED_OPS.items():
        model, yaml, out = work / f"{name}.onnx", work / f"{name}.yaml", work / f"run-{name}"
        expected_macs = json.loads((work / f"{name}.json").read_text())["macs"]
        r = subprocess.run([cstsim, "import", "onnx", str(model), "--out", str(yaml), "--force", "--dtype", "int8"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"{name}: import exited {r.returncode}: {r.stderr.strip()}")
            continue
        text = yaml.read_text()
        ops = re.findall(r"\bop: (\w+)", text)
        if f"\nname: {name}\n" not in text:  # torch names every graph torch_jit: the file's name instead
            failures.append(f"{name}: the workload is not named after its file")
        for kind, count in want.items():
            if ops.count(kind) != count:
                failures.append(f"{name}: {ops.count(kind)} {kind} ops, expected {count}")
        r = subprocess.run([cstsim, "run", "-q", "--no-trace", "--force", "--arch",
                            str(source / "configs/arch/npu-128-hbm3.yaml"), "--workload", str(yaml), "--out", str(out)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"{name}: run exited {r.returncode}: {r.stderr.strip()}")
            continue
        summary = json.loads((out / "summary.json").read_text())
        macs = summary["total"]["macs"]
        print(f"{name}: {len(ops)} ops, {macs} MACs (PyTorch's count {expected_macs}), "
              f"{summary['total'].get('cycles')} cycles")
        cycles[name] = summary["total"].get("cycles")
        if macs != expected_macs:
            failures.append(f"{name}: {macs} MACs simulated, {expected_macs} in the PyTorch model")
        if summary["workload"].get("not_simulated"):
            failures.append(f"{name}: ops not simulated: {summary['workload']['not_simulated']}")
    # One module, two opsets: LayerNorm decomposed (13) and native (17) must import to the same run.
    if cycles.get("encoder_op13") != cycles.get("encoder_op17"):
        failures.append(f"encoder: {cycles.get('encoder_op13')} cycles at opset 13, {cycles.get('encoder_op17')} at 17")
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
