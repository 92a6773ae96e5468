"""The demo deck, the scene generator, crops, splits and their commands."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealer.cards import card_ids
from datasets import art as art_mod
from datasets import deck
from datasets.crops import NONE, crop_classes, crops_from_scene, iter_crops
from datasets.export import label_classes
from datasets.scenes import SceneConfig, SceneError, clean_config, render_scene, scene_rng
from datasets.splits import HELD_OUT_ART, SPLITS, TRAIN_ART, split_scenes

KEYS = list(card_ids()) + list(deck.BACKS)


# ------------------------------------------------------------------------------------------- deck

def test_card_image_shape_frame_and_proportions():
    img = deck.render_card("pine-crane", 174)
    assert img.dtype == np.uint8 and img.shape == (174, 108, 3)
    assert abs(img.shape[1] / img.shape[0] - 54 / 87) < 0.01
    # The black frame runs round the edge; the middle is not black.
    edge = np.concatenate([img[1, :], img[-2, :], img[:, 1], img[:, -2]])
    assert edge.max() < 60
    assert img[40:130, 20:90].mean() > 100


def test_backs_are_plain_black_and_red():
    black, red = deck.render_card("back-black", 87), deck.render_card("back-red", 87)
    assert black[20:60, 15:40].mean() < 40
    b, g, r = red[20:60, 15:40].reshape(-1, 3).mean(0)
    assert r > 90 and r > 2 * g and r > 2 * b


def test_demo_deck_has_all_cards_and_48_pairwise_distinct_faces():
    d = deck.demo_deck(87)
    assert list(d) == KEYS
    faces = np.stack([d[c].astype(np.float32) for c in card_ids()])
    diff = np.abs(faces[:, None] - faces[None, :]).mean(axis=(2, 3, 4))
    np.fill_diagonal(diff, np.inf)
    i, j = np.unravel_index(np.argmin(diff), diff.shape)
    assert diff.min() > 1.0, f"{card_ids()[i]} and {card_ids()[j]} look the same"


def test_chaff_of_a_month_differ_less_than_months_do():
    d = deck.demo_deck(87)
    same = np.abs(d["pine-chaff-1"].astype(int) - d["pine-chaff-2"]).mean()
    other = np.abs(d["pine-chaff-1"].astype(int) - d["maple-chaff-1"]).mean()
    assert same < other


def test_unknown_card_and_bad_height_give_clear_errors():
    with pytest.raises(ValueError, match="pine-crane"):
        deck.render_card("pine-cran")
    with pytest.raises(ValueError, match="height"):
        deck.render_card("pine-crane", 3)


def test_render_card_returns_a_private_copy():
    a = deck.render_card("plum-warbler", 60)
    a[:] = 0
    assert deck.render_card("plum-warbler", 60).max() > 0


# -------------------------------------------------------------------------------------------- art

def test_demo_art_set_and_errors(tmp_path, monkeypatch):
    a = art_mod.load_art("demo", height=87)
    assert set(a) == set(KEYS) and a["pine-crane"].shape == (87, 54, 3)
    with pytest.raises(art_mod.ArtError, match="unknown art set 'nope'.*demo"):
        art_mod.load_art("nope")
    with pytest.raises(art_mod.ArtError, match="no shared data folder"):
        art_mod.load_art("grey-ink", shared=tmp_path / "missing")
    # A shared folder without the set, or with the set incomplete.
    (tmp_path / "cards.csv").write_text("id\n")
    with pytest.raises(art_mod.ArtError, match="'grey-ink' is missing"):
        art_mod.load_art("grey-ink", shared=tmp_path)
    (tmp_path / "cardart" / "grey-ink").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "cardart" / "grey-ink" / "pine-crane.png"), np.zeros((20, 12, 3), np.uint8))
    with pytest.raises(art_mod.ArtError, match="lacks 47 card"):
        art_mod.load_art("grey-ink", shared=tmp_path)


@pytest.mark.shared
def test_every_shared_set_loads_as_framed_cards(shared):
    for name in art_mod.SHARED_ART_SETS:
        a = art_mod.load_art(name, shared=shared, height=87)
        assert set(a) == set(KEYS), name
        for img in a.values():
            assert img.shape == (87, 54, 3)
    # An unframed set gets a black frame drawn round it.
    img = art_mod.load_art("pastel-unframed", shared=shared, height=87)["pine-crane"]
    assert np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]]).max() < 60


# ----------------------------------------------------------------------------------------- scenes

def _marked_art(height=120):
    """Each card a flat colour of its own, its own top-left quarter a second colour: labels can be
    checked against pixels exactly."""
    g = np.random.default_rng(0)
    colours, art, taken = {}, {}, []
    w = deck.card_width(height)
    for k in KEYS:
        while True:
            c = tuple(int(v) for v in g.integers(30, 226, 3))
            mark = tuple(255 - v for v in c)
            if all(sum(abs(a - b) for a, b in zip(x, o)) > 40 for o in taken for x in (c, mark)):
                break
        taken += [c, mark]
        colours[k] = (c, mark)
        img = np.empty((height, w, 3), np.uint8)
        img[:] = c
        img[: height // 3, : w // 3] = mark
        art[k] = img
    return art, colours


def _angle(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.arccos(np.clip(a @ b / np.linalg.norm(a) / np.linalg.norm(b), -1, 1)))


def _shows(img, colour):
    """Pixels that show ``colour`` under a shade from 0.7 to 1.25."""
    c = np.asarray(colour, np.float32)
    px = img.astype(np.float32)
    s = (px @ c) / (c @ c)
    return (np.linalg.norm(px - s[..., None] * c, axis=2) < 14) & (s > 0.7) & (s < 1.25)


def _mask(quad, w, h):
    m = np.zeros((h, w), np.uint8)
    cv2.fillPoly(m, [np.round(np.asarray(quad) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    return m.astype(bool)


GEOMETRY = frozenset({"perspective", "rotation", "lens", "touching", "overlap", "outside"})


@pytest.mark.parametrize("layout, always", [("rows", ()), ("otoroku", ()), ("scatter", ()), ("pile", ()),
                                            ("scatter", ("lens", "outside", "perspective"))])
def test_labels_match_the_pixels(layout, always):
    art, colours = _marked_art()
    cfg = SceneConfig(size=(480, 270), layout=layout, conditions=GEOMETRY, always=frozenset(always), face_down=0.0)
    checked = 0
    for i in range(6):
        img, labels = render_scene(scene_rng(11, i), art, cfg)
        h, w = img.shape[:2]
        for c in labels["cards"]:
            if not c["face_up"]:
                continue
            colour, mark = colours[c["card"]]
            inside = _mask(c["quad"], w, h)
            full = abs(cv2.contourArea(np.float32(c["quad"])))
            same = (np.abs(img.astype(int) - colour).sum(2) < 24) | (np.abs(img.astype(int) - mark).sum(2) < 24)
            seen = (inside & same).sum() / full
            # The quad covers the card: the pixels of its colours inside the quad are its visible part.
            edge = cv2.arcLength(np.float32(c["quad"]), True) / full   # anti-aliased rim, as a fraction
            assert abs(seen - c["visible"]) < 0.06 + 1.5 * edge, (layout, i, c, seen)
            if c["visible"] > 0.95 and full > 400:
                # The first corner is the card's own top-left: its marked quarter lies there.
                q = np.asarray(c["quad"])
                centre = q.mean(0)
                p = q[0] + (centre - q[0]) * 0.3
                px = img[int(round(p[1])), int(round(p[0]))].astype(int)
                assert np.abs(px - mark).sum() < 40, (layout, i, c)
                checked += 1
    assert checked >= 3


def test_bent_cards_stay_inside_their_quads():
    w = deck.card_width(120)
    magenta = np.full((120, w, 3), (255, 0, 255), np.uint8)
    art = {k: magenta for k in KEYS}
    cfg = SceneConfig(size=(480, 270), layout="rows", conditions=frozenset({"perspective", "bend"}),
                      always=frozenset({"perspective", "bend"}), face_down=0.0)
    for i in range(4):
        img, labels = render_scene(scene_rng(21, i), art, cfg)
        shows = _shows(img, (255, 0, 255))
        union = np.zeros(shows.shape, bool)
        for c in labels["cards"]:
            union |= _mask(c["quad"], 480, 270)
        # Nearly all card pixels lie inside the labelled quads, and the quads are nearly all card.
        assert (shows & ~union).sum() < 0.03 * shows.sum()
        assert (shows & union).sum() > 0.93 * union.sum()


def test_hidden_cards_are_marked_hidden():
    art, colours = _marked_art()
    cfg = SceneConfig(size=(480, 270), layout="pile", conditions=frozenset())
    hidden = 0
    for i in range(6):
        img, labels = render_scene(scene_rng(3, i), art, cfg)
        for c in labels["cards"]:
            if c["visible"] < 0.3:
                hidden += 1
                assert not c["face_up"] or c["visible"] < 0.3
    assert hidden >= 1
    # A hand over the cards hides part of them.
    cfg = SceneConfig(size=(480, 270), layout="rows", conditions=frozenset({"hands"}), always=frozenset({"hands"}))
    fractions = [c["visible"] for i in range(8) for c in render_scene(scene_rng(4, i), art, cfg)[1]["cards"]]
    assert min(fractions) < 0.9


def test_same_seed_same_scene_and_other_seed_other_scene():
    a = art_mod.load_art("demo", height=120)
    cfg = SceneConfig(size=(320, 180))
    img1, lab1 = render_scene(scene_rng(7, 3), a, cfg)
    img2, lab2 = render_scene(scene_rng(7, 3), a, cfg)
    img3, lab3 = render_scene(scene_rng(8, 3), a, cfg)
    assert np.array_equal(img1, img2) and lab1 == lab2
    assert not np.array_equal(img1, img3)
    json.dumps(lab1)   # plain JSON types only


def test_every_card_and_both_backs_appear_across_a_batch():
    a = art_mod.load_art("demo", height=120)
    cfg = SceneConfig(size=(256, 144))
    seen = set()
    for i in range(120):
        for c in render_scene(scene_rng(5, i), a, cfg)[1]["cards"]:
            seen.add(c["card"] or c["back"])
    assert seen == set(KEYS)


def test_label_fields_and_ranges():
    a = art_mod.load_art("demo", height=120)
    img, lab = render_scene(scene_rng(1, 1), [a, a], SceneConfig(size=(320, 180)))
    assert img.shape == (180, 320, 3) and img.dtype == np.uint8
    assert lab["width"] == 320 and lab["height"] == 180 and lab["cards"]
    for c in lab["cards"]:
        assert set(c) >= {"card", "face", "quad", "face_up", "visible"}
        assert len(c["quad"]) == 4 and all(len(p) == 2 for p in c["quad"])
        assert 0.0 <= c["visible"] <= 1.0
        assert (c["face"] == "back") == (not c["face_up"]) == (c["card"] is None)


def test_bad_configs_and_arguments_are_refused_clearly():
    with pytest.raises(SceneError, match="layout"):
        SceneConfig(layout="circle")
    with pytest.raises(SceneError, match="condition"):
        SceneConfig(conditions=frozenset({"fog"}))
    with pytest.raises(SceneError, match="size"):
        SceneConfig(size=(10, 10))
    with pytest.raises(SceneError, match="lacks"):
        render_scene(np.random.default_rng(0), {"pine-crane": np.zeros((10, 10, 3), np.uint8)}, SceneConfig())
    with pytest.raises(SceneError, match="Generator"):
        render_scene(0, art_mod.load_art("demo", height=60), SceneConfig())


# ------------------------------------------------------------------------------------------ crops

def test_crops_batch_with_negatives_and_orientations():
    a = art_mod.load_art("demo", height=120)
    crops, labels = iter_crops(np.random.default_rng(0), a, 40, SceneConfig(size=(480, 270)))
    assert crops.shape == (40, 96, 64, 3) and crops.dtype == np.uint8
    assert {l["face"] for l in labels} <= set(crop_classes())
    assert any(l["face"] == NONE for l in labels) and any(l["face"] != NONE for l in labels)
    assert {l["orientation"] for l in labels} <= {0, 180}


def test_card_crops_show_the_card_the_right_way_up():
    art, colours = _marked_art()
    cfg = SceneConfig(size=(640, 360), layout="rows", conditions=frozenset({"perspective", "rotation"}),
                      face_down=0.0)
    n = 0
    for i in range(4):
        img, lab = render_scene(scene_rng(9, i), art, cfg)
        for crop, l in crops_from_scene(np.random.default_rng(i), img, lab, jitter=0.0, negatives=0):
            colour, mark = colours[l["card"]]
            corner = crop[8:20, 6:14].reshape(-1, 3).mean(0) if l["orientation"] == 0 else \
                crop[-20:-8, -14:-6].reshape(-1, 3).mean(0)
            assert np.abs(corner - mark).sum() < 50
            n += 1
    assert n >= 4


# ----------------------------------------------------------------------------------------- splits

def test_splits_hold_one_art_set_out_of_training():
    assert HELD_OUT_ART in art_mod.SHARED_ART_SETS and HELD_OUT_ART not in TRAIN_ART
    assert "demo" in TRAIN_ART
    assert any(s.art == (HELD_OUT_ART,) for s in SPLITS.values())
    first = [lab for _, _, lab in split_scenes("demo", limit=2)]
    again = [lab for _, _, lab in split_scenes("demo", limit=2)]
    assert first == again and len(first) == 2


# ------------------------------------------------------------------------------------- the CLI

class _Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def _cli(*args):
    """The command run in this process (fast: the deck and textures stay cached)."""
    import contextlib
    import io
    from hanadealer.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:   # argparse's own refusals
            code = exc.code
    return _Result(code, out.getvalue(), err.getvalue())


def test_the_installed_command_runs():
    r = subprocess.run([sys.executable, "-m", "hanadealer", "bench-synth", "--count", "2", "--workers", "1",
                        "--size", "160x90"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["scenes"] == 2


def test_deck_command_writes_cards_and_print_sheets(tmp_path):
    r = _cli("deck", "--out", str(tmp_path), "--height", "87", "--dpi", "100")
    assert r.returncode == 0, r.stderr
    for k in KEYS:
        img = cv2.imread(str(tmp_path / f"{k}.png"))
        assert img.shape == (87, 54, 3)
    sheets = sorted(tmp_path.glob("print-a4-*.png"))
    assert len(sheets) == 3  # 20 cards a page
    page = cv2.imread(str(sheets[0]))
    assert page.shape[:2] == (round(297 / 25.4 * 100), round(210 / 25.4 * 100))
    # a real hanafuda card's size, 54 mm tall (they were 87 mm: half again as large): the first card's
    # black frame, down the middle of its column
    import numpy as np
    brightest = page.max(axis=2)
    first_x = int(np.flatnonzero(brightest.min(axis=0) < 60)[0])  # the first card's left edge
    rows = np.flatnonzero(brightest[:, first_x + 2] < 60)           # down its frame
    run_end = rows[np.flatnonzero(np.diff(rows) > 1)[0]] if (np.diff(rows) > 1).any() else rows[-1]
    tall_mm = (run_end - rows[0] + 1) / 100 * 25.4
    assert abs(tall_mm - 54) < 1.0, tall_mm
    # and the page says its resolution, so printing at 100% gives that size
    data = sheets[0].read_bytes()
    assert data[37:41] == b"pHYs" and int.from_bytes(data[41:45], "big") == round(100 / 0.0254)


@pytest.mark.parametrize("fmt", ["native", "coco", "yolo"])
def test_synth_command_writes_scenes_labels_and_crops(tmp_path, fmt):
    r = _cli("synth", "--art", "demo", "--count", "3", "--out", str(tmp_path), "--seed", "2", "--format", fmt,
             "--size", "320x180", "--crops")
    assert r.returncode == 0, r.stderr
    labels = [json.loads((tmp_path / "labels" / f"{i:06d}.json").read_text()) for i in range(3)]
    for i in range(3):
        assert cv2.imread(str(tmp_path / "images" / f"{i:06d}.jpg")).shape == (180, 320, 3)
    n_cards = sum(len(l["cards"]) for l in labels)
    if fmt == "coco":
        coco = json.loads((tmp_path / "annotations.json").read_text())
        assert len(coco["images"]) == 3 and len(coco["annotations"]) == n_cards
        assert [c["name"] for c in coco["categories"]] == label_classes()
    if fmt == "yolo":
        rows = sum(len((tmp_path / "labels" / f"{i:06d}.txt").read_text().split("\n")) - 1 for i in range(3))
        assert rows <= n_cards and rows > 0
        assert "kpt_shape: [4, 3]" in (tmp_path / "data.yaml").read_text()
    csv_rows = (tmp_path / "crops" / "labels.csv").read_text().strip().split("\n")
    assert csv_rows[0] == "file,face,card,orientation" and len(csv_rows) > 1
    # The same seed gives the same scenes.
    other = tmp_path / "again"
    assert _cli("synth", "--art", "demo", "--count", "3", "--out", str(other), "--seed", "2",
                "--size", "320x180").returncode == 0
    assert (other / "images" / "000002.jpg").read_bytes() == (tmp_path / "images" / "000002.jpg").read_bytes()


def _exported_card(card, face, quad, visible):
    return {"card": card, "face": face, "quad": quad, "face_up": True, "visible": visible}


def test_coco_and_yolo_exports_keep_to_the_frame_and_set_buried_cards_aside(tmp_path):
    from datasets.export import to_coco, write_yolo
    labels = [{"width": 200, "height": 100, "cards": [
        _exported_card("pine-crane", "pine-crane", [[10, 10], [50, 10], [50, 70], [10, 70]], 1.0),
        # half of it out of the frame on the right: 40 x 60 in all, 20 x 60 inside
        _exported_card("plum-poetry", "plum-poetry", [[180, 20], [220, 20], [220, 80], [180, 80]], 0.5),
        # buried under the others in a pile
        _exported_card("cherry-curtain", "cherry-curtain", [[30, 20], [70, 20], [70, 80], [30, 80]], 0.2),
    ]}]
    coco = to_coco(labels)
    whole, cut, buried = coco["annotations"]
    assert whole["area"] == 2400.0 and whole["iscrowd"] == 0
    assert cut["area"] == 1200.0 and cut["iscrowd"] == 0
    assert max(cut["segmentation"][0][0::2]) == 200 and cut["bbox"] == [180.0, 20.0, 20.0, 60.0]
    assert [v for v in cut["keypoints"][2::3]] == [2, 0, 0, 2]  # the whole quad's corners, outside ones not visible
    assert buried["iscrowd"] == 1  # COCO's region to ignore: neither to be found nor a false alarm
    (tmp_path / "labels").mkdir()
    write_yolo(labels, tmp_path)
    rows = (tmp_path / "labels" / "000000.txt").read_text().splitlines()
    classes = label_classes()
    assert [int(r.split()[0]) for r in rows] == [classes.index("pine-crane"), classes.index("plum-poetry")]


def test_synth_and_deck_refuse_bad_arguments_clearly(tmp_path):
    afile = tmp_path / "file"
    afile.write_text("x")
    for args, words in [
        (["synth", "--art", "nope", "--count", "1", "--out", str(tmp_path)], "unknown art set"),
        (["synth", "--art", "demo", "--count", "0", "--out", str(tmp_path)], "--count"),
        (["synth", "--art", "demo", "--count", "1", "--out", str(tmp_path), "--size", "big"], "size"),
        (["synth", "--art", "demo", "--count", "1", "--out", str(afile)], "not a folder"),
        (["synth", "--art", "demo", "--count", "1", "--out", str(tmp_path), "--layout", "x"], "layout"),
        (["deck", "--out", str(afile)], "not a folder"),
        # a folder that cannot be made (under a file): a NotADirectoryError traceback before
        (["deck", "--out", str(afile / "cards")], "cannot be made"),
        (["synth", "--art", "demo", "--count", "1", "--out", str(afile / "scenes")], "cannot be made"),
        (["synth", "--art", "demo", "--count", "1", "--out", str(tmp_path), "--seed", "-1"], "argument --seed"),
        # no cap: a thousand processes were started
        (["bench-synth", "--count", "1", "--workers", "1000"], "argument --workers: 1000 is out of range"),
    ]:
        r = _cli(*args)
        assert r.returncode == 2, args
        assert words in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_deck_says_which_file_it_could_not_write(tmp_path):
    # cv2.imwrite's False was never looked at: it listed the sheet and exited 0
    (tmp_path / "print-a4-1.png").mkdir()
    r = _cli("deck", "--out", str(tmp_path), "--height", "87", "--dpi", "72")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert f"{tmp_path / 'print-a4-1.png'}: could not be written" in r.stderr and r.stdout == ""


@pytest.mark.parametrize("option", [["--foreign-cards"], ["--surfaces", "felt,ukiyoe"]])
def test_synth_options_that_need_shared_art_are_refused_up_front_without_it(tmp_path, monkeypatch, capsys, option):
    # found only when a scene first asked for it: by the seed and count, the run failed part way or
    # passed with no foreign card at all
    import datasets.shared
    from hanadealer.cli import main
    monkeypatch.setattr(datasets.shared, "shared_dir", lambda override=None: None)
    assert main(["synth", "--art", "demo", "--count", "2", "--out", str(tmp_path / "out"), *option]) == 2
    err = capsys.readouterr().err
    assert "need" in err and "the shared data folder" in err and "which is not present" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("option, needs", [(["--foreign-cards"], "--foreign-cards needs the card images of"),
                                           (["--surfaces", "felt,ukiyoe"], "the ukiyoe surface needs the prints of")])
def test_synth_options_whose_art_the_shared_folder_lacks_are_refused_up_front(tmp_path, capsys, option, needs):
    # a shared folder without that art passed the check: the run failed once a scene asked for it,
    # leaving a partial run, unsaid
    import shutil
    from hanadealer.cli import main
    shared = tmp_path / "shared"
    shared.mkdir()
    shutil.copy(Path(__file__).resolve().parent.parent / "dealer" / "cards.csv", shared / "cards.csv")
    assert main(["synth", "--art", "demo", "--count", "6", "--out", str(tmp_path / "out"), "--shared", str(shared),
                 *option]) == 2
    assert needs in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_shared_folder_named_by_the_environment_that_is_not_there_is_an_error(tmp_path, monkeypatch, capsys):
    # a mistyped HANADEALER_SHARED fell back to ../shared, without a word, as --shared never does
    from datasets.shared import shared_dir
    from hanadealer.cli import main
    monkeypatch.setenv("HANADEALER_SHARED", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="no shared data folder at .*nowhere .HANADEALER_SHARED"):
        shared_dir()
    assert main(["synth", "--art", "demo", "--count", "1", "--out", str(tmp_path / "out"), "--foreign-cards"]) == 2
    assert "no shared data folder at" in capsys.readouterr().err
    # named, it is meant even where the demo art needs none of it (a typo was passed over)
    assert main(["synth", "--art", "demo", "--count", "1", "--out", str(tmp_path / "out")]) == 2
    assert "no shared data folder at" in capsys.readouterr().err
    assert main(["bench-synth", "--count", "1", "--workers", "1"]) == 2
    assert "no shared data folder at" in capsys.readouterr().err
    monkeypatch.delenv("HANADEALER_SHARED")
    assert main(["synth", "--art", "demo", "--count", "1", "--out", str(tmp_path / "out"),
                 "--shared", str(tmp_path / "typo")]) == 2
    assert "no shared data folder at" in capsys.readouterr().err
    r = _cli("synth", "--art", "demo", "--count", "2000000", "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and "argument --count: 2000000 is out of range: a whole number from 1 to 1000000" in r.stderr
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "cards.csv").write_text("id\n")
    monkeypatch.setenv("HANADEALER_SHARED", str(tmp_path / "here"))
    assert shared_dir() == (tmp_path / "here").resolve()


def test_synth_into_a_folder_of_an_earlier_run_is_refused_unless_it_is_to_replace_it(tmp_path):
    # written over, a smaller run left the earlier run's other images and its annotations.json, which
    # no longer matched the images
    first = ("synth", "--art", "demo", "--count", "3", "--out", str(tmp_path), "--size", "320x180",
             "--format", "coco", "--crops")
    assert _cli(*first).returncode == 0
    (tmp_path / "notes.txt").write_text("mine")
    # an art set misspelt is refused before anything is cleared (the earlier run was deleted first),
    # and no folder is made for a run refused
    for out in (tmp_path, tmp_path / "new"):
        r = _cli("synth", "--art", "nosuch", "--count", "1", "--out", str(out), "--overwrite")
        assert r.returncode == 2 and "unknown art set 'nosuch'" in r.stderr, r.stderr
    assert len(list((tmp_path / "images").glob("*.jpg"))) == 3 and not (tmp_path / "new").exists()
    again = ("synth", "--art", "demo", "--count", "1", "--out", str(tmp_path), "--size", "320x180", "--seed", "5")
    r = _cli(*again)
    assert r.returncode == 2 and "holds the scenes of an earlier run (images, labels, crops, dataset.json, " \
        "annotations.json): choose an empty folder, or give --overwrite" in r.stderr, r.stderr
    assert len(list((tmp_path / "images").glob("*.jpg"))) == 3  # nothing touched
    # something of the user's in a folder a run writes to: refused, --overwrite or not (it was removed
    # with the scenes; left, the scenes would be mixed with it)
    (tmp_path / "images" / ".DS_Store").write_text("a file manager's: passed over")
    (tmp_path / "images" / "holiday").mkdir()
    (tmp_path / "images" / "holiday" / "photo.txt").write_text("mine too")
    r = _cli(*again, "--overwrite")
    assert r.returncode == 2 and "images/holiday is not of a synth run" in r.stderr, r.stderr
    assert (tmp_path / "images" / "holiday" / "photo.txt").read_text() == "mine too"
    assert len(list((tmp_path / "images").glob("*.jpg"))) == 3
    (tmp_path / "images" / "holiday" / "photo.txt").unlink()
    (tmp_path / "images" / "holiday").rmdir()
    assert _cli(*again, "--overwrite").returncode == 0
    assert sorted(p.name for p in (tmp_path / "images").iterdir()) == [".DS_Store", "000000.jpg"]
    assert not (tmp_path / "annotations.json").exists() and not (tmp_path / "crops").exists()
    assert (tmp_path / "notes.txt").read_text() == "mine"
    r = _cli("deck", "--out", "")
    assert r.returncode == 2 and "argument --out: an empty or blank name names no file or folder" in r.stderr


def test_synth_says_what_it_could_not_write(tmp_path, monkeypatch):
    import datasets.export

    def disk_full(*args, **kwargs):  # (a traceback before)
        raise OSError(28, "No space left on device", str(tmp_path / "images" / "000004.jpg"))
    monkeypatch.setattr(datasets.export, "generate", disk_full)
    r = _cli("synth", "--art", "demo", "--count", "1", "--out", str(tmp_path), "--size", "320x180")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "cannot write the scenes" in r.stderr and "000004.jpg" in r.stderr
    assert f"the scenes written so far are left in {tmp_path}, without dataset.json: give --overwrite" in r.stderr


@pytest.mark.parametrize("part, kind", [("images", "file"), ("crops", "file"), ("dataset.json", "folder"),
                                        ("annotations.json", "folder"), ("crops", "link to nowhere")])
def test_a_part_of_the_run_there_as_the_wrong_kind_is_refused_before_the_earlier_run_is_cleared(tmp_path, part, kind):
    # found at its first write, it stopped the run after --overwrite had removed the earlier one
    run = ("synth", "--art", "demo", "--count", "2", "--out", str(tmp_path), "--size", "320x180")
    assert _cli(*run).returncode == 0
    if kind == "file":
        shutil.rmtree(tmp_path / part, ignore_errors=True)
        (tmp_path / part).write_text("mine")
    elif kind == "link to nowhere":  # (not there, as Path.exists sees it: the run was cleared, then failed)
        (tmp_path / part).symlink_to(tmp_path / "no-such-place")
    else:
        (tmp_path / part).unlink(missing_ok=True)
        (tmp_path / part).mkdir()
    r = _cli(*run, "--overwrite", "--crops", "--format", "coco")
    what = "file" if kind == "folder" else "folder"
    assert r.returncode == 2 and f"--out {tmp_path}: {part} is not a {what}, where the run writes one" in r.stderr, r.stderr
    assert len(list((tmp_path / "labels").glob("*.json"))) == 2  # the earlier run still there


def test_a_card_picture_cut_short_by_a_full_disk_is_not_left_named_as_the_card(tmp_path, monkeypatch):
    import errno
    from datasets.cli import write_png
    real = Path.write_bytes

    def full_disk(self, data):
        real(self, data[:100])  # (what fitted)
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(Path, "write_bytes", full_disk)
    with pytest.raises(OSError, match="wisteria-ribbon.png: could not be written \\(No space left on device\\)"):
        write_png(tmp_path / "wisteria-ribbon.png", np.zeros((40, 30, 3), np.uint8))
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    (tmp_path / "pine-crane.png.part").mkdir()  # (in the way: the error said is the write's own)
    with pytest.raises(OSError, match="pine-crane.png: could not be written"):
        write_png(tmp_path / "pine-crane.png", np.zeros((40, 30, 3), np.uint8))


def test_an_earlier_run_that_cannot_be_cleared_is_said_as_such(tmp_path, monkeypatch):
    import datasets.cli

    def refused(out, overwrite):
        raise PermissionError(13, "Permission denied", str(out / "images"))
    monkeypatch.setattr(datasets.cli, "_clear_earlier_run", refused)
    r = _cli("synth", "--art", "demo", "--count", "1", "--out", str(tmp_path), "--overwrite")
    assert r.returncode == 2 and f"cannot clear the earlier run in {tmp_path}" in r.stderr, r.stderr
    assert "written so far" not in r.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux) to fill standard output")
def test_a_standard_output_that_cannot_be_written_is_one_line(tmp_path):
    # a traceback, exit status 1 (settle said it in one line already)
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "hanadealer", "deck", "--out", str(tmp_path), "--height", "87",
                            "--dpi", "72"], stdout=full, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 2 and r.stderr.strip() == "hanadealer deck: cannot write the output: No space left on device"


def test_bench_synth_prints_json():
    r = _cli("bench-synth", "--count", "4", "--workers", "2", "--size", "320x180")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["scenes"] == 4 and out["scenes_per_s"] > 0 and out["workers"] == 2


@pytest.mark.shared
def test_shared_art_prints_and_foreign_cards_make_scenes(shared):
    a = art_mod.load_art(HELD_OUT_ART, shared=shared, height=120)
    cfg = SceneConfig(size=(480, 270), surfaces=("ukiyoe",), foreign_cards=True, shared=str(shared),
                      always=frozenset({"distractors"}), layout="rows")
    kinds = set()
    for i in range(6):
        img, lab = render_scene(scene_rng(6, i), a, cfg)
        # (the layout was labelled with the last foreign card's kind)
        assert lab["surface"] == "ukiyoe" and img.shape == (270, 480, 3) and lab["layout"] == "rows"
        kinds |= {d["kind"] for d in lab["distractors"]}
        negatives = [l for _, l in crops_from_scene(np.random.default_rng(i), img, lab, negatives=3)
                     if l["face"] == NONE]
        assert negatives
    assert kinds & {"western-card", "kabufuda-card"}


def test_foreign_cards_without_shared_data_say_so(tmp_path):
    cfg = SceneConfig(size=(320, 180), foreign_cards=True, shared=str(tmp_path), always=frozenset({"distractors"}))
    a = art_mod.load_art("demo", height=60)
    with pytest.raises(art_mod.ArtError, match="no shared data folder"):
        for i in range(10):
            render_scene(scene_rng(1, i), a, cfg)


def test_worker_processes_make_the_same_scenes(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    assert _cli("synth", "--art", "demo", "--count", "3", "--out", str(one), "--seed", "4", "--size", "320x180",
                "--workers", "1").returncode == 0
    assert _cli("synth", "--art", "demo", "--count", "3", "--out", str(two), "--seed", "4", "--size", "320x180",
                "--workers", "2").returncode == 0
    for i in range(3):
        assert (one / "images" / f"{i:06d}.jpg").read_bytes() == (two / "images" / f"{i:06d}.jpg").read_bytes()
        assert (one / "labels" / f"{i:06d}.json").read_text() == (two / "labels" / f"{i:06d}.json").read_text()
    assert json.loads((one / "labels" / "000000.json").read_text())["art_name"] == "demo"


def _ignores_ctrl_c(_):
    import signal
    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_worker_processes_leave_ctrl_c_to_the_command():
    # each worker printed its own KeyboardInterrupt traceback before the command's one line
    from datasets.export import worker_pool
    from datasets.scenes import SceneConfig
    import signal
    before = signal.getsignal(signal.SIGINT)
    with worker_pool(2, ["demo"], None, 100, SceneConfig(size=(320, 180))) as pool:
        assert signal.getsignal(signal.SIGINT) is before  # (the command itself hears it again)
        assert pool.map(_ignores_ctrl_c, range(2)) == [True, True]


def test_ctrl_c_as_the_workers_warm_up_stops_them_at_once(monkeypatch):
    # pressed before any `with` owned the pool, the pool was left to the interpreter's exit, whose
    # teardown printed a traceback under the command's one line
    import multiprocessing.pool
    from datasets.export import worker_pool
    from datasets.scenes import SceneConfig
    stopped = []
    real_terminate = multiprocessing.pool.Pool.terminate

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    def terminate(self):
        stopped.append(self)
        real_terminate(self)

    monkeypatch.setattr(multiprocessing.pool.Pool, "map", interrupted)
    monkeypatch.setattr(multiprocessing.pool.Pool, "terminate", terminate)
    with pytest.raises(KeyboardInterrupt):
        worker_pool(2, ["demo"], None, 100, SceneConfig(size=(320, 180)))
    assert len(stopped) == 1 and all(not w.is_alive() for w in stopped[0]._pool)


def test_export_names_stay_importable_from_scenes():
    from datasets import export, scenes
    assert scenes.generate is export.generate and scenes.render_encoded is export.render_encoded
    with pytest.raises(AttributeError):
        scenes.no_such_name


def test_render_layout_puts_the_given_cards_where_asked():
    from datasets.scenes import Placement, render_layout
    art, colours = _marked_art()
    table = [Placement("pine-crane", -60, 0), Placement("maple-deer", 0, 0, angle=180),
             Placement("willow-rainman", 60, 0, face_up=False)]
    img, lab = render_layout(np.random.default_rng(0), art, table, clean_config(size=(480, 270)), back="back-red")
    assert [c["face"] for c in lab["cards"]] == ["pine-crane", "maple-deer", "back"]
    assert lab["cards"][2]["back"] == "back-red"
    xs = [np.mean(np.asarray(c["quad"])[:, 0]) for c in lab["cards"]]
    assert xs == sorted(xs)                             # left to right as placed
    q = np.asarray(lab["cards"][1]["quad"])
    assert q[0][1] > q[3][1]                             # upside down: its own top-left is at the bottom
    with pytest.raises(SceneError, match="twice"):
        render_layout(np.random.default_rng(0), art, [Placement("pine-crane", 0, 0)] * 2)
    with pytest.raises(ValueError, match="pine-crane"):
        render_layout(np.random.default_rng(0), art, [Placement("pine-cran", 0, 0)])


def test_contact_sheets_render_from_the_demo_deck(tmp_path):
    from datasets import contact_sheet
    sheet = contact_sheet.contact_sheet(cols=2, rows=2, tile=(160, 90))
    assert sheet.shape == (2 * 90 + 96, 320, 3)
    assert contact_sheet.main(["--deck", str(tmp_path / "deck.jpg")]) == 0
    assert cv2.imread(str(tmp_path / "deck.jpg")) is not None
    with pytest.raises(SystemExit) as none_given:
        contact_sheet.main([])
    assert none_given.value.code == 2


def test_contact_sheet_help_and_a_name_that_is_no_picture(capsys, tmp_path):
    # --help was taken for the file to write: the sheet was rendered, then OpenCV's traceback
    from datasets import contact_sheet
    with pytest.raises(SystemExit) as helped:
        contact_sheet.main(["--help"])
    assert helped.value.code == 0 and "--deck" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        contact_sheet.main([str(tmp_path / "sheet.txt")])
    assert refused.value.code == 2 and "a .jpg or .png file" in capsys.readouterr().err
    assert not (tmp_path / "sheet.txt").exists()


@pytest.mark.shared
def test_every_evaluation_split_renders(shared):
    for name, split in SPLITS.items():
        (i, img, lab), = list(split_scenes(name, shared=shared, limit=1))
        assert img.shape == (720, 1280, 3) and lab["cards"], name


def test_negative_crops_when_one_card_fills_the_frame():
    """A close-up where the only card is about as large as the frame still gives its crop (there is
    no room for a not-a-card crop that misses the card, and that must not be an error)."""
    from datasets.crops import crops_from_scene
    image = np.full((120, 100, 3), 90, np.uint8)
    labels = {"cards": [{"card": "pine-crane", "face": "pine-crane", "face_up": True, "visible": 1.0,
                         "quad": [[2, 2], [97, 2], [97, 117], [2, 117]]}]}
    crops = crops_from_scene(np.random.default_rng(0), image, labels, negatives=3)
    assert [c[1]["face"] for c in crops][0] == "pine-crane"
    assert all(c[0].shape == (96, 64, 3) for c in crops)


def test_synth_warns_that_scenes_of_the_evaluation_seeds_are_not_for_training(tmp_path):
    # `synth --seed 1000006 --art demo` wrote the demo split's own scenes, unsaid: trained on, every
    # figure after it measured the training data
    r = _cli("synth", "--art", "demo", "--count", "1", "--out", str(tmp_path / "a"), "--seed", "1000006",
             "--size", "320x180")
    assert r.returncode == 0 and "warning: seeds from 1000000 render the evaluation splits: do not train on these scenes" \
        in r.stderr, r.stderr
    r = _cli("synth", "--art", "demo", "--count", "1", "--out", str(tmp_path / "b"), "--seed", "3", "--size", "320x180")
    assert r.returncode == 0 and "warning" not in r.stderr


def test_clean_scenes_with_foreign_cards_are_refused_before_any_is_made(tmp_path):
    # the foreign cards are distractors, which --clean leaves out: the run drew none and said nothing
    done = _cli("synth", "--art", "demo", "--count", "2", "--out", str(tmp_path / "out"), "--clean", "--foreign-cards")
    assert done.returncode == 2
    assert "--foreign-cards lays other decks' cards as distractors, which --clean leaves out" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


def test_a_refused_synth_run_says_its_error_alone(tmp_path):
    # the evaluation-seed warning came before the refusal, as if the run went on
    (tmp_path / "file").write_text("x")
    done = _cli("synth", "--art", "demo", "--count", "1", "--seed", "1000000", "--out", str(tmp_path / "file"))
    assert done.returncode == 2 and "exists and is not a folder" in done.stderr
    assert "warning" not in done.stderr, done.stderr


def test_a_contact_sheet_into_a_folder_not_there_is_refused_before_rendering(tmp_path, capsys):
    from datasets import contact_sheet
    with pytest.raises(SystemExit) as exit_:
        contact_sheet.main([str(tmp_path / "nodir" / "x.jpg")])
    assert exit_.value.code == 2 and "does not exist" in capsys.readouterr().err


def test_no_crop_labelled_none_is_a_whole_card():
    # the "half a card" negative, moved along a card by up to two thirds of its side, landed on the
    # next card of a hand dealt close: a card in full view was taught as no card
    import cv2
    import datasets.crops as crops_mod
    from datasets.crops import NONE, crops_from_scene
    a = art_mod.load_art("demo", height=60)
    seen, original = [], crops_mod.warp_card
    bad = negatives = 0
    try:
        crops_mod.warp_card = lambda image, quad, w, h: (seen.append(np.asarray(quad, np.float64)), original(image, quad, w, h))[1]
        for i in range(40):
            image, labels = render_scene(scene_rng(99, i), a, SceneConfig(size=(640, 360), layout="otoroku"))
            seen.clear()
            for (_, label), quad in zip(crops_from_scene(np.random.default_rng([99, i, 1]), image, labels), seen):
                if label["face"] != NONE:
                    continue
                negatives += 1
                for c in labels["cards"]:
                    if c["visible"] >= 0.7:
                        card = np.float32(c["quad"])
                        inter, _ = cv2.intersectConvexConvex(np.float32(quad), card)
                        union = abs(cv2.contourArea(np.float32(quad))) + abs(cv2.contourArea(card)) - inter
                        bad += inter / union > 0.75
    finally:
        crops_mod.warp_card = original
    assert negatives > 40 and bad == 0
