"""The ONNX models the vision stage runs, their model card and their training code."""
from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent
