"""A writable copy of the example config that a test can break one field at a time."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLE_CONFIG


class ConfigCopy:
    def __init__(self, root: Path):
        self.root = root

    def path(self, kind: str, name: str) -> Path:
        return self.root / kind / f"{name}.yaml"

    def read(self, kind: str, name: str) -> dict:
        return yaml.safe_load(self.path(kind, name).read_text())

    def write(self, kind: str, name: str, data: dict) -> Path:
        path = self.path(kind, name)
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        return path

    def edit(self, kind: str, name: str, change) -> Path:
        data = self.read(kind, name)
        change(data)
        return self.write(kind, name, data)


@pytest.fixture
def config_copy(tmp_path) -> ConfigCopy:
    shutil.copytree(EXAMPLE_CONFIG, tmp_path / "config")
    return ConfigCopy(tmp_path / "config")
