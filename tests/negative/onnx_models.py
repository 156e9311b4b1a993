#!/usr/bin/python3
"""The malformed ONNX models of tests/negative/cases.yaml (`onnx-*` cases after "ONNX import:
malformed models"), built with Debian's python3-onnx (1.12). cases.yaml holds each as the hex of
its bytes (the runner needs no ONNX module); this script is where they come from.

  /usr/bin/python3 tests/negative/onnx_models.py          every model: `id: hex`
  /usr/bin/python3 tests/negative/onnx_models.py ID OUT   one model written to OUT
"""
import sys

from onnx import TensorProto, helper

F = TensorProto.FLOAT16


def model(nodes, inputs, outputs, inits=(), name="m"):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def vi(name, dims, t=F):
    return helper.make_tensor_value_info(name, t, dims)


def weight(name, dims):  # values do not matter to cstsim: shapes only
    t = TensorProto(name=name, data_type=F)
    t.dims.extend(dims)
    return t


def relu_chain(dims):
    return model([helper.make_node("Relu", ["x"], ["y"], name="r")], [vi("x", dims)], [vi("y", None)])


def conv(x_dims, w_dims, **attrs):
    return model([helper.make_node("Conv", ["x", "k"], ["y"], name="c", **attrs)], [vi("x", x_dims)], [vi("y", None)],
                 [weight("k", w_dims)])


def pool(op, x_dims, **attrs):
    return model([helper.make_node(op, ["x"], ["y"], name="p", **attrs)], [vi("x", x_dims)], [vi("y", None)])


MODELS = {
    # y = Relu(z), z = Relu(y): each reads the other's output
    "onnx-cycle": lambda: model([helper.make_node("Relu", ["z"], ["y"], name="A"),
                                 helper.make_node("Relu", ["y"], ["z"], name="B")], [vi("x", [4, 8])], [vi("y", None)]),
    "onnx-self-loop": lambda: model([helper.make_node("Add", ["x", "y"], ["y"], name="A")], [vi("x", [4, 8])],
                                    [vi("y", None)]),
    "onnx-duplicate-output": lambda: model([helper.make_node("Relu", ["x"], ["y"], name="A"),
                                            helper.make_node("Sigmoid", ["x"], ["y"], name="B")], [vi("x", [4, 8])],
                                           [vi("y", None)]),
    "onnx-negative-dim": lambda: relu_chain([4, -5]),
    "onnx-zero-dim": lambda: relu_chain([4, 0]),
    "onnx-dim-2e31": lambda: relu_chain([1, 2 ** 31]),
    "onnx-huge-dims": lambda: relu_chain([2 ** 20, 2 ** 20, 2 ** 20]),
    "onnx-conv1d": lambda: conv([1, 4, 16], [8, 4, 3]),
    "onnx-conv3d": lambda: conv([1, 4, 8, 8, 8], [8, 4, 3, 3, 3]),
    "onnx-maxpool-1d": lambda: pool("MaxPool", [1, 4, 16], kernel_shape=[2]),
    "onnx-gap-2d": lambda: pool("GlobalAveragePool", [4, 49]),
    "onnx-gap-3d": lambda: pool("GlobalAveragePool", [1, 4, 49]),
    "onnx-concat-9": lambda: model([helper.make_node("Concat", ["x"] * 9, ["y"], name="cat", axis=1)],
                                   [vi("x", [2, 4])], [vi("y", None)]),
    "onnx-gemm-1d-weight": lambda: model([helper.make_node("Gemm", ["x", "w"], ["y"], name="fc")], [vi("x", [2, 8])],
                                         [vi("y", None)], [weight("w", [8])]),
    "onnx-names-control": lambda: model([helper.make_node("Relu", ["x"], ["y"], name="r\n\x1b[31mred")],
                                        [vi("x", [4, 8])], [vi("y", None)]),
    # a Relu whose output name is Latin-1 'é' (0xe9), not UTF-8: set as bytes below
    "onnx-name-not-utf8": None,
    # the graph reader, not the importer, refuses this one (the check the importer runs on its output)
    "onnx-conv-groups-zero": lambda: conv([1, 4, 8, 8], [8, 4, 3, 3], group=0),
}


def not_utf8():
    m = model([helper.make_node("Relu", ["x"], ["y"], name="r")], [vi("x", [4, 8])], [vi("y", None)])
    data = m.SerializeToString()
    # protobuf strings are length-prefixed: swap the one-byte name "y" for the byte 0xe9 in place
    return data.replace(b"\x12\x01y", b"\x12\x01\xe9").replace(b"\n\x01y", b"\n\x01\xe9")


def bytes_of(case):
    if case == "onnx-name-not-utf8":
        return not_utf8()
    return MODELS[case]().SerializeToString()


def main():
    if len(sys.argv) == 3:
        with open(sys.argv[2], "wb") as f:
            f.write(bytes_of(sys.argv[1]))
        return
    for case in MODELS:
        print(f"{case}: {bytes_of(case).hex()}")


if __name__ == "__main__":
    main()
