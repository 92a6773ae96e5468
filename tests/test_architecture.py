"""The data flows one way (frame -> vision -> rows -> dealer -> webui): ``dealer/`` imports neither
``vision/`` nor ``webui/``, and nothing the running product loads imports torch (training only)."""
import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imported_packages(path: Path) -> set[str]:
    """The top-level packages a module imports anywhere in it (inside functions too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_dealer_imports_neither_vision_nor_webui():
    modules = sorted((ROOT / "dealer").rglob("*.py"))
    assert len(modules) > 5
    wrong = {str(p.relative_to(ROOT)): sorted(imported_packages(p) & {"vision", "webui"}) for p in modules}
    assert {k: v for k, v in wrong.items() if v} == {}


def test_vision_does_not_import_webui():
    wrong = {str(p.relative_to(ROOT)): "webui" for p in sorted((ROOT / "vision").rglob("*.py"))
             if "webui" in imported_packages(p)}
    assert wrong == {}


def test_the_running_product_never_loads_torch():
    """The page on the demo table, a recognised frame and a settled round, in a fresh interpreter:
    neither torch nor the training code is loaded."""
    script = textwrap.dedent("""
        import sys, tempfile
        from pathlib import Path
        from dealer.games import GAME_NAMES, get_game, settle_round
        from dealer.ledger import Ledger
        from vision.bench import timing_frames
        from vision.demo_table import DemoTable, DemoTruthDetector, demo_layout
        from vision.detector import CardDetector
        from vision.live import LiveTable
        from webui.app import create_app
        for name in GAME_NAMES:
            get_game(name)
        frames, _ = timing_frames(9, 1)
        assert CardDetector().detect(frames[0])
        table = DemoTable(game="batta-maki", seed=1, realtime=False)
        live = LiveTable(table, DemoTruthDetector(table), demo_layout("batta-maki"))
        with tempfile.TemporaryDirectory() as tmp:
            app = create_app({"LIVE": live, "LEDGER": str(Path(tmp) / "l.sqlite"), "PIN": "2468", "TESTING": True})
            assert app.test_client().get("/api/state").status_code == 200
        settle_round({"game": "batta-maki", "bets": [{"player": "a", "on": "saki", "amount": 1}],
                      "rows": {"saki": ["pine-crane", "plum-chaff-1", "cherry-chaff-1"],
                               "ato": ["wisteria-chaff-1", "iris-chaff-1", "peony-chaff-1"]}})
        loaded = sorted(m for m in sys.modules if m.split(".")[0] == "torch" or m in ("models.train", "models.nets"))
        print(loaded)
        sys.exit(1 if loaded else 0)
    """)
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
