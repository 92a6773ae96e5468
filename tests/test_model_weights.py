"""models.weights and the trainer's --from-exported / --device: training on from the exported nets."""
import warnings
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from models import weights  # noqa: E402
from models.labels import CLASSES  # noqa: E402
from models.nets import CropNet, MaskNet  # noqa: E402
from models.train import export_crops, export_mask  # noqa: E402

MODELS = Path(__file__).resolve().parent.parent / "models"


def _trained_looking(net):
    """``net`` with batch-norm statistics and affine parts that are not the fresh ones (so that
    folding them into the convolutions changes the weights), in eval mode."""
    torch.manual_seed(0)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.3, 0.3)
    return net.eval()


def _outputs(net, x):
    with torch.no_grad():
        y = net.eval()(torch.from_numpy(x))
    return [y] if isinstance(y, torch.Tensor) else list(y)


@pytest.mark.parametrize("rewritten", [True, False])
def test_a_mask_net_comes_back_from_its_export(tmp_path, rewritten):
    torch.manual_seed(1)
    net = _trained_looking(MaskNet(outputs=3))
    if rewritten:
        export_mask(net, tmp_path)  # exported as training does: rewritten by models.graph
        assert "Pad" in [n.op_type for n in onnx.load(str(tmp_path / "cardmask.onnx")).graph.node]
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # as the mask net was exported before models.graph: with its sigmoid, not rewritten
            torch.onnx.export(torch.nn.Sequential(net, torch.nn.Sigmoid()), torch.zeros(1, 3, 64, 96),
                              str(tmp_path / "cardmask.onnx"), dynamo=False, opset_version=20, input_names=["image"])
        assert "Pad" not in [n.op_type for n in onnx.load(str(tmp_path / "cardmask.onnx")).graph.node]
    back = weights.load_exported(MaskNet(outputs=3), tmp_path / "cardmask.onnx")
    x = np.random.default_rng(2).uniform(0, 255, (2, 3, 96, 160)).astype(np.float32)
    (before,), (after,) = _outputs(net, x), _outputs(back, x)
    np.testing.assert_allclose(after.numpy(), before.numpy(), rtol=0, atol=1e-4 * float(before.abs().max()))


def test_a_crop_net_comes_back_from_its_export(tmp_path):
    torch.manual_seed(3)
    net = _trained_looking(CropNet())
    export_crops(net, tmp_path)
    back = weights.load_exported(CropNet(), tmp_path / "cardface.onnx")
    x = np.random.default_rng(4).uniform(0, 255, (5, 3, 96, 64)).astype(np.float32)
    for before, after in zip(_outputs(net, x), _outputs(back, x)):
        np.testing.assert_allclose(after.numpy(), before.numpy(), rtol=0, atol=1e-4 * float(before.abs().max()))


def test_the_shipped_nets_come_back():
    # load_exported checks that the filled net computes what the file does
    weights.load_exported(MaskNet(outputs=3), MODELS / "cardmask.onnx")
    weights.load_exported(CropNet(), MODELS / "cardface.onnx")


def test_a_file_of_another_net_is_refused_by_name():
    with pytest.raises(weights.ExportedWeightsError, match="cardface.onnx has 18 convolution and linear layers, the MaskNet 27"):
        weights.load_exported(MaskNet(outputs=3), MODELS / "cardface.onnx")
    with pytest.raises(weights.ExportedWeightsError, match=r"a layer of shape \(3, 16, 1, 1\) where the MaskNet has \(2, 16, 1, 1\)"):
        weights.load_exported(MaskNet(outputs=2), MODELS / "cardmask.onnx")
    with pytest.raises(weights.ExportedWeightsError, match="no exported net at"):
        weights.load_exported(CropNet(), MODELS / "missing.onnx")


def test_weights_read_wrong_are_caught_by_the_output_check(monkeypatch):
    read = weights._exported_layers

    def one_weight_off(path):
        layers = read(path)
        w, b = layers[5]
        w = w.copy()
        w.flat[0] += 0.5
        layers[5] = (w, b)
        return layers

    monkeypatch.setattr(weights, "_exported_layers", one_weight_off)
    with pytest.raises(weights.ExportedWeightsError, match="computes something else"):
        weights.load_exported(CropNet(), MODELS / "cardface.onnx")


def _crop_shard(folder):
    from datasets.art import load_art
    from datasets.crops import crops_from_scene
    from datasets.scenes import clean_config, render_scene
    rng = np.random.default_rng(5)
    image, labels = render_scene(rng, load_art("demo", height=200), clean_config(min_cards=3, max_cards=4, size=(640, 360)))
    made = crops_from_scene(rng, image, labels) * 4
    (folder / "crops").mkdir()
    np.savez(folder / "crops" / "crops-001-0.npz", x=np.stack([c for c, _ in made]),
             y=np.array([CLASSES.index(lab["face"]) for _, lab in made]),
             o=np.array([lab["orientation"] for _, lab in made]))


def test_training_on_from_the_shipped_crop_net_keeps_its_batch_norms_frozen(tmp_path):
    from models.train import train_crops
    _crop_shard(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    train_crops(0.03, tmp_path, out, threads=1, batch=4, peak_lr=1e-4, exported=MODELS / "cardface.onnx")
    state = torch.load(tmp_path / "crops.pt", weights_only=False)
    assert state["frozen_norms"] is True
    # the batch norms still hold the identity statistics they were given, after the steps taken
    means = [v for k, v in state["model"].items() if k.endswith("running_mean")]
    variances = [v for k, v in state["model"].items() if k.endswith("running_var")]
    assert means and all(float(m.abs().max()) == 0.0 for m in means)
    assert all(torch.allclose(v, torch.full_like(v, 1 - 1e-5)) for v in variances)
    # trained on a little, at a low rate: it still reads crops as the shipped net does, mostly
    net = weights.load_exported(CropNet(), out / "cardface.onnx")
    shipped = weights.load_exported(CropNet(), MODELS / "cardface.onnx")
    x = np.random.default_rng(6).uniform(0, 255, (8, 3, 96, 64)).astype(np.float32)
    assert not torch.equal(_outputs(net, x)[0], _outputs(shipped, x)[0])
    # resumed from its checkpoint, it stays frozen (and the export is not read again)
    train_crops(0.01, tmp_path, out, threads=1, batch=4, peak_lr=1e-4, exported=tmp_path / "missing.onnx")
    assert torch.load(tmp_path / "crops.pt", weights_only=False)["frozen_norms"] is True


def test_the_device_is_the_gpu_only_where_torch_sees_one(monkeypatch):
    from models.train import resolve_device
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == "cpu" and resolve_device("cpu") == "cpu"
    with pytest.raises(ValueError, match="torch sees no CUDA device"):
        resolve_device("cuda")
    with pytest.raises(ValueError, match="auto, cpu or cuda"):
        resolve_device("tpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == "cuda"


def test_the_command_refuses_a_missing_export_and_an_absent_gpu_before_writing(tmp_path, capsys, monkeypatch):
    import models.train as train
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for args, message in ((["--from-exported", str(tmp_path / "nowhere")], "--from-exported: no exported net at"),
                          (["--device", "cuda"], "torch sees no CUDA device"),
                          (["--crop-batch", "0"], "--crop-batch are numbers of samples")):
        with pytest.raises(SystemExit) as stop:
            train.main(["--step", "crops", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "out"), *args])
        assert stop.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "w").exists() and not (tmp_path / "out").exists()


def test_the_command_hands_the_exported_nets_and_the_device_to_the_trainers(tmp_path, monkeypatch):
    import models.train as train
    calls = {}
    monkeypatch.setattr(train, "train_crops", lambda *a, **k: calls.setdefault("crops", k))
    monkeypatch.setattr(train, "train_mask", lambda *a, **k: calls.setdefault("mask", k))
    assert train.main(["--step", "mask", "--from-exported", "--device", "cpu", "--mask-batch", "64",
                       "--work", str(tmp_path / "w"), "--out", str(tmp_path / "out")]) == 0
    assert train.main(["--step", "crops", "--from-exported", "--work", str(tmp_path / "w"),
                       "--out", str(tmp_path / "out")]) == 0
    assert calls["mask"]["exported"] == MODELS / "cardmask.onnx" and calls["mask"]["batch"] == 64
    assert calls["mask"]["device"] == "cpu"
    assert calls["crops"]["exported"] == MODELS / "cardface.onnx" and calls["crops"]["batch"] == 96
    calls.clear()
    assert train.main(["--step", "crops", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "out")]) == 0
    assert calls["crops"]["exported"] is None


def test_a_wider_crop_net_starts_from_the_shipped_one_computing_the_same_and_its_new_channels_learn():
    torch.manual_seed(7)
    wide = weights.load_exported_widened(CropNet(late=160, maps=64), MODELS / "cardface.onnx")
    shipped = weights.load_exported(CropNet(), MODELS / "cardface.onnx")
    x = np.random.default_rng(8).uniform(0, 255, (6, 3, 96, 64)).astype(np.float32)
    for got, expected in zip(_outputs(wide, x), _outputs(shipped, x)):
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=0, atol=1e-4 * float(expected.abs().max()))
    # the heads do not read the new maps yet, but one step of training makes them
    assert float(wide.face.weight.detach().view(len(CLASSES), 64, 24)[:, 48:].abs().max()) == 0.0
    wide.train()
    weights.freeze_norms(wide)
    opt = torch.optim.SGD(wide.parameters(), lr=0.1)
    face, _ = wide(torch.from_numpy(x))
    torch.nn.functional.cross_entropy(face, torch.zeros(6, dtype=torch.long)).backward()
    opt.step()
    assert float(wide.face.weight.detach().view(len(CLASSES), 64, 24)[:, 48:].abs().max()) > 0.0


def test_a_crop_net_narrower_than_the_file_is_refused_by_name():
    with pytest.raises(weights.ExportedWeightsError, match="128 and 48 channels cannot be read into a narrower one"):
        weights.load_exported_widened(CropNet(late=96, maps=48), MODELS / "cardface.onnx")


def test_a_wider_crop_net_is_trained_on_from_the_shipped_one_and_its_checkpoint_kept_to_its_widths(tmp_path, capsys):
    import models.train as train
    _crop_shard(tmp_path)
    out = tmp_path / "out"
    common = ["--step", "crops", "--work", str(tmp_path), "--out", str(out), "--threads", "1", "--crop-batch", "4",
              "--crop-lr", "1e-4", "--device", "cpu"]
    assert train.main([*common, "--from-exported", "--crop-minutes", "0.03", "--crop-late-channels", "160",
                       "--crop-map-channels", "64"]) == 0
    net = weights.load_exported(CropNet(late=160, maps=64), out / "cardface.onnx")
    shipped = weights.load_exported(CropNet(), MODELS / "cardface.onnx")
    x = np.random.default_rng(9).uniform(0, 255, (8, 3, 96, 64)).astype(np.float32)
    trained, before = _outputs(net, x)[0], _outputs(shipped, x)[0]
    assert not torch.equal(trained, before)
    assert (trained.argmax(1) == before.argmax(1)).float().mean() >= 0.75  # trained on a little, from it
    # resumed at the shipped widths, the checkpoint of the wider net is refused, naming both
    assert train.main([*common, "--crop-minutes", "0.01"]) == 2
    said = capsys.readouterr().err
    assert "crops.pt holds a CropNet of another shape (features.5.pw.0.weight: (160, 96, 1, 1), this one " \
           "(128, 96, 1, 1)): train with the --crop-late-channels and --crop-map-channels it was trained with, " \
           "or --fresh" in said and "Traceback" not in said
    # the wider net exported is trained on from again, as it is or widened further (a wider file
    # was read as one of the shipped widths, and refused)
    again = tmp_path / "again"
    for late, maps in ((160, 64), (192, 64)):
        assert train.main([*common, "--fresh", "--from-exported", str(out), "--out", str(again), "--crop-minutes",
                           "0.01", "--crop-late-channels", str(late), "--crop-map-channels", str(maps)]) == 0, \
            capsys.readouterr().err
        assert weights.exported_crop_widths(again / "cardface.onnx") == (late, maps)
    # narrower than the file: said, no traceback
    assert train.main([*common, "--fresh", "--from-exported", str(out), "--crop-minutes", "0.01"]) == 2
    assert "a crop net of 160 and 64 channels cannot be read into a narrower one (128 and 48)" in capsys.readouterr().err
