"""Where the config directory is, so `akb` works from any folder (an MCP host starts `akb mcp` anywhere).

In order: `--config DIR`; `$AKB_CONFIG`; else the current folder and each folder above it, the
first that is a config directory (holds `environments/`) or holds one named `config/` (like git
finding `.git`). Found nothing: the old default `config`, and a command that needs it fails with one
line naming where it looked (client/failures.py). docs/client.md, "Config discovery".
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from client.global_options import current

CONFIG_ENV = "AKB_CONFIG"
DEFAULT = Path("config")


def is_config_dir(folder: Path) -> bool:
    return (folder / "environments").is_dir()


def discover(start: Path) -> Path | None:
    """The nearest config directory from `start` upward, or None."""
    for folder in (start, *start.parents):
        if is_config_dir(folder / "config"):
            return folder / "config"
        if is_config_dir(folder):
            return folder
    return None


def _shown(path: Path, cwd: Path) -> Path:
    """Relative to the current folder when below it (messages then read `config/tenants/acme.yaml`)."""
    try:
        return path.relative_to(cwd)
    except ValueError:
        return path


def resolve_config(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path:
    """The `--config` option's callback: the directory per the order above (and how it was found)."""
    options = current()
    if value is not None:
        options.config_source = "option"
        return value
    if os.environ.get(CONFIG_ENV):
        options.config_source = CONFIG_ENV
        return Path(os.environ[CONFIG_ENV])
    cwd = Path.cwd()
    found = discover(cwd)
    if found is None:
        options.config_source = "default"
        return DEFAULT
    options.config_source = "discovered"
    return _shown(found, cwd)
