"""Building blocks shared by the environment and tenant schemas."""

from __future__ import annotations

import difflib
import re
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, model_validator

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9-]{0,30}[a-z0-9]$|^[a-z]$")
ACCOUNT_PATTERN = re.compile(r"^\d{12}$")
REGION_PATTERN = re.compile(r"^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$")


class StrictModel(BaseModel):
    """Every config object: unknown keys are errors (a typo must never pass silently)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    # Keys an earlier release accepted -> what to write instead (a clearer error than "unknown").
    removed_fields: ClassVar[dict[str, str]] = {}

    @model_validator(mode="before")
    @classmethod
    def _reject_unknown_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            removed = [f"'{key}' was removed: {cls.removed_fields[key]}" for key in data if key in cls.removed_fields]
            if removed:
                raise ValueError("; ".join(removed))
            allowed = set(cls.model_fields)
            unknown = [key for key in data if key not in allowed]
            if unknown:
                hints = []
                for key in unknown:
                    close = difflib.get_close_matches(str(key), sorted(allowed), n=1)
                    hints.append(f"'{key}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
                raise ValueError(f"unknown field {', '.join(hints)}; allowed fields: {', '.join(sorted(allowed))}")
        return data


def _name(value: str) -> str:
    if not NAME_PATTERN.fullmatch(value):
        raise ValueError(
            f"'{value}' is not a valid name: use 1-32 lowercase letters, digits and hyphens, "
            "starting with a letter and not ending with a hyphen"
        )
    return value


def _account(value: str) -> str:
    if not ACCOUNT_PATTERN.fullmatch(value):
        raise ValueError(f"'{value}' is not an AWS account id: use 12 digits, quoted in YAML")
    return value


def _region(value: str) -> str:
    if not REGION_PATTERN.fullmatch(value):
        raise ValueError(f"'{value}' is not an AWS region name (for example us-west-2)")
    return value


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


Name = Annotated[str, AfterValidator(_name)]
AccountId = Annotated[str, AfterValidator(_account)]
Region = Annotated[str, AfterValidator(_region)]
NonBlank = Annotated[str, AfterValidator(_non_blank)]


def unique(values: list[str], what: str) -> list[str]:
    seen: set[str] = set()
    repeated: set[str] = set()
    for value in values:
        (repeated if value in seen else seen).add(value)
    duplicates = sorted(repeated)
    if duplicates:
        raise ValueError(f"duplicate {what}: {', '.join(duplicates)}; each must appear once")
    return values


# Unicode property classes (`\p{L}`) are valid in the service's regex flavours but not in Python's
# `re`, so a pattern using them is passed on unchecked rather than refused.
_UNCHECKABLE = re.compile(r"\\[pP]\{")


def _regex(value: str) -> str:
    """A pattern that at least parses (balanced groups and classes, valid quantifiers), so a typo
    fails `akb validate` and `cdk synth` alike instead of the deployment."""
    if _UNCHECKABLE.search(value):
        return value
    try:
        re.compile(value)
    except re.error as error:
        where = f" at position {error.pos}" if error.pos is not None else ""
        raise ValueError(f"'{value}' is not a valid regular expression: {error.msg}{where}") from None
    return value


Regex = Annotated[str, AfterValidator(_regex)]
