"""Every ARN of a config file sits in the partition of the environment's region.

An `arn:aws-cn:` ARN in an environment deployed to us-west-2 names nothing there: a policy would
grant a resource that cannot exist, and a principal would never match, so the config is refused
naming the field, the region and the partition expected. A region's partition comes from the
region patterns of botocore's `data/partitions.json` (ledger: "Tenant isolation at the resource,
config ARNs"); a test keeps this table equal to it. A region no pattern matches is left unchecked.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

from schema.arn_types import ArnKind, arn_partition
from schema.config_errors import Problem

# (partition, regionRegex) as botocore 1.44.8 data/partitions.json lists them.
PARTITION_REGIONS: tuple[tuple[str, str], ...] = (
    ("aws", r"^(us|eu|ap|sa|ca|me|af|il|mx)\-\w+\-\d+$"),
    ("aws-cn", r"^cn\-\w+\-\d+$"),
    ("aws-eusc", r"^eusc\-(de)\-\w+\-\d+$"),
    ("aws-iso", r"^us\-iso\-\w+\-\d+$"),
    ("aws-iso-b", r"^us\-isob\-\w+\-\d+$"),
    ("aws-iso-e", r"^eu\-isoe\-\w+\-\d+$"),
    ("aws-iso-f", r"^us\-isof\-\w+\-\d+$"),
    ("aws-us-gov", r"^us\-gov\-\w+\-\d+$"),
)


def region_partition(region: str) -> str | None:
    """The partition whose region pattern matches `region`, or None."""
    return next((partition for partition, pattern in PARTITION_REGIONS if re.fullmatch(pattern, region)), None)


def _is_arn_annotation(annotation: object) -> bool:
    """Whether a field's annotation (Optional, list, Annotated ...) carries an ArnKind."""
    if any(isinstance(item, ArnKind) for item in getattr(annotation, "__metadata__", ())):
        return True
    return any(_is_arn_annotation(arg) for arg in typing.get_args(annotation))


def arn_values(model: BaseModel, prefix: str = "") -> Iterator[tuple[str, str]]:
    """(field path, ARN) of every ARN-typed value of a validated model, nested models included."""
    for name, field in type(model).model_fields.items():
        path = f"{prefix}.{name}" if prefix else name
        value = getattr(model, name)
        items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
        for index, item in items:
            here = path if index is None else f"{path}[{index}]"
            if isinstance(item, BaseModel):
                yield from arn_values(item, here)
            elif isinstance(item, str) and _is_arn_annotation(field.rebuild_annotation()):
                yield here, item


def partition_problems(file: Path, model: BaseModel, region: str, env_file: Path) -> list[Problem]:
    """A Problem for each ARN of `model` (read from `file`) outside the partition of `region`."""
    expected = region_partition(region)
    if expected is None:
        return []
    return [
        Problem(
            str(file),
            path,
            f"'{arn}' is in partition {arn_partition(arn)}, but the environment ({env_file}) deploys to {region}: "
            f"expected partition {expected} (arn:{expected}:...)",
        )
        for path, arn in arn_values(model)
        if arn_partition(arn) != expected
    ]
