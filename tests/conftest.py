import pytest

from datasets.shared import shared_dir


@pytest.fixture(scope="session")
def shared():
    """The ../shared data folder; tests that need it are skipped (with the reason) where it is absent."""
    path = shared_dir()
    if path is None:
        pytest.skip("../shared (card art, backgrounds, real photos) is not present on this machine")
    return path
