"""Exact rewrites of an exported ONNX graph that make it cheaper to run on the CPU (training only: the
shipped files are already rewritten, and the run time needs no ``onnx`` package).

- ``fold_input_scaling``: both nets scale their input inside (``x / 127.5 - 1``, models.nets). The
  scaling is folded into the first convolution's weights and bias, and its zero padding becomes
  padding with the raw value that scales to zero (127.5): two passes over the input fewer.
- ``project_before_upsampling``: the mask net's decoder upsamples the coarse features (bilinear),
  joins them to the skip features (Concat) and mixes the two with a 1x1 convolution. A 1x1
  convolution is a per-pixel linear map and bilinear weights sum to 1, so the convolution's part for
  the coarse features can run *before* the upsampling, on 4 times fewer pixels:

      Conv1x1(Concat(Resize(a), b))  ==  Resize(Conv1x1_a(a)) + Conv1x1_b(b)   (bias on the b side)

  Where the probe shows the upsampling to be by a whole factor (2: the input's sides are multiples
  of models.labels.INPUT_MULTIPLE, as vision.detector.MaskStage always makes them), the Resize is
  given that factor instead of a size computed at run time, which lets ONNX Runtime run it in its
  blocked channel layout with the convolutions: no Concat and no layout reorders around the Resize
  (together about half of the mask net's time).

Each rewrite computes the same function up to floating-point rounding; ``rewrite_file`` runs the graph
before and after on a random input and refuses to write a result that differs.

    python -m models.graph models/cardmask.onnx models/cardface.onnx    # rewrite files in place
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

# the probe inputs: a frame-sized mask net input (sides multiples of 16) and a batch of card crops
PROBE_SHAPES = {"image": (1, 3, 256, 448), "crops": (2, 3, 96, 64)}


class RewriteError(RuntimeError):
    """A rewritten graph does not compute what the original did."""


def _attributes(node) -> dict:
    from onnx import helper
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


class _Graph:
    """Who makes and who uses each tensor of an onnx graph, and its constant values."""

    def __init__(self, model):
        from onnx import numpy_helper
        self.graph = model.graph
        self.values = {t.name: numpy_helper.to_array(t) for t in self.graph.initializer}
        self.producer, self.consumers = {}, {}
        for n in self.graph.node:
            for o in n.output:
                self.producer[o] = n
            for i in n.input:
                self.consumers.setdefault(i, []).append(n)
            if n.op_type == "Constant" and "value" in _attributes(n):
                self.values[n.output[0]] = numpy_helper.to_array(_attributes(n)["value"])

    def only_consumer(self, name: str, op_type: str):
        users = self.consumers.get(name, [])
        return users[0] if len(users) == 1 and users[0].op_type == op_type else None

    def scalar(self, name: str) -> float | None:
        v = self.values.get(name)
        return float(v.reshape(())) if v is not None and v.size == 1 else None

    def add_constant(self, array: np.ndarray, name: str) -> str:
        from onnx import numpy_helper
        self.graph.initializer.append(numpy_helper.from_array(array, name))
        return name

    def replace(self, old, new_nodes: list) -> None:
        at = list(self.graph.node).index(old)
        self.graph.node.remove(old)
        for k, node in enumerate(new_nodes):
            self.graph.node.insert(at + k, node)


def fold_input_scaling(model) -> int:
    """Fold ``input * s + d`` (a Mul then a Sub or Add, by scalar constants) into the convolution that
    takes it. Changes ``model`` in place; the number of places rewritten (0 or 1 per graph input)."""
    from onnx import helper
    g = _Graph(model)
    count = 0
    for graph_input in model.graph.input:
        mul = g.only_consumer(graph_input.name, "Mul")
        if mul is None:
            continue
        s = g.scalar(mul.input[1] if mul.input[0] == graph_input.name else mul.input[0])
        shift = g.consumers.get(mul.output[0], [])
        if s is None or s == 0 or len(shift) != 1 or shift[0].op_type not in ("Sub", "Add"):
            continue
        shift = shift[0]
        if shift.input[0] != mul.output[0]:
            continue
        d = g.scalar(shift.input[1])
        conv = g.only_consumer(shift.output[0], "Conv")
        if d is None or conv is None or conv.input[1] not in g.values:
            continue
        a = _attributes(conv)
        if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET") or a.get("group", 1) != 1:
            continue
        d = -d if shift.op_type == "Sub" else d
        w = g.values[conv.input[1]]
        b = g.values[conv.input[2]] if len(conv.input) > 2 and conv.input[2] else np.zeros(w.shape[0], w.dtype)
        pads = list(a.get("pads", [0] * 2 * (w.ndim - 2)))
        tag = conv.name or conv.output[0]
        # conv(w, x*s + d) = conv(w*s, x) + d*sum(w); the padding, 0 after scaling, is -d/s before it
        inputs = [graph_input.name]
        nodes = []
        if any(pads):
            half = len(pads) // 2
            pad_all = np.array([0, 0] + pads[:half] + [0, 0] + pads[half:], np.int64)
            nodes.append(helper.make_node(
                "Pad", [graph_input.name, g.add_constant(pad_all, f"{tag}/pads"),
                        g.add_constant(np.array(-d / s, w.dtype), f"{tag}/pad_value")],
                [f"{tag}/padded"], mode="constant"))
            inputs = [f"{tag}/padded"]
        kept = {k: v for k, v in a.items() if k not in ("pads", "auto_pad")}
        nodes.append(helper.make_node(
            "Conv", inputs + [g.add_constant((w * s).astype(w.dtype), f"{tag}/w_folded"),
                              g.add_constant((b + d * w.sum(axis=tuple(range(1, w.ndim)))).astype(w.dtype),
                                             f"{tag}/b_folded")],
            [conv.output[0]], name=conv.name, **kept))
        g.replace(conv, nodes)
        count += 1
    if count:
        _drop_unused(model.graph)
    return count


def _is_pointwise_conv(node, g: _Graph) -> bool:
    if node.op_type != "Conv" or len(node.input) < 2 or node.input[1] not in g.values:
        return False
    a = _attributes(node)
    w = g.values[node.input[1]]
    return (w.ndim == 4 and w.shape[2:] == (1, 1) and a.get("group", 1) == 1
            and all(s == 1 for s in a.get("strides", [1, 1])) and not any(a.get("pads", [0, 0, 0, 0])))


def _upsampling_steps(g: _Graph) -> list[tuple]:
    """The (Resize, Concat, Conv) of each linear Resize -> Concat (channels) -> 1x1 Conv."""
    steps = []
    for conv in list(g.graph.node):
        if not _is_pointwise_conv(conv, g):
            continue
        concat = g.producer.get(conv.input[0])
        if concat is None or concat.op_type != "Concat" or _attributes(concat).get("axis") != 1:
            continue
        if len(g.consumers.get(concat.output[0], [])) != 1 or len(concat.input) != 2:
            continue
        resize = g.producer.get(concat.input[0])
        if resize is None or resize.op_type != "Resize" or _attributes(resize).get("mode") != b"linear":
            continue
        if len(g.consumers.get(resize.output[0], [])) == 1:
            steps.append((resize, concat, conv))
    return steps


def project_before_upsampling(model, feed: dict[str, np.ndarray]) -> int:
    """Rewrite every linear Resize -> Concat (channels) -> 1x1 Conv of ``model`` (changed in place) as
    a 1x1 Conv -> Resize, added to a 1x1 Conv of the skip features. ``feed``: a probe input, on which
    the maps' shapes are measured. The number of places rewritten."""
    from onnx import helper
    g = _Graph(model)
    steps = _upsampling_steps(g)
    if not steps:
        return 0
    shapes = tensor_shapes(model, [n for resize, concat, _ in steps for n in (resize.input[0], concat.input[1])], feed)
    count = 0
    for resize, concat, conv in steps:
        coarse, skip = resize.input[0], concat.input[1]
        w = g.values[conv.input[1]]
        b = g.values[conv.input[2]] if len(conv.input) > 2 and conv.input[2] else np.zeros(w.shape[0], w.dtype)
        channels = shapes[coarse][1]
        if not 0 < channels < w.shape[1]:
            continue
        tag = conv.name or conv.output[0]
        projected, up, mixed = f"{tag}/coarse", f"{tag}/up", f"{tag}/skip"
        nodes = [helper.make_node("Conv", [coarse, g.add_constant(np.ascontiguousarray(w[:, :channels]),
                                                                    f"{tag}/w_coarse")], [projected])]
        factor = _whole_factor(shapes[coarse], shapes[skip])
        if factor:
            scales = g.add_constant(np.array([1, 1, factor, factor], np.float32), f"{tag}/scales")
            nodes.append(helper.make_node("Resize", [projected, "", scales], [up], **_attributes(resize)))
        else:
            # the upsampled size as the original asked for it: the skip features' height and width
            nodes += [helper.make_node("Shape", [projected], [f"{tag}/n_c"], start=0, end=2),
                      helper.make_node("Shape", [skip], [f"{tag}/h_w"], start=2),
                      helper.make_node("Concat", [f"{tag}/n_c", f"{tag}/h_w"], [f"{tag}/sizes"], axis=0),
                      helper.make_node("Resize", [projected, "", "", f"{tag}/sizes"], [up], **_attributes(resize))]
        nodes += [helper.make_node("Conv", [skip, g.add_constant(np.ascontiguousarray(w[:, channels:]), f"{tag}/w_skip"),
                                            g.add_constant(b, f"{tag}/bias")], [mixed]),
                  helper.make_node("Add", [up, mixed], [conv.output[0]])]
        g.replace(conv, nodes)
        count += 1
    if count:
        _drop_unused(model.graph)
    return count


def _whole_factor(coarse: tuple, skip: tuple) -> int | None:
    """The whole factor by which the coarse map's height and width grow to the skip map's, if any."""
    (h, w), (h2, w2) = coarse[2:], skip[2:]
    if h and w and h2 % h == 0 and w2 % w == 0 and h2 // h == w2 // w > 1:
        return h2 // h
    return None


def _drop_unused(graph) -> None:
    """Remove the nodes and initializers that no output depends on any more."""
    needed = {o.name for o in graph.output}
    keep = set()
    for node in reversed(list(graph.node)):
        if any(o in needed for o in node.output):
            keep.add(id(node))
            needed.update(i for i in node.input if i)
    for n in [n for n in graph.node if id(n) not in keep]:
        graph.node.remove(n)
    for t in [t for t in graph.initializer if t.name not in needed]:
        graph.initializer.remove(t)


def _session(model):
    import onnxruntime as ort
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def probe_input(model, seed: int = 0) -> dict[str, np.ndarray]:
    """A random 0..255 input for ``model``, of the shape in PROBE_SHAPES for its input's name."""
    if not model.graph.input:  # (an empty file reads as a model of no graph)
        raise RewriteError("a graph with no input: is it an ONNX model?")
    name = model.graph.input[0].name
    if name not in PROBE_SHAPES:
        raise RewriteError(f"no probe shape for a graph whose input is {name!r} (known: {sorted(PROBE_SHAPES)})")
    return {name: np.random.default_rng(seed).uniform(0, 255, PROBE_SHAPES[name]).astype(np.float32)}


def tensor_shapes(model, names: list[str], feed: dict[str, np.ndarray]) -> dict[str, tuple]:
    """The shapes of the float tensors ``names`` of ``model`` on the input ``feed``."""
    import onnx
    from onnx import helper
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    del probe.graph.output[:]
    probe.graph.output.extend(helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None) for n in names)
    return {n: tuple(v.shape) for n, v in zip(names, _session(probe).run(None, feed))}


def optimise(model):
    """Both rewrites, checked: ``(model, {rewrite: count})``; raises RewriteError if the rewritten
    graph's outputs differ from the original's on a probe input."""
    import onnx
    original = onnx.ModelProto()
    original.CopyFrom(model)
    feed = probe_input(model)
    counts = {"input scaling": fold_input_scaling(model),
              "upsampling": project_before_upsampling(model, feed)}
    if any(counts.values()):
        onnx.checker.check_model(model)
        for before, after, out in zip(_session(original).run(None, feed), _session(model).run(None, feed),
                                      model.graph.output):
            # float32 rounding is about 1e-7 of the output's size; a changed weight far more
            scale = float(np.abs(before).max())
            if before.shape != after.shape or float(np.abs(before - after).max()) > 1e-5 * scale:
                raise RewriteError(f"the rewritten graph's output {out.name!r} differs from the original's")
    return model, counts


def rewrite_file(path: Path) -> dict[str, int]:
    """Rewrite the ONNX file at ``path`` in place (nothing is written when nothing changes)."""
    import onnx
    model, counts = optimise(onnx.load(str(path)))
    if any(counts.values()):
        tmp = path.with_suffix(path.suffix + ".tmp")
        onnx.save(model, str(tmp))
        tmp.replace(path)
    return counts


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Rewrite exported nets to run faster, computing the same.")
    p.add_argument("models", nargs="+", type=Path, help="ONNX files to rewrite in place")
    args = p.parse_args(argv)
    failed = False
    for path in args.models:
        # (a path mistyped, or a file that is no net: one line naming it, and the other files still
        # rewritten; it was a traceback, and the files after it were left as they were)
        if not path.is_file():
            problem = "no such file" if not path.exists() else "not a file"
        else:
            from google.protobuf.message import DecodeError  # (what onnx's parser raises)
            try:
                counts = rewrite_file(path)
            except (RewriteError, OSError) as exc:
                problem = str(exc)
            except DecodeError as exc:
                problem = f"not an ONNX model ({exc})"
            else:
                print(f"{path}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
                continue
        print(f"python -m models.graph: {path}: {problem}", file=sys.stderr)
        failed = True
    return 2 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
