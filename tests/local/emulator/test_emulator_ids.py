from __future__ import annotations

import re

from local.emulator import kb_id_for
from local.emulator.ids import chunk_id_for, source_uri_for


def test_kb_ids_are_valid_bedrock_ids_and_stable():
    ids = {name: kb_id_for(name) for name in ("docs", "tickets", "handbook", "wiki")}
    assert all(re.fullmatch(r"[0-9A-Z]{10}", kb_id) for kb_id in ids.values())
    assert len(set(ids.values())) == 4
    assert ids["docs"] == "464J7MR415"  # recorded once: a change would break every tenant's local config


def test_chunk_ids_and_source_uris_name_the_folder_and_document():
    assert chunk_id_for("docs", "api/errors.md", 2) == "docs/api/errors.md#2"
    assert source_uri_for("docs", "api/errors.md") == "s3://akb-local-docs/api/errors.md"
