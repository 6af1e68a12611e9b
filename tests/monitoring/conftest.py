"""Fixtures for stack tests."""

from tests.schema.conftest import config_copy  # noqa: F401 - a writable example config, shared with schema tests
