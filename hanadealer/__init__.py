"""The ``hanadealer`` command: one entry point for every part of the product."""
