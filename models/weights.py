"""Training on from the exported nets: a MaskNet or CropNet filled with the weights of its ONNX file
(training only; needs torch and onnx).

The checkpoints of a training run stay on the machine that ran it (var/train/, ignored by git); the
ONNX files are what the project keeps. The export folds each batch norm into its convolution, so the
weights come back with the batch norms as identities (scale 1, the folded bias as their shift, mean
0, variance 1 - eps): the same function in eval mode. Training on from them keeps the batch norms
frozen (``freeze_norms``): with batch statistics they would compute another function at the first
step. A mask net rewritten by models.graph is read back through the rewrite (the decoder's split
1x1 convolutions joined, the input scaling taken out of the first convolution).

``load_exported`` checks its work: the filled net and the ONNX file must give the same output on a
random input, or it raises ``ExportedWeightsError`` naming the file.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np


class ExportedWeightsError(ValueError):
    """An ONNX file does not hold the weights of the net it is read into."""


def _convolutions_and_linears(model) -> list:
    """The Conv2d and Linear modules of ``model`` in the order its forward pass runs them (the order
    they are registered in, for MaskNet and CropNet)."""
    from torch import nn
    return [m for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]


def _norm_after(model) -> dict:
    """Each Conv2d of ``model`` mapped to the BatchNorm2d that follows it in its _cbr block, if any."""
    from torch import nn
    after = {}
    for block in model.modules():
        if isinstance(block, nn.Sequential):
            parts = list(block)
            for conv, norm in zip(parts, parts[1:]):
                if isinstance(conv, nn.Conv2d) and isinstance(norm, nn.BatchNorm2d):
                    after[conv] = norm
    return after


def _exported_layers(path: Path) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """The (weight, bias) of each Conv and Gemm of an exported graph, in graph order, with the
    rewrites of models.graph undone."""
    import onnx

    from models.graph import _Graph
    from models.nets import INPUT_SCALE, INPUT_SHIFT
    model = onnx.load(str(path))
    g = _Graph(model)  # the graph's constants and who makes each tensor, as the rewrites read them
    values = g.values
    layers: list[list] = []
    for n in model.graph.node:
        if n.op_type not in ("Conv", "Gemm"):
            continue
        w = values[n.input[1]].astype(np.float32)
        b = values[n.input[2]].astype(np.float32) if len(n.input) > 2 and n.input[2] else None
        if layers and n.output[0].endswith("/skip") and layers[-1][2].endswith("/coarse"):
            # a decoder step split by project_before_upsampling: one 1x1 convolution over both inputs
            layers[-1] = [np.concatenate([layers[-1][0], w], axis=1), b, n.output[0]]
            continue
        layers.append([w, b, n.output[0]])
    first = next(n for n in model.graph.node if n.op_type == "Conv")
    if first.input[0] in g.producer and g.producer[first.input[0]].op_type == "Pad":
        # the input scaling folded in (fold_input_scaling): w = w0 * s, b = b0 + d * sum(w0)
        w0 = layers[0][0] / INPUT_SCALE
        layers[0][0] = w0
        layers[0][1] = layers[0][1] - INPUT_SHIFT * w0.sum(axis=(1, 2, 3))
    return [(w, b) for w, b, _ in layers]


def load_exported(model, path: Path | str):
    """Fill ``model`` (a MaskNet or CropNet, changed in place and returned) with the weights of its
    exported ONNX file at ``path``; the batch norms become identities. Raises ExportedWeightsError when
    the file's layers do not fit the net or the filled net computes something else."""
    import torch
    path = Path(path)
    if not path.is_file():
        raise ExportedWeightsError(f"no exported net at {path}")
    layers = _exported_layers(path)
    modules = _convolutions_and_linears(model)
    if len(layers) != len(modules):
        raise ExportedWeightsError(f"{path} has {len(layers)} convolution and linear layers, "
                                   f"the {type(model).__name__} {len(modules)}")
    norms = _norm_after(model)
    with torch.no_grad():
        for module, (w, b) in zip(modules, layers):
            if tuple(module.weight.shape) != w.shape:
                raise ExportedWeightsError(f"{path}: a layer of shape {w.shape} where the "
                                           f"{type(model).__name__} has {tuple(module.weight.shape)}")
            module.weight.copy_(torch.from_numpy(w))
            bias = torch.from_numpy(b if b is not None else np.zeros(w.shape[0], np.float32))
            norm = norms.get(module)
            if norm is not None:
                # the folded batch norm as an identity plus the folded bias
                norm.weight.fill_(1.0)
                norm.bias.copy_(bias)
                norm.running_mean.zero_()
                norm.running_var.fill_(1.0 - norm.eps)
            elif module.bias is not None:
                module.bias.copy_(bias)
            elif b is not None and np.any(b):
                raise ExportedWeightsError(f"{path}: a layer with a bias where the {type(model).__name__} has none")
    _check_same_output(model, path)
    return model


def _check_same_output(model, path: Path) -> None:
    import onnxruntime as ort
    import torch
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    shape = (1, 3, 64, 96) if name == "image" else (2, 3, 96, 64)
    x = np.random.default_rng(0).uniform(0, 255, shape).astype(np.float32)
    expected = session.run(None, {name: x})
    was_training = model.training
    model.eval()
    with torch.no_grad():
        got = model(torch.from_numpy(x))
    model.train(was_training)
    got = [got] if isinstance(got, torch.Tensor) else list(got)
    if name == "image":
        got = [torch.sigmoid(got[0])]  # the exported mask net adds the sigmoid
    for e, g in zip(expected, got):
        g = g.numpy()
        if e.shape != g.shape or float(np.abs(e - g).max()) > 1e-4 * max(1.0, float(np.abs(e).max())):
            raise ExportedWeightsError(f"{path}: the {type(model).__name__} filled with its weights "
                                       f"computes something else")


def freeze_norms(model) -> None:
    """Keep the batch norms of ``model`` on their stored statistics while the rest trains (call
    after model.train())."""
    from torch import nn
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def exported_crop_widths(path: Path | str) -> tuple[int, int]:
    """The widths (``late``, ``maps``: nets.CropNet's) of the crop net exported at ``path``, from its
    last convolution (``maps`` x ``late`` x 1 x 1, before the two heads)."""
    path = Path(path)
    if not path.is_file():
        raise ExportedWeightsError(f"no exported net at {path}")
    layers = _exported_layers(path)
    if len(layers) < 3 or layers[-3][0].ndim != 4 or layers[-3][0].shape[2:] != (1, 1):
        raise ExportedWeightsError(f"{path} is not a crop net")
    maps, late = layers[-3][0].shape[:2]
    return int(late), int(maps)


def load_exported_widened(model, path: Path | str):
    """Fill a CropNet ``model`` from the crop net exported at ``path``, of its widths or narrower
    (fewer channels in its last stage or its maps: nets.CropNet's ``late`` and ``maps``), so that it
    computes what the file does: a narrower file's weights fill the leading channels, the weights by
    which a new channel feeds an old one or a head are zero, and the new channels keep their random
    start (so they learn: the heads' gradients reach them). Its batch norms are identities for the
    new channels too. Returns ``model``; raises ExportedWeightsError when the file is not a crop net
    this one is or widens."""
    import torch
    from torch import nn

    from models.nets import CropNet
    late, maps = exported_crop_widths(path)
    if (late, maps) == (model.late, model.maps):
        return load_exported(model, path)
    exported = load_exported(CropNet(n_classes=model.face.out_features, late=late, maps=maps), path)
    if model.late < exported.late or model.maps < exported.maps:
        raise ExportedWeightsError(f"{path}: a crop net of {exported.late} and {exported.maps} channels "
                                   f"cannot be read into a narrower one ({model.late} and {model.maps})")
    kinds = (nn.Conv2d, nn.Linear, nn.BatchNorm2d)
    old = [m for m in exported.modules() if isinstance(m, kinds)]
    new = [m for m in model.modules() if isinstance(m, kinds)]
    with torch.no_grad():
        for small, wide in zip(old, new, strict=True):
            if isinstance(small, nn.BatchNorm2d):
                n = small.num_features
                wide.weight.fill_(1.0)
                wide.bias.zero_()
                wide.running_mean.zero_()
                wide.running_var.fill_(1.0 - wide.eps)
                for name in ("weight", "bias", "running_mean", "running_var"):
                    getattr(wide, name)[:n] = getattr(small, name)
            elif isinstance(small, nn.Linear):
                # the heads read the maps flattened channel by channel: the new channels come last
                out, inp = small.weight.shape
                per_map = inp // exported.maps
                w = wide.weight.view(out, model.maps, per_map)
                w.zero_()
                w[:, :exported.maps] = small.weight.view(out, exported.maps, per_map)
                wide.bias.copy_(small.bias)
            else:
                cout, cin = small.weight.shape[:2]
                if small.groups == 1:  # a depthwise convolution has no weights across channels
                    wide.weight[:cout].zero_()
                wide.weight[:cout, :cin] = small.weight
                if small.bias is not None:
                    wide.bias[:cout] = small.bias
    _check_same_output(model, Path(path))
    return model
