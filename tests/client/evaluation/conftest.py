"""Fixtures of the evaluation tests."""

from tests.schema.conftest import config_copy  # noqa: F401 - a writable example config (the gate degrades it)
