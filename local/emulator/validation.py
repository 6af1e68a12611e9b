"""Request validation the way the service answers it: ValidationException with a Coral-style message.

Shape constraints (required members, types, lengths, ranges, enums, patterns, unions) are read
from botocore's service model for bedrock-agent-runtime, so the emulator rejects exactly what the
model forbids without a second hand-written copy of the model. Rules the model cannot express
(at most 5 retrievers, the last message is the user's, 10,000-character queries, filter value
types, unknown knowledge bases) follow as plain code.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from typing import Any

from local.emulator.filter_match import validate_filter
from local.emulator.service_errors import ServiceError

MAX_RETRIEVERS = 5  # up to 5 retrievers per request (docs/facts-and-decisions.md)
MAX_MEMORY_RETRIEVAL_CONFIGS = 1  # "currently accepts at most one entry" (botocore model)
MAX_QUERY_CHARS = 10_000  # query text 10,000 characters (docs/facts-and-decisions.md)
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "structure": (dict,),
    "list": (list,),
    "map": (dict,),
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "long": (int,),
    "float": (int, float),
    "double": (int, float),
    "blob": (str,),
    "timestamp": (int, float, str),
}


@functools.cache
def _service_model() -> Any:
    """bedrock-agent-runtime's model, loaded once: each fresh botocore session lists every service's
    folder and parses the model again (~17 ms of CPU each time, measured; once per operation before)."""
    import botocore.session

    return botocore.session.get_session().get_service_model("bedrock-agent-runtime")


@functools.cache
def _operation(name: str) -> Any:
    return _service_model().operation_model(name)


# botocore's patterns are the service's (ECMAScript-style): `$` is the end of the value. Python's `$`
# also matches before a final newline, so it becomes `\Z` (unescaped ones only; `\$LATEST` stays).
_END_OF_VALUE = re.compile(r"(?<!\\)\$")


@functools.cache
def _pattern(source: str) -> re.Pattern[str] | None:
    try:
        return re.compile(_END_OF_VALUE.sub(r"\\Z", source))
    except re.error:  # Java-only syntax such as \P{C}: the service checks it, the emulator cannot
        return None


def _fail(path: str, constraint: str, value: Any = None) -> ServiceError:
    shown = "null" if value is None else repr(value) if not isinstance(value, dict | list) else "value"
    return ServiceError(
        "ValidationException",
        f"1 validation error detected: Value {shown} at '{path}' failed to satisfy constraint: {constraint}",
    )


def _check_shape(shape: Any, value: Any, path: str) -> None:
    if shape.metadata.get("document"):
        return
    kinds = _JSON_TYPES.get(shape.type_name, (object,))
    if not _of_kind(value, kinds):
        raise _fail(path, f"Member must be of type {shape.type_name}", value)
    meta = shape.metadata
    size = len(value) if isinstance(value, str | list | dict) else value
    if "min" in meta and size < meta["min"]:
        what = "have length greater than or equal to" if isinstance(value, str | list | dict) else "be >="
        raise _fail(path, f"Member must {what} {meta['min']}", value)
    if "max" in meta and size > meta["max"]:
        what = "have length less than or equal to" if isinstance(value, str | list | dict) else "be <="
        raise _fail(path, f"Member must {what} {meta['max']}", value)
    if isinstance(value, str):
        if shape.enum and value not in shape.enum:
            raise _fail(path, f"Member must satisfy enum value set: {shape.enum}", value)
        pattern = _pattern(meta["pattern"]) if "pattern" in meta else None
        if pattern and not pattern.search(value):
            raise _fail(path, f"Member must satisfy regular expression pattern: {meta['pattern']}", value)
    if shape.type_name == "structure":
        _check_structure(shape, value, path)
    elif shape.type_name == "list":
        for n, item in enumerate(value):
            _check_shape(shape.member, item, f"{path}.{n + 1}.member")
    elif shape.type_name == "map":
        for key, item in value.items():
            _check_shape(shape.value, item, f"{path}.{key}")


def _of_kind(value: object, kinds: tuple[type, ...]) -> bool:
    """JSON's type check: a bool is not a number unless the shape says boolean."""
    return isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)


def _check_structure(shape: Any, value: dict[str, Any], path: str) -> None:
    prefix = f"{path}." if path else ""
    for name in shape.required_members:
        if value.get(name) is None:
            raise _fail(f"{prefix}{name}", "Member must not be null")
    present = [name for name in shape.members if value.get(name) is not None]
    if shape.metadata.get("union") and len(present) != 1:
        raise _fail(path or shape.name, f"exactly one member of {sorted(shape.members)} must be set", value)
    for name in present:
        _check_shape(shape.members[name], value[name], f"{prefix}{name}")


def check_against_model(operation: str, body: Any) -> None:
    """Raises ValidationException for the first way `body` breaks the operation's input shape."""
    if not isinstance(body, dict):
        raise ServiceError("ValidationException", "The request body must be a JSON object")
    _check_structure(_operation(operation).input_shape, body, "")


def _require_known(kb_id: str, known: Collection[str]) -> None:
    if kb_id not in known:
        raise ServiceError("ResourceNotFoundException", f"Knowledge base {kb_id} does not exist")


def validate_agentic(body: Any, known_kb_ids: Collection[str]) -> None:
    """Everything AgenticRetrieveStream checks before the first byte of the stream."""
    check_against_model("AgenticRetrieveStream", body)
    check_agentic_rules(body, known_kb_ids)


def check_agentic_rules(body: Any, known_kb_ids: Collection[str]) -> None:
    """The rules the model cannot express (a model-valid body): what the service checks beyond shapes."""
    messages = body["messages"]
    if messages[-1]["role"] != "user":
        raise ServiceError("ValidationException", "The last message must have role 'user'")
    text = messages[-1]["content"].get("text")
    if not text or not text.strip():
        raise ServiceError("ValidationException", "The last user message must contain non-empty text")
    if len(text) > MAX_QUERY_CHARS:
        raise ServiceError("ValidationException", f"The query text exceeds {MAX_QUERY_CHARS} characters")
    retrievers = body["retrievers"]
    if len(retrievers) > MAX_RETRIEVERS:
        raise _fail("retrievers", f"Member must have length less than or equal to {MAX_RETRIEVERS}", retrievers)
    config = body["agenticRetrieveConfiguration"]
    if config.get("foundationModelType") == "CUSTOM" and "foundationModelConfiguration" not in config:
        raise ServiceError(
            "ValidationException",
            "foundationModelConfiguration is required when foundationModelType is CUSTOM",
        )
    seen: set[str] = set()
    for n, retriever in enumerate(retrievers):
        kb = retriever["configuration"]["knowledgeBase"]
        if kb["knowledgeBaseId"] in seen:
            raise ServiceError("ValidationException", f"retrievers.{n + 1}: knowledge base listed twice")
        seen.add(kb["knowledgeBaseId"])
        where = (kb.get("retrievalOverrides") or {}).get("filter")
        if where is not None:
            validate_filter(where, f"retrievers.{n + 1}.member.configuration.knowledgeBase.retrievalOverrides.filter")
    for kb_id in seen:
        _require_known(kb_id, known_kb_ids)
    if body.get("memoryConfiguration") is not None:
        check_memory_rules(body)


def check_memory_rules(body: Any) -> None:
    """memoryConfiguration's rules from the botocore model's documentation (the wording is the
    emulator's own; ledger rows UNVERIFIED for the exact messages)."""
    memory = body["memoryConfiguration"]
    binding, configs = memory.get("sessionBinding"), memory.get("retrievalConfigs")
    if binding is None and not configs:
        raise ServiceError("ValidationException", "memoryConfiguration needs sessionBinding or retrievalConfigs")
    if configs is not None and len(configs) > MAX_MEMORY_RETRIEVAL_CONFIGS:
        raise _fail("memoryConfiguration.retrievalConfigs", "Member must have length less than or equal to 1", configs)
    for n, config in enumerate(configs or [], start=1):
        if (config.get("namespace") is None) == (config.get("namespacePath") is None):
            raise ServiceError(
                "ValidationException",
                f"memoryConfiguration.retrievalConfigs.{n}: set exactly one of namespace or namespacePath",
            )
    if binding is None:
        return
    if len(body["messages"]) > 1:
        raise ServiceError(
            "ValidationException",
            "Supply session history through messages or through short-term memory (sessionBinding), not both",
        )
    if memory.get("persistenceMode", "DEFAULT") == "DEFAULT" and body.get("generateResponse") is False:
        raise ServiceError("ValidationException", "persistenceMode DEFAULT requires generateResponse to be true")


def knowledge_base_id_from(identifier: str) -> str:
    """Retrieve accepts the id or the knowledge base ARN (`...:knowledge-base/<id>`)."""
    return identifier.rsplit("/", 1)[-1]


def validate_retrieve(body: Any, kb_identifier: str, known_kb_ids: Collection[str]) -> None:
    """Everything Retrieve checks; the knowledge base id comes from the URI, not the body."""
    check_against_model("Retrieve", {**body, "knowledgeBaseId": kb_identifier} if isinstance(body, dict) else body)
    config = body.get("retrievalConfiguration") or {}
    if "vectorSearchConfiguration" in config:
        # Every emulated knowledge base is MANAGED; AWS's sample reports the service rejecting
        # vectorSearchConfiguration there (ledger). The message is the emulator's own wording.
        raise ServiceError(
            "ValidationException",
            "vectorSearchConfiguration is not supported for managed knowledge bases; use managedSearchConfiguration",
        )
    where = (config.get("managedSearchConfiguration") or {}).get("filter")
    if where is not None:
        validate_filter(where, "retrievalConfiguration.managedSearchConfiguration.filter")
    text = body["retrievalQuery"].get("text")
    if not text or not text.strip():
        raise ServiceError("ValidationException", "retrievalQuery.text must be a non-empty string")
    _require_known(knowledge_base_id_from(kb_identifier), known_kb_ids)
