"""Notebooks are tests too: with nbval installed, every notebook given to pytest (by default the
whole ``notebooks/`` folder) is executed and each cell's output compared with the stored one.

Set here rather than in ``addopts`` so that ``pytest tests/test_model.py`` also works where nbval
is not installed.
"""

from pathlib import Path


def pytest_configure(config):
    if config.pluginmanager.hasplugin("nbval"):
        config.option.nbval = True
        config.option.nbval_current_env = True
        config.option.nbval_sanitize_with = str(Path(__file__).parent / "tests" / "sanitize.cfg")
