"""Knowledge bases as folders, so the sample corpus and anyone's own test corpus are just files.

Layout of `<corpus>/<folder>/`:
    knowledge_base.json        {"name": ..., "description": ...}   (optional; defaults to the folder name)
    <path>.md | <path>.txt     documents, any depth; document id = path relative to the folder
    <path>.md.metadata.json    {"metadataAttributes": {...}} as Bedrock's S3 side files, or a plain object
    <path>.md.acl.json         {"users": ["alice", ...]}: only these userContext.userIds see the document
    <path>.png + <path>.png.alt.txt   an image: search matches its text alternative, results carry
                               its bytes (content.byteContent, mimeType image/png), as a multimodal
                               knowledge base returns an image
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from local.emulator.ids import chunk_id_for, data_source_id_for, kb_id_for, source_uri_for

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent / "corpus"
DESCRIPTOR = "knowledge_base.json"
DOCUMENT_SUFFIXES = (".md", ".txt")
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}
ALT_TEXT_SUFFIX = ".alt.txt"
CHUNK_WORDS = 120


class CorpusError(ValueError):
    """A corpus folder the emulator cannot serve; the message names the file."""


@dataclass(frozen=True)
class Chunk:
    chunk_id: str
    document_id: str
    index: int
    text: str


@dataclass(frozen=True)
class Document:
    document_id: str  # path relative to the knowledge base folder, with forward slashes
    text: str
    attributes: Mapping[str, Any]
    allowed_users: frozenset[str] | None  # None: no ACL side file, everyone may see it
    chunks: tuple[Chunk, ...]
    mime_type: str = "text/plain"
    data: bytes | None = None  # a binary document's bytes (images); None for text

    def visible_to(self, user_id: str | None) -> bool:
        """ACL-protected documents need a listed user; without userContext they are hidden."""
        return self.allowed_users is None or (user_id is not None and user_id in self.allowed_users)


@dataclass(frozen=True)
class KnowledgeBase:
    folder: str
    kb_id: str
    name: str
    description: str
    documents: Mapping[str, Document] = field(default_factory=dict)

    def metadata_for(self, document: Document, chunk: Chunk) -> dict[str, Any]:
        """Result metadata as the service returns it: system keys plus the document's own attributes."""
        return {
            **document.attributes,
            "x-amz-bedrock-kb-source-uri": source_uri_for(self.folder, document.document_id),
            "x-amz-bedrock-kb-chunk-id": chunk.chunk_id,
            "x-amz-bedrock-kb-document-id": document.document_id,
            "x-amz-bedrock-kb-data-source-id": data_source_id_for(self.folder),
        }


def chunk_text(text: str, max_words: int = CHUNK_WORDS) -> list[str]:
    """Paragraph-aligned chunks of at most ~max_words; a heading stays with the paragraph after it."""
    paragraphs = [p.strip() for p in text.replace("\r\n", "\n").split("\n\n") if p.strip()]
    units: list[str] = []
    for paragraph in paragraphs:
        if units and units[-1].lstrip().startswith("#") and "\n" not in units[-1]:
            units[-1] = f"{units[-1]}\n\n{paragraph}"
        else:
            units.append(paragraph)
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for unit in units:
        words = len(unit.split())
        if current and size + words > max_words:
            chunks.append("\n\n".join(current))
            current, size = [], 0
        current.append(unit)
        size += words
    if current:
        chunks.append("\n\n".join(current))
    return chunks


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CorpusError(f"{path}: {error}") from None


def _attributes(path: Path) -> dict[str, Any]:
    side = path.with_name(path.name + ".metadata.json")
    if not side.exists():
        return {}
    data = _read_json(side)
    if isinstance(data, dict) and isinstance(data.get("metadataAttributes"), dict):
        data = data["metadataAttributes"]
    if not isinstance(data, dict):
        raise CorpusError(f"{side}: expected a JSON object of metadata attributes")
    return data


def _allowed_users(path: Path) -> frozenset[str] | None:
    side = path.with_name(path.name + ".acl.json")
    if not side.exists():
        return None
    data = _read_json(side)
    users = data.get("users") if isinstance(data, dict) else None
    if not isinstance(users, list) or not all(isinstance(u, str) for u in users):
        raise CorpusError(f'{side}: expected {{"users": ["user-id", ...]}}')
    return frozenset(users)


def _text_document(folder: Path, path: Path) -> Document:
    document_id = path.relative_to(folder).as_posix()
    text = path.read_text(encoding="utf-8")
    chunks = tuple(
        Chunk(chunk_id_for(folder.name, document_id, n), document_id, n, body)
        for n, body in enumerate(chunk_text(text))
    )
    return Document(document_id, text, _attributes(path), _allowed_users(path), chunks)


def _image_document(folder: Path, path: Path) -> Document:
    """One chunk per image: its text alternative is what search matches; results carry the bytes."""
    alt = path.with_name(path.name + ALT_TEXT_SUFFIX)
    if not alt.exists():
        raise CorpusError(f"{path}: an image needs a text alternative in {alt.name} (what search matches)")
    document_id = path.relative_to(folder).as_posix()
    text = alt.read_text(encoding="utf-8").strip()
    chunk = Chunk(chunk_id_for(folder.name, document_id, 0), document_id, 0, text)
    return Document(
        document_id,
        text,
        _attributes(path),
        _allowed_users(path),
        (chunk,),
        mime_type=IMAGE_TYPES[path.suffix.lower()],
        data=path.read_bytes(),
    )


def load_knowledge_base(folder: Path) -> KnowledgeBase:
    descriptor = _read_json(folder / DESCRIPTOR) if (folder / DESCRIPTOR).exists() else {}
    if not isinstance(descriptor, dict):
        raise CorpusError(f"{folder / DESCRIPTOR}: expected a JSON object with name and description")
    documents: dict[str, Document] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in DOCUMENT_SUFFIXES and not path.name.endswith(ALT_TEXT_SUFFIX):
            documents[path.relative_to(folder).as_posix()] = _text_document(folder, path)
        elif path.is_file() and path.suffix.lower() in IMAGE_TYPES:
            documents[path.relative_to(folder).as_posix()] = _image_document(folder, path)
    return KnowledgeBase(
        folder=folder.name,
        kb_id=kb_id_for(folder.name),
        name=str(descriptor.get("name", folder.name)),
        description=str(descriptor.get("description", "")),
        documents=documents,
    )


def load_corpus(root: Path = DEFAULT_CORPUS) -> dict[str, KnowledgeBase]:
    """Every sub-folder of `root` is a knowledge base; returns them keyed by knowledge base id."""
    if not root.is_dir():
        raise CorpusError(f"{root}: corpus directory not found")
    bases: dict[str, KnowledgeBase] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        kb = load_knowledge_base(folder)
        if kb.kb_id in bases:
            raise CorpusError(f"{folder}: id {kb.kb_id} collides with folder {bases[kb.kb_id].folder}")
        bases[kb.kb_id] = kb
    return bases
