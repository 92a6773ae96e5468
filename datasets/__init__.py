"""Synthetic table scenes, the project's own demo deck, and the evaluation splits."""
