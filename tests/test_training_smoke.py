"""The training code runs end to end on a handful of demo-deck samples (seconds; skipped without torch)."""
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")

from datasets.art import load_art  # noqa: E402
from datasets.crops import crops_from_scene  # noqa: E402
from datasets.scenes import clean_config, render_scene  # noqa: E402
from models.data import PATCH_H, PATCH_W, crop_batch, mask_sample  # noqa: E402
from models.labels import CLASSES, MASK_STRIDE  # noqa: E402
from models.nets import CropNet, MaskNet  # noqa: E402
from models.train import export_crops, export_mask, fit_temperature  # noqa: E402


def test_a_few_steps_of_both_nets_then_export_to_onnx(tmp_path):
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    art = load_art("demo", height=200)
    image, labels = render_scene(rng, art, clean_config(min_cards=3, max_cards=4, size=(640, 360)))
    x, t, w = zip(*(mask_sample(rng, image, labels) for _ in range(2)))
    x, t, w = np.stack(x), np.stack(t), np.stack(w)
    assert x.shape == (2, 3, PATCH_H, PATCH_W) and t.shape == (2, 2, PATCH_H // MASK_STRIDE, PATCH_W // MASK_STRIDE)
    assert t[:, 0].max() > 0.5  # the cards' interiors are there

    mask_net = MaskNet()
    opt = torch.optim.AdamW(mask_net.parameters(), lr=1e-3)
    for _ in range(2):
        loss = torch.nn.functional.binary_cross_entropy_with_logits(mask_net(torch.from_numpy(x).float()),
                                                                    torch.from_numpy(t))
        opt.zero_grad()
        loss.backward()
        opt.step()

    made = crops_from_scene(rng, image, labels)
    crops = np.stack([c for c, _ in made])
    xb, yb, ob = crop_batch(rng, crops, [label for _, label in made])
    crop_net = CropNet()
    face_logits, orient_logits = crop_net(torch.from_numpy(xb).float())
    assert face_logits.shape == (len(made), len(CLASSES)) and orient_logits.shape == (len(made), 2)
    (face_logits.logsumexp(1).mean() + orient_logits.mean()).backward()

    export_mask(mask_net, tmp_path)
    export_crops(crop_net, tmp_path)
    masks = ort.InferenceSession(str(tmp_path / "cardmask.onnx")).run(None, {"image": x[:1].astype(np.float32)})[0]
    assert masks.shape == (1, 2, PATCH_H // MASK_STRIDE, PATCH_W // MASK_STRIDE)
    assert 0.0 <= masks.min() and masks.max() <= 1.0
    faces, turns = ort.InferenceSession(str(tmp_path / "cardface.onnx")).run(None, {"crops": xb.astype(np.float32)})
    assert faces.shape == (len(made), len(CLASSES)) and turns.shape == (len(made), 2)


def test_temperature_scaling_recovers_a_known_temperature():
    rng = np.random.default_rng(1)
    true_logits = rng.normal(0, 3, size=(4000, 5))
    p = np.exp(true_logits) / np.exp(true_logits).sum(1, keepdims=True)
    labels = np.array([rng.choice(5, p=row) for row in p])
    assert abs(fit_temperature(true_logits * 2.0, labels) - 2.0) < 0.25


def _tiny_scene_shard(folder, seed):
    """One demo-deck scene of 3 or 4 cards, four mask samples of it written as a shard in
    ``folder``/scenes: (rng, image, labels, the samples' pixels)."""
    rng = np.random.default_rng(seed)
    art = load_art("demo", height=200)
    image, labels = render_scene(rng, art, clean_config(min_cards=3, max_cards=4, size=(640, 360)))
    x, t, w = (np.stack(a) for a in zip(*(mask_sample(rng, image, labels) for _ in range(4))))
    (folder / "scenes").mkdir()
    np.savez(folder / "scenes" / "scenes-001-0.npz", x=x, t=(t * 255).astype(np.uint8), w=w)
    return rng, image, labels, x


def test_training_loops_run_on_tiny_shards_and_export(tmp_path):
    """train_mask and train_crops, for a few seconds each on one tiny shard: they train, checkpoint
    and export ONNX models that load."""
    from models.train import train_crops, train_mask
    rng, image, labels, x = _tiny_scene_shard(tmp_path, seed=1)
    made = crops_from_scene(rng, image, labels) * 4
    (tmp_path / "crops").mkdir()
    np.savez(tmp_path / "crops" / "crops-001-0.npz", x=np.stack([c for c, _ in made]),
             y=np.array([CLASSES.index(lab["face"]) for _, lab in made]),
             o=np.array([lab["orientation"] for _, lab in made]))
    out = tmp_path / "out"
    out.mkdir()
    train_mask(0.04, tmp_path, out, threads=1, batch=2, patch=(PATCH_H, PATCH_W), rim_weight=2.0,
               centres=False)
    train_crops(0.04, tmp_path, out, threads=1, batch=4)
    assert (tmp_path / "mask.pt").is_file() and (tmp_path / "crops.pt").is_file()
    for name in ("cardmask.onnx", "cardface.onnx"):
        ort.InferenceSession(str(out / name))
    maps = ort.InferenceSession(str(out / "cardmask.onnx")).run(None, {"image": x[:1].astype(np.float32)})[0]
    assert maps.shape[1] == 2  # without the centre map, when told


def test_one_command_runs_every_step_in_order(tmp_path, monkeypatch):
    # the detector crops come from nets that are trained and calibrated, and are trained on after
    import models.train as train
    calls = []
    for name in ("write_shards", "train_mask", "train_crops", "calibrate", "write_detector_crops"):
        monkeypatch.setattr(train, name, lambda *a, _name=name, **k: calls.append(_name))
    shared = tmp_path / "shared"  # (the steps that render ask for a shared folder before any work)
    shared.mkdir()
    (shared / "cards.csv").write_text("id\n")
    where = ["--work", str(tmp_path / "work"), "--out", str(tmp_path / "out"), "--shared", str(shared)]
    assert train.main(where) == 0
    assert calls == ["write_shards", "train_mask", "train_crops", "calibrate", "write_detector_crops",
                     "train_crops", "calibrate"]
    calls.clear()
    assert train.main(["--step", "detector-crops"] + where) == 0
    assert calls == ["write_detector_crops"]


def test_the_steps_that_render_say_when_there_is_no_shared_folder(tmp_path, monkeypatch, capsys):
    import datasets.shared
    import models.train as train
    monkeypatch.setattr(datasets.shared, "shared_dir", lambda override=None: None)
    with pytest.raises(SystemExit) as stop:
        train.main(["--step", "data", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "o")])
    assert stop.value.code == 2 and not (tmp_path / "w").exists()
    assert "no shared data folder (../shared beside the project, HANADEALER_SHARED or --shared)" in capsys.readouterr().err


def test_a_style_shift_outside_0_to_1_is_refused(tmp_path, capsys):
    import models.train as train
    with pytest.raises(SystemExit) as stop:
        train.main(["--step", "crops", "--style-shift", "1.5", "--work", str(tmp_path), "--out", str(tmp_path)])
    assert stop.value.code == 2
    assert "--style-shift is a share of the crops, from 0 to 1 (got 1.5)" in capsys.readouterr().err


def test_no_validation_scenes_is_refused_before_anything_is_written(tmp_path, capsys):
    import models.train as train
    with pytest.raises(SystemExit) as stop:
        train.main(["--step", "calibrate", "--threshold-only", "--val-scenes", "0", "--work", str(tmp_path / "w"),
                    "--out", str(tmp_path / "out")])
    assert stop.value.code == 2 and not (tmp_path / "out").exists()
    assert "--val-scenes is a number of scenes, 1 or more (got 0)" in capsys.readouterr().err


@pytest.mark.parametrize("present, threshold_only, missing", [
    ((), False, "cardmask.onnx, cardface.onnx"),
    (("cardmask.onnx",), False, "cardface.onnx"),
    (("cardmask.onnx", "cardface.onnx"), True, "vision.json"),
])
def test_calibrating_a_folder_without_its_models_is_refused_before_any_work(tmp_path, monkeypatch, capsys,
                                                                            present, threshold_only, missing):
    # a missing vision.json came out as a traceback after the validation scenes were rendered
    import models.train as train
    monkeypatch.setattr(train, "calibrate", lambda *a, **k: pytest.fail("calibrated without its models"))
    out = tmp_path / "out"
    out.mkdir()
    for name in present:
        (out / name).write_bytes(b"")
    with pytest.raises(SystemExit) as stop:
        train.main(["--step", "calibrate", "--work", str(tmp_path / "w"), "--out", str(out)]
                   + (["--threshold-only"] if threshold_only else []))
    assert stop.value.code == 2 and not (tmp_path / "w").exists()
    assert f"--step calibrate: no {missing} in {out} (it calibrates the models trained there" in capsys.readouterr().err


def test_calibration_uses_the_shipped_input_size_unless_told(tmp_path, monkeypatch):
    # retraining with the one command must give settings for the mask net input the models ship with
    import json
    import models.train as train
    from vision.detector import MODELS_DIR
    sizes = []
    monkeypatch.setattr(train, "calibrate", lambda *a, **k: sizes.append(k["input_long_side"]))
    for name in ("cardmask.onnx", "cardface.onnx"):  # (the nets it calibrates: stubbed out here)
        (tmp_path / name).write_bytes(b"")
    args = ["--step", "calibrate", "--work", str(tmp_path), "--out", str(tmp_path)]
    assert train.main(args) == 0 and train.main(args + ["--input-long-side", "320"]) == 0
    shipped = json.loads((MODELS_DIR / "vision.json").read_text())["input_long_side"]
    assert sizes == [shipped, 320]


def test_calibration_writes_when_a_crop_is_read_turned_too(tmp_path, monkeypatch):
    # the run time reads a crop turned only when its upright reading is unsure: a retrained set of
    # models must carry that level, and an answer's confidence is chosen on with it in place
    import json
    import models.train as train
    (tmp_path / "crops").mkdir()
    np.savez(tmp_path / "crops" / "crops-999-0000.npz", x=np.zeros((2, 96, 64, 3), np.uint8),
             y=np.zeros(2, np.int64), o=np.zeros(2, np.int64))
    monkeypatch.setattr(train, "crop_temperature", lambda *a: (1.0, 1.0))
    levels = []

    def outcomes(models, *a, **k):
        levels.append(json.loads((models / "vision.json").read_text())["turned_view_below"])
        return [(0.999, True)] * 10, [1.0]
    monkeypatch.setattr(train, "collect_scene_outcomes", outcomes)
    settings = train.calibrate(tmp_path, tmp_path, 10)
    assert levels and set(levels) == {train.TURNED_VIEW_BELOW} and 0.99 < train.TURNED_VIEW_BELOW < 1.0
    assert json.loads((tmp_path / "vision.json").read_text())["turned_view_below"] == train.TURNED_VIEW_BELOW
    assert settings["turned_view_below"] == train.TURNED_VIEW_BELOW


def test_a_training_that_makes_no_step_exports_nothing(tmp_path):
    # shards holding less than a batch: an untrained crop net was exported over the one in --out (models/
    # by default), and the mask net's export failed with a KeyError, each after the whole time given
    from models.train import train_crops
    rng, image, labels, x = _tiny_scene_shard(tmp_path, seed=1)
    made = crops_from_scene(rng, image, labels)[:3]
    (tmp_path / "crops").mkdir()
    np.savez(tmp_path / "crops" / "crops-001-0.npz", x=np.stack([c for c, _ in made]),
             y=np.array([CLASSES.index(lab["face"]) for _, lab in made]),
             o=np.array([lab["orientation"] for _, lab in made]))
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(SystemExit, match="crop net: no training step in 0.01 minutes .*nothing exported"):
        train_crops(0.01, tmp_path, out, threads=1, batch=8)
    assert not (out / "cardface.onnx").exists()


def test_a_rim_weight_that_is_no_finite_number_is_refused(capsys):
    import models.train as train
    with pytest.raises(SystemExit):
        train.main(["--step", "mask", "--mask-rim-weight", "nan"])
    assert "argument --mask-rim-weight: nan is out of range" in capsys.readouterr().err


def test_a_calibration_stopped_part_way_puts_back_the_settings_it_found(tmp_path, monkeypatch):
    # its placeholder threshold (0.9, written before the scenes were run) was left for the run time
    import models.train as train
    (tmp_path / "crops").mkdir()
    np.savez(tmp_path / "crops" / "crops-999-0000.npz", x=np.zeros((2, 96, 64, 3), np.uint8),
             y=np.zeros(2, np.int64), o=np.zeros(2, np.int64))
    (tmp_path / "vision.json").write_text('{"threshold": 0.9942}')
    monkeypatch.setattr(train, "crop_temperature", lambda *a: (1.0, 1.0))

    def stopped(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(train, "collect_scene_outcomes", stopped)
    with pytest.raises(KeyboardInterrupt):
        train.calibrate(tmp_path, tmp_path, 10)
    assert (tmp_path / "vision.json").read_text() == '{"threshold": 0.9942}'
    (tmp_path / "vision.json").unlink()
    with pytest.raises(KeyboardInterrupt):
        train.calibrate(tmp_path, tmp_path, 10)
    assert not (tmp_path / "vision.json").exists()  # (none before: none left, said as missing at run time)


@pytest.mark.parametrize("threshold_only", [False, True])
def test_calibration_re_fits_the_quads_when_there_is_a_quad_net(tmp_path, monkeypatch, threshold_only):
    # the quad net is trained after the other nets (python -m models.train_quad), and the threshold
    # is then chosen again: its stages are taken on there, and the scenes are run with them on
    import json
    import models.train as train
    (tmp_path / "crops").mkdir()
    np.savez(tmp_path / "crops" / "crops-999-0000.npz", x=np.zeros((2, 96, 64, 3), np.uint8),
             y=np.zeros(2, np.int64), o=np.zeros(2, np.int64))
    (tmp_path / "vision.json").write_text(json.dumps({"threshold": 0.9}))
    monkeypatch.setattr(train, "crop_temperature", lambda *a: (1.0, 1.0))
    seen = []

    def outcomes(models, *a, mask_only=False, **k):
        raw = json.loads((models / "vision.json").read_text())
        seen.append((mask_only, raw["refit_quads"], raw["edge_proposals"], raw["refine_unsure"]))
        return [(0.999, True)] * 10, [1.0]
    monkeypatch.setattr(train, "collect_scene_outcomes", outcomes)
    train.calibrate(tmp_path, tmp_path, 10, threshold_only=threshold_only)
    assert seen[-1] == (False, False, True, False)  # no quad net: the edge proposals, as before it
    (tmp_path / "cardquad.onnx").write_bytes(b"")
    seen.clear()
    settings = train.calibrate(tmp_path, tmp_path, 10, threshold_only=threshold_only)
    assert seen[-1] == (False, True, False, True)
    assert settings["refit_quads"] and not settings["edge_proposals"] and settings["refine_unsure"]


def test_the_rim_of_the_cards_is_the_card_outside_its_interior():
    from models.data import mask_targets
    from models.train import rim_of_cards
    h = 200.0
    w = h * 54 / 87
    quads = [[[100, 50], [100 + w, 50], [100 + w, 50 + h], [100, 50 + h]],  # two cards touching
             [[100 + w, 50], [100 + 2 * w, 50], [100 + 2 * w, 50 + h], [100 + w, 50 + h]]]
    targets, _ = mask_targets({"cards": [{"quad": q, "visible": 1.0} for q in quads]}, 1.0, 1.0, 200, 200)
    rim = rim_of_cards(torch.from_numpy(targets[None])).numpy()[0]
    assert rim.sum() > 0
    assert rim[targets[0] >= 0.5].sum() == 0 and rim[targets[1] <= 0.5].sum() == 0
    # where the cards touch: x = 224 in the frame, 112 in the map (stride 2)
    assert rim[75, int((100 + w) / 2)] == 1.0


def test_the_rim_weight_reaches_the_mask_trainer(tmp_path, monkeypatch, capsys):
    import models.train as train
    seen = []
    monkeypatch.setattr(train, "train_mask", lambda *a, **k: seen.append(k["rim_weight"]))
    args = ["--step", "mask", "--work", str(tmp_path), "--out", str(tmp_path)]
    assert train.main(args) == 0 and train.main(args + ["--mask-rim-weight", "2"]) == 0
    assert seen == [0.0, 2.0]
    with pytest.raises(SystemExit) as stop:
        train.main(args + ["--mask-rim-weight", "-1"])
    assert stop.value.code == 2 and seen == [0.0, 2.0]
    assert "argument --mask-rim-weight: -1 is out of range: a number 0 or more" in capsys.readouterr().err


def _two_touching_cards_targets():
    from models.data import mask_targets
    h = 200.0
    w = h * 54 / 87
    quads = [[[100, 50], [100 + w, 50], [100 + w, 50 + h], [100, 50 + h]],
             [[100 + w, 50], [100 + 2 * w, 50], [100 + 2 * w, 50 + h], [100 + w, 50 + h]]]
    targets, _ = mask_targets({"cards": [{"quad": q, "visible": 1.0} for q in quads]}, 1.0, 1.0, 200, 200)
    return targets, w


def test_the_centre_map_peaks_in_each_interior_and_falls_to_nothing_between_touching_cards():
    from models.data import centre_targets
    targets, w = _two_touching_cards_targets()
    centre = centre_targets(np.round(targets[0] * 255).astype(np.uint8))
    assert centre.shape == targets[0].shape and centre.dtype == np.float32
    assert centre[targets[0] < 0.5].max() == 0.0  # nothing outside the interiors
    # the middles of the two cards (map pixels: the frame at stride 2) are the peaks of their interiors
    middles = [(75, int((100 + w / 2) / 2)), (75, int((100 + 1.5 * w) / 2))]
    for y, x in middles:
        assert centre[y, x] > 0.9
    # across the row, at the cards' middle height: high, down to 0 where they touch, high again
    line = centre[75, middles[0][1]:middles[1][1] + 1]
    assert line.min() == 0.0 and line[0] > 0.9 and line[-1] > 0.9
    # a batch gives the same maps, one by one
    batch = centre_targets(np.stack([np.round(targets[0] * 255).astype(np.uint8)] * 2))
    assert np.array_equal(batch[1], centre)


def test_a_two_output_mask_net_grows_a_centre_channel_and_then_resumes_as_it_is(tmp_path):
    from models.nets import MaskNet
    from models.train import grow_mask_head
    old = MaskNet()
    opt = torch.optim.AdamW(old.parameters())
    torch.save({"model": old.state_dict(), "opt": opt.state_dict()}, tmp_path / "mask.pt")
    grown = MaskNet(outputs=3)
    grow_mask_head(grown, torch.optim.AdamW(grown.parameters()), tmp_path / "mask.pt")
    x = torch.rand(1, 3, 64, 96) * 255
    old.eval(), grown.eval()
    with torch.no_grad():
        a, b = old(x), grown(x)
    assert b.shape[1] == 3 and torch.allclose(a, b[:, :2]) and torch.allclose(b[:, 2], b[:, 0])
    # its own three-output checkpoint is taken as it is
    opt = torch.optim.AdamW(grown.parameters())
    torch.save({"model": grown.state_dict(), "opt": opt.state_dict()}, tmp_path / "mask.pt")
    again = MaskNet(outputs=3)
    grow_mask_head(again, torch.optim.AdamW(again.parameters()), tmp_path / "mask.pt")
    assert torch.equal(again.head.weight, grown.head.weight)
    # a head of another size is refused by name
    torch.save({"model": MaskNet(outputs=4).state_dict(), "opt": opt.state_dict()}, tmp_path / "mask.pt")
    with pytest.raises(ValueError, match="head of 4 outputs cannot be grown to 3"):
        grow_mask_head(MaskNet(outputs=3), torch.optim.AdamW(again.parameters()), tmp_path / "mask.pt")


def test_the_mask_trainer_learns_and_exports_the_centre_map(tmp_path):
    from models.train import train_mask
    _, _, _, x = _tiny_scene_shard(tmp_path, seed=2)
    out = tmp_path / "out"
    out.mkdir()
    # started from a two-output net's checkpoint, as the shipped one is
    net = MaskNet()
    torch.save({"model": net.state_dict(), "opt": torch.optim.AdamW(net.parameters()).state_dict()},
               tmp_path / "mask.pt")
    train_mask(0.04, tmp_path, out, threads=1, batch=2, patch=(PATCH_H, PATCH_W), centres=True)
    maps = ort.InferenceSession(str(out / "cardmask.onnx")).run(None, {"image": x[:1].astype(np.float32)})[0]
    assert maps.shape == (1, 3, PATCH_H // MASK_STRIDE, PATCH_W // MASK_STRIDE)


def test_the_centre_option_reaches_the_mask_trainer(tmp_path, monkeypatch):
    import models.train as train
    seen = []
    monkeypatch.setattr(train, "train_mask", lambda *a, **k: seen.append(k["centres"]))
    args = ["--step", "mask", "--work", str(tmp_path), "--out", str(tmp_path)]
    assert train.main(args) == 0 and train.main(args + ["--no-mask-centres"]) == 0
    assert seen == [True, False]  # as the shipped mask net, unless told


def _scene_runs_answering(monkeypatch, by_threshold):
    """Fake the calibration's runs over the validation scenes: run at a threshold, they give
    ``by_threshold[threshold]``. Returns the list of thresholds run at, filled as they run."""
    import models.train as train
    runs = []

    def outcomes(models, scenes, seed, shared=None, mask_only=False, threshold=0.0):
        runs.append(threshold)
        return by_threshold[threshold], []
    monkeypatch.setattr(train, "collect_scene_outcomes", outcomes)
    return runs


def test_the_threshold_is_chosen_on_scenes_run_at_the_threshold_chosen(tmp_path, monkeypatch):
    # the detector uses its threshold itself (which quads it cuts and extends, which small ones it
    # keeps), so the answers the threshold is chosen on must be those it gives with that threshold
    import json
    import models.train as train
    (tmp_path / "vision.json").write_text(json.dumps({"threshold": 0.9}))
    by_threshold = {0.9: [(0.99, True), (0.98, True), (0.97, False), (0.5, True)],
                    0.98: [(0.99, True), (0.985, True), (0.97, False)],
                    0.985: [(0.99, True), (0.985, True), (0.97, False)]}
    runs = _scene_runs_answering(monkeypatch, by_threshold)
    settings = train._calibrate_threshold(tmp_path, 10, None, 1 / 3000)
    assert runs == [0.9, 0.98, 0.985]
    assert settings["threshold"] == 0.985 and settings["validation"]["threshold_run_at"] == 0.985
    assert json.loads((tmp_path / "vision.json").read_text())["threshold"] == 0.985
    # a choice that never holds stops after three runs, saying which threshold the last one ran at
    runs.clear()
    (tmp_path / "vision.json").write_text(json.dumps({"threshold": 0.9}))
    monkeypatch.setattr(train, "collect_scene_outcomes",
                        lambda m, s, seed, shared=None, mask_only=False, threshold=0.0:
                        (runs.append(threshold) or [(0.99, True), (threshold + 0.001, True), (threshold, False)], []))
    settings = train._calibrate_threshold(tmp_path, 10, None, 1 / 3000)
    assert len(runs) == 3 and settings["validation"]["threshold_run_at"] == runs[-1]
    assert settings["threshold"] == pytest.approx(runs[-1] + 0.001)


def test_a_threshold_choice_that_swings_settles_on_the_lowest_one_its_own_run_holds(tmp_path, monkeypatch):
    # run at 0.9 the detector's answers ask for 0.93, run at 0.93 for 0.9 again: 0.9 is not held by
    # its own answers (one wrong at 0.92 would be confident), 0.93 is
    import json
    import models.train as train
    (tmp_path / "vision.json").write_text(json.dumps({"threshold": 0.95}))
    by_threshold = {0.95: [(0.99, True), (0.9, True), (0.5, False)],
                    0.9: [(0.99, True), (0.93, True), (0.92, False)],
                    0.93: [(0.99, True), (0.9, True), (0.5, False)]}
    runs = _scene_runs_answering(monkeypatch, by_threshold)
    settings = train._calibrate_threshold(tmp_path, 10, None, 1 / 3000, passes=5)
    assert runs == [0.95, 0.9, 0.93]  # no run again at a threshold already run at
    assert settings["threshold"] == 0.93 and settings["validation"]["threshold_run_at"] == 0.93
    # the figures are those of the run at 0.93, at 0.93
    assert settings["validation"]["threshold_wrong_confident"] == 0
    assert settings["validation"]["threshold_uncertain_share"] == pytest.approx(2 / 3, abs=1e-4)
    assert json.loads((tmp_path / "vision.json").read_text())["threshold"] == 0.93


def test_the_quad_net_trains_on_a_few_samples_and_exports_what_the_detector_runs(tmp_path):
    from models.train_quad import perturbed_quad, quad_sample, train
    from vision.detector import QuadStage, _session
    rng = np.random.default_rng(0)
    image, labels = render_scene(rng, load_art("demo", height=200), clean_config(min_cards=3, max_cards=4, size=(640, 360)))
    samples = [quad_sample(image, perturbed_quad(rng, c["quad"]), c["quad"]) for c in labels["cards"] for _ in range(4)]
    data = {"crops": np.stack([c for c, _ in samples]), "targets": np.stack([t.ravel() for _, t in samples])}
    train(data, 0.03, tmp_path, threads=1, batch=4)
    quads = [np.asarray(c["quad"], np.float64) for c in labels["cards"]]
    refitted = QuadStage(_session(tmp_path / "cardquad.onnx", 1)).run(image, quads)
    assert len(refitted) == len(quads) and all(q.shape == (4, 2) and np.isfinite(q).all() for q in refitted)


def test_the_quad_net_trains_on_from_its_exported_file(tmp_path):
    # no step taken: the net filled from the file exports the function it was read from
    from models.train_quad import perturbed_quad, quad_sample, train
    rng = np.random.default_rng(1)
    image, labels = render_scene(rng, load_art("demo", height=200), clean_config(min_cards=3, max_cards=4, size=(640, 360)))
    samples = [quad_sample(image, perturbed_quad(rng, c["quad"]), c["quad"]) for c in labels["cards"] for _ in range(4)]
    data = {"crops": np.stack([c for c, _ in samples]), "targets": np.stack([t.ravel() for _, t in samples])}
    train(data, 0.02, tmp_path / "first", threads=1, batch=4)
    train(data, 0.0, tmp_path / "again", threads=1, batch=4, init=tmp_path / "first" / "cardquad.onnx")
    x = data["crops"].transpose(0, 3, 1, 2).astype(np.float32)
    first, again = (ort.InferenceSession(str(tmp_path / d / "cardquad.onnx")).run(None, {"crops": x})[0]
                    for d in ("first", "again"))
    assert np.abs(first - again).max() < 1e-4
    # and it trains on from there with its batch norms kept as they were
    train(data, 0.02, tmp_path / "on", threads=1, batch=4, init=tmp_path / "first" / "cardquad.onnx")
    assert (tmp_path / "on" / "cardquad.onnx").is_file()


def test_the_quad_data_step_cuts_the_quads_of_the_detector_asked_for(monkeypatch):
    import models.train as model_train
    import vision.detector
    from models import train_quad
    made = []

    class RecordingDetector:
        def __init__(self, **kwargs):
            made.append(kwargs)

        def detect(self, image):
            return []
    monkeypatch.setattr(vision.detector, "CardDetector", RecordingDetector)
    monkeypatch.setattr(model_train, "load_training_art", lambda shared=None: [load_art("demo", height=200)])
    monkeypatch.setattr(model_train, "random_scene_config",
                        lambda rng, shared=None: clean_config(min_cards=2, max_cards=3, size=(480, 270)))
    data = train_quad.make_samples(5, 1, quads="mask")
    assert made[-1]["proposals"] is False and made[-1]["refit"] is False
    # no detector quads here: every sample is a card's quad moved off (two a card in view)
    assert len(data["crops"]) >= 4 and not data["from_detector"].any()
    train_quad.make_samples(5, 1, quads="proposals")
    assert made[-1]["proposals"] is True
    with pytest.raises(ValueError, match="unknown quad source 'edges'"):
        train_quad.make_samples(5, 1, quads="edges")


def test_the_quad_trainer_refuses_a_missing_net_to_train_on_before_making_samples(tmp_path, monkeypatch, capsys):
    from models import train_quad
    monkeypatch.setattr(train_quad, "load_or_make", lambda *a, **k: pytest.fail("samples made"))
    with pytest.raises(SystemExit) as stopped:
        train_quad.main(["--init", str(tmp_path / "missing.onnx")])
    assert stopped.value.code == 2
    assert "--init: no exported quad net at" in capsys.readouterr().err


@pytest.mark.parametrize("trainer", ["train_quad", "train_western", "train"])
def test_each_trainer_refuses_an_out_folder_it_cannot_write_before_any_work(tmp_path, monkeypatch, capsys, trainer):
    # the quad and western trainers wrote --out first at the export: the net trained for half an hour
    # was lost with a traceback; models.train gave a traceback for a file given as its folder
    import importlib
    module = importlib.import_module(f"models.{trainer}")
    for name in ("load_or_make", "_run_steps"):
        if hasattr(module, name):
            monkeypatch.setattr(module, name, lambda *a, **k: pytest.fail("work begun"))
    a_file = tmp_path / "net.jpg"
    a_file.write_bytes(b"x")
    args = {"train": ["--step", "crops", "--work", str(tmp_path / "work")]}.get(trainer, [])
    with pytest.raises(SystemExit) as stopped:
        module.main(args + ["--out", str(a_file)])
    assert stopped.value.code == 2
    assert f"--out {a_file} exists and is not a folder" in capsys.readouterr().err


def test_a_folder_that_cannot_be_written_is_said_before_the_work(tmp_path, monkeypatch):
    import tempfile

    from hanadealer.args import writable_dir

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(tempfile, "NamedTemporaryFile", refused)  # (root may write a folder its mode forbids)
    with pytest.raises(ValueError, match=r"--out .* is not writable: Permission denied"):
        writable_dir(tmp_path / "out", "--out")
    monkeypatch.undo()
    assert writable_dir(tmp_path / "out", "--out") == tmp_path / "out" and list((tmp_path / "out").iterdir()) == []
    with pytest.raises(ValueError, match="names no folder"):
        writable_dir(" ", "--work")


def test_crop_batches_made_by_worker_processes_feed_the_trainer(tmp_path):
    """--crop-workers: the batches come from worker processes, from the training shards only (never
    the validation seed's), as crop_batch makes them, and stop at the time budget."""
    import time

    from models.train import _crop_batches_from_workers, train_crops
    rng = np.random.default_rng(3)
    art = load_art("demo", height=200)
    image, labels = render_scene(rng, art, clean_config(min_cards=3, max_cards=4, size=(640, 360)))
    made = crops_from_scene(rng, image, labels) * 3
    (tmp_path / "crops").mkdir()
    x = np.stack([c for c, _ in made])
    faces = np.array([CLASSES.index(lab["face"]) for _, lab in made])
    orient = np.array([lab["orientation"] for _, lab in made])
    np.savez(tmp_path / "crops" / "crops-001-0.npz", x=x, y=faces, o=orient)
    # the validation shard: every crop in it names a face no crop of the training shard names
    other = next(i for i in range(len(CLASSES)) if i not in faces)
    np.savez(tmp_path / "crops" / "crops-999-0.npz", x=x, y=np.full(len(x), other), o=np.zeros(len(x), int))
    start = time.time()
    seen = []
    # read to the end of a short budget (broken off early, the loader was dropped with its workers
    # running, and they were killed noisily)
    # (a budget that leaves room for the workers to start on a busy machine: at 7 s, with two other
    # processes on two cores, none had started by its end)
    for xb, yb, ob, frac in _crop_batches_from_workers(tmp_path / "crops", 4, 0.5, 2, start, 0.25):
        assert tuple(xb.shape) == (4, 3, 96, 64) and xb.dtype == torch.uint8 and 0.0 <= frac <= 1.0
        seen.extend(yb.tolist())
    assert time.time() - start < 0.25 * 60 + 10  # the workers stop at the budget
    assert len(seen) >= 40 and other not in seen and set(seen) <= set(faces.tolist())
    start = time.time()
    assert list(_crop_batches_from_workers(tmp_path / "crops", 4, 0.5, 2, start - 120, 1.0)) == []

    out = tmp_path / "out"
    out.mkdir()
    # (time for the workers to start on a busy machine: a training that makes no step exports nothing)
    train_crops(0.25, tmp_path, out, threads=1, batch=4, workers=2)
    assert (tmp_path / "crops.pt").is_file()
    ort.InferenceSession(str(out / "cardface.onnx"))


def test_mask_net_trains_on_batches_cut_by_worker_processes(tmp_path, capsys):
    """The GPU path (``--mask-workers``): spawned workers cut the batches; the net trains with its
    centre map, checkpoints and exports three maps."""
    from models.train import train_mask
    _, _, _, x = _tiny_scene_shard(tmp_path, seed=3)
    out = tmp_path / "out"
    out.mkdir()
    train_mask(0.15, tmp_path, out, threads=1, batch=2, workers=1)
    steps = re.search(r"mask net done after (\d+) steps", capsys.readouterr().out)
    assert steps and int(steps.group(1)) > 0
    assert (tmp_path / "mask.pt").is_file()
    maps = ort.InferenceSession(str(out / "cardmask.onnx")).run(None, {"image": x[:1].astype(np.float32)})[0]
    assert maps.shape[1] == 3


def test_a_mask_window_batch_cuts_patches_and_maps_alike_and_keeps_each_cards_own_centre():
    from models.data import centre_targets, mask_window_batch
    rng = np.random.default_rng(5)
    x = rng.integers(0, 256, (3, 3, 192, 320), dtype=np.uint8)
    t = np.zeros((3, 2, 96, 160), np.uint8)
    t[:, 0, 10:50, 20:90] = 255  # one interior, cut by most windows
    t[:, 1, 5:55, 15:95] = 255
    w = np.ones((3, 96, 160), np.uint8)
    xb, tb, wb = mask_window_batch(rng, x, t, w, np.array([2, 0]), (128, 224), centres=True)
    assert xb.dtype == np.uint8 and xb.shape == (2, 3, 128, 224)
    assert tb.shape == (2, 3, 64, 112) and wb.shape == (2, 64, 112)
    # find the window from the patch, and check the maps were cut at half its offset
    hits = [(oy, ox) for oy in range(0, 65, 2) for ox in range(0, 97, 2)
            if np.array_equal(x[2, :, oy:oy + 128, ox:ox + 224], xb[0])]
    assert len(hits) == 1
    oy, ox = hits[0]
    rows, cols = slice(oy // 2, oy // 2 + 64), slice(ox // 2, ox // 2 + 112)
    assert np.array_equal(tb[1, :2], t[0, :, rows, cols] / 255.0)
    assert np.array_equal(tb[0, 2], centre_targets(t[2, 0])[rows, cols])  # the whole card's centre map
    assert tb[0, 2].max() <= 1.0 and (tb[0, 2][tb[0, 0] == 0] == 0).all()
