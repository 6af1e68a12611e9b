"""A local stand-in for Bedrock's AgenticRetrieveStream and Retrieve APIs (see docs/emulator.md).

For development and tests only: it speaks the real wire protocol over a sample corpus, with a
rule-based planner; it says nothing about the quality of Bedrock's answers.
"""

from local.emulator.corpus import DEFAULT_CORPUS, CorpusError
from local.emulator.handle import ENDPOINT_ENV, EmulatorHandle, start_emulator
from local.emulator.ids import kb_id_for

__all__ = ["DEFAULT_CORPUS", "ENDPOINT_ENV", "CorpusError", "EmulatorHandle", "kb_id_for", "start_emulator"]
