"""models.graph: the exported nets rewritten to run faster compute what they computed before."""
import warnings
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from models import graph  # noqa: E402
from models.nets import CropNet, MaskNet  # noqa: E402

MODELS = Path(__file__).resolve().parent.parent / "models"


def _export(net, dummy, input_name, tmp_path) -> "onnx.ModelProto":
    """``net`` exported as training does (eval mode, so batch norm is folded). Its batch-norm
    statistics are measured on random input first, so that every layer's output is of a useful size
    and each part of the net shows in the output (with fresh statistics the deep features vanish)."""
    torch.manual_seed(0)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.reset_running_stats()
                m.momentum = None  # a plain average over the batches
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.3, 0.3)
        net.train()
        for _ in range(3):
            net(torch.rand(4, *dummy.shape[1:]) * 255)
    net.eval()
    path = tmp_path / "net.onnx"
    with warnings.catch_warnings():  # the TorchScript exporter, as training uses it
        warnings.simplefilter("ignore")
        torch.onnx.export(net, dummy, str(path), dynamo=False, opset_version=20, input_names=[input_name],
                          dynamic_axes={input_name: {0: "n", 2: "h", 3: "w"}})
    return onnx.load(str(path))


def _run(model, x: np.ndarray) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: x})


def _copy(model):
    c = onnx.ModelProto()
    c.CopyFrom(model)
    return c


def _ops(model) -> list[str]:
    return [n.op_type for n in model.graph.node]


@pytest.fixture(scope="module")
def mask_graph(tmp_path_factory):
    torch.manual_seed(0)
    return _export(MaskNet(outputs=3), torch.zeros(1, 3, 64, 96), "image", tmp_path_factory.mktemp("mask"))


def test_the_mask_net_rewritten_gives_the_same_maps(mask_graph):
    fast, counts = graph.optimise(_copy(mask_graph))
    assert counts == {"input scaling": 1, "upsampling": 3}
    # no input scaling and no channel joins left; the upsampling by a fixed factor
    assert "Mul" not in _ops(fast) and "Sub" not in _ops(fast)
    assert not [n for n in fast.graph.node if n.op_type == "Concat" and graph._attributes(n).get("axis") == 1]
    assert all(len(n.input) == 3 and n.input[2] for n in fast.graph.node if n.op_type == "Resize")
    rng = np.random.default_rng(1)
    for shape in [(1, 3, 256, 448), (2, 3, 96, 160), (1, 3, 48, 32)]:  # sides multiples of 16
        x = rng.uniform(0, 255, shape).astype(np.float32)
        before, after = _run(mask_graph, x)[0], _run(fast, x)[0]
        assert after.shape == before.shape == (shape[0], 3, shape[2] // 2, shape[3] // 2)
        np.testing.assert_allclose(after, before, rtol=0, atol=1e-5 * np.abs(before).max())


def test_upsampling_to_a_size_that_is_no_whole_factor_keeps_the_size_from_the_skip_map(mask_graph):
    # probed on sides that are not multiples of 16, a coarse map is not half of its skip map: the
    # rewritten Resize takes its size from the skip map at run time, as the original did
    x = np.random.default_rng(2).uniform(0, 255, (1, 3, 100, 150)).astype(np.float32)
    fast = _copy(mask_graph)
    assert graph.project_before_upsampling(fast, {"image": x}) == 3
    assert all(len(n.input) == 4 for n in fast.graph.node if n.op_type == "Resize")
    assert "Concat" in _ops(fast)  # of the sizes, not of the channels
    for shape in [(1, 3, 100, 150), (1, 3, 64, 96)]:
        y = np.random.default_rng(3).uniform(0, 255, shape).astype(np.float32)
        before = _run(mask_graph, y)[0]
        np.testing.assert_allclose(_run(fast, y)[0], before, rtol=0, atol=1e-5 * np.abs(before).max())


def test_the_crop_nets_input_scaling_is_folded_into_its_first_convolution(tmp_path):
    torch.manual_seed(0)
    net = _export(CropNet(), torch.zeros(2, 3, 96, 64), "crops", tmp_path)
    fast = _copy(net)
    assert graph.fold_input_scaling(fast) == 1
    assert _ops(fast)[0] == "Pad" and "Mul" not in _ops(fast) and "Sub" not in _ops(fast)
    x = np.random.default_rng(4).uniform(0, 255, (5, 3, 96, 64)).astype(np.float32)
    for before, after in zip(_run(net, x), _run(fast, x)):
        np.testing.assert_allclose(after, before, rtol=0, atol=1e-5 * np.abs(before).max())
    # nothing left to fold a second time
    assert graph.fold_input_scaling(fast) == 0


def test_a_rewrite_that_changes_the_output_is_refused(mask_graph, monkeypatch):
    right = graph.project_before_upsampling

    def broken(model, feed):
        # the right rewrite, then one weight changed
        count = right(model, feed)
        tensor = next(t for t in model.graph.initializer if t.name.endswith("/w_skip"))
        w = onnx.numpy_helper.to_array(tensor).copy()
        w.flat[0] += 1.0
        tensor.CopyFrom(onnx.numpy_helper.from_array(w, tensor.name))
        return count

    monkeypatch.setattr(graph, "project_before_upsampling", broken)
    with pytest.raises(graph.RewriteError, match="differs from the original"):
        graph.optimise(_copy(mask_graph))


def test_rewrite_file_writes_the_fast_form_and_a_second_run_finds_nothing(mask_graph, tmp_path):
    path = tmp_path / "cardmask.onnx"
    onnx.save(mask_graph, str(path))
    assert graph.rewrite_file(path) == {"input scaling": 1, "upsampling": 3}
    written = path.read_bytes()
    assert graph.rewrite_file(path) == {"input scaling": 0, "upsampling": 0}
    assert path.read_bytes() == written


def test_a_graph_without_a_probe_shape_is_refused_by_name():
    model = onnx.helper.make_model(onnx.helper.make_graph(
        [onnx.helper.make_node("Relu", ["pixels"], ["y"])], "g",
        [onnx.helper.make_tensor_value_info("pixels", onnx.TensorProto.FLOAT, [1, 3, 8, 8])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 3, 8, 8])]))
    with pytest.raises(graph.RewriteError, match="'pixels'"):
        graph.optimise(model)


def test_the_shipped_mask_net_is_in_the_fast_form():
    model = onnx.load(str(MODELS / "cardmask.onnx"))
    assert graph.optimise(_copy(model))[1] == {"input scaling": 0, "upsampling": 0}
    assert "Mul" not in _ops(model)
    assert not [n for n in model.graph.node if n.op_type == "Concat" and graph._attributes(n).get("axis") == 1]


def test_the_command_rewrites_the_files_it_is_given_and_says_what_it_did(mask_graph, tmp_path, capsys):
    path = tmp_path / "cardmask.onnx"
    onnx.save(mask_graph, str(path))
    assert graph.main([str(path)]) == 0
    assert f"{path}: input scaling 1, upsampling 3" in capsys.readouterr().out
    assert "Concat" not in [n.op_type for n in onnx.load(str(path)).graph.node
                            if n.op_type == "Concat" and graph._attributes(n).get("axis") == 1]


def test_the_command_says_in_one_line_what_is_wrong_with_each_file_and_rewrites_the_rest(mask_graph, tmp_path, capsys):
    # a mistyped path, a folder, an empty file or one that is no net was a traceback, and the files
    # after it were not rewritten
    good = tmp_path / "cardmask.onnx"
    onnx.save(mask_graph, str(good))
    (tmp_path / "empty.onnx").write_bytes(b"")
    (tmp_path / "text.onnx").write_text("not a net\n" * 20)
    bad = [tmp_path / "missing.onnx", tmp_path, tmp_path / "empty.onnx", tmp_path / "text.onnx"]
    assert graph.main([str(p) for p in bad] + [str(good)]) == 2
    captured = capsys.readouterr()
    said = captured.err.splitlines()
    assert said[:2] == [f"python -m models.graph: {tmp_path / 'missing.onnx'}: no such file",
                        f"python -m models.graph: {tmp_path}: not a file"]
    assert said[2] == f"python -m models.graph: {tmp_path / 'empty.onnx'}: a graph with no input: is it an ONNX model?"
    assert said[3].startswith(f"python -m models.graph: {tmp_path / 'text.onnx'}: not an ONNX model")
    assert len(said) == 4 and "Traceback" not in captured.err
    assert f"{good}: input scaling 1, upsampling 3" in captured.out
