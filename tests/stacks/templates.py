"""Walking synthesized CloudFormation templates: policies, references, literal strings."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def walk(node: Any) -> Iterator[Any]:
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def referenced_ids(node: Any) -> set[str]:
    """Logical ids (and pseudo parameters) a value points at through Ref / Fn::GetAtt / Fn::Sub."""
    found: set[str] = set()
    for item in walk(node):
        if isinstance(item, dict):
            if "Ref" in item:
                found.add(item["Ref"])
            if "Fn::GetAtt" in item:
                target = item["Fn::GetAtt"]
                found.add(target[0] if isinstance(target, list) else target.split(".")[0])
            if "Fn::Sub" in item:
                text = item["Fn::Sub"] if isinstance(item["Fn::Sub"], str) else item["Fn::Sub"][0]
                found.update(part.split("}")[0].split(".")[0] for part in text.split("${")[1:])
    return found


def imports(node: Any) -> list[Any]:
    return [item["Fn::ImportValue"] for item in walk(node) if isinstance(item, dict) and "Fn::ImportValue" in item]


def strings(node: Any) -> list[str]:
    return [item for item in walk(node) if isinstance(item, str)]


def render(node: Any, values: dict[str, str] | None = None) -> str:
    """A Ref/GetAtt/Join value as text: `<Logical.Attr>` for what only exists after deploy."""
    values = values or {}
    if isinstance(node, str):
        return node
    if "Fn::Join" in node:
        separator, parts = node["Fn::Join"]
        return separator.join(render(part, values) for part in parts)
    if "Ref" in node:
        return values.get(node["Ref"], f"<{node['Ref']}>")
    if "Fn::GetAtt" in node:
        key = ".".join(node["Fn::GetAtt"])
        return values.get(key, f"<{key}>")
    raise AssertionError(f"unexpected intrinsic {node!r}")


def policy_documents(template: dict) -> list[tuple[str, str, dict]]:
    """(logical id of the policy or role, resource type, document) for every identity policy."""
    found = []
    for logical_id, resource in template.get("Resources", {}).items():
        properties = resource.get("Properties", {})
        if resource["Type"] == "AWS::IAM::Role":
            for policy in properties.get("Policies", []):
                found.append((logical_id, resource["Type"], policy["PolicyDocument"]))
        elif resource["Type"] in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
            found.append((logical_id, resource["Type"], properties["PolicyDocument"]))
    return found


def statements(document: dict) -> list[dict]:
    return as_list(document["Statement"])
