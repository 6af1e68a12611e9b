"""Reuses the schema tests' writable config copy."""

from tests.schema.conftest import config_copy  # noqa: F401 - a fixture, re-exported for this package
