"""Cost allocation tag values from config: what AWS accepts as a tag value, checked at validate time.

Tag values: 1-256 characters (botocore cloudformation TagValue min 1 max 256; resourcegroupstaggingapi
TagValue max 256). The characters are limited to letters, digits, spaces and `_ . : / = + - @`, the
set every AWS service accepts in tags (Tagging AWS resources user guide, "Tag naming limits").
"""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

CostCenter = Annotated[
    str,
    StringConstraints(min_length=1, max_length=256, pattern=r"^[\w .:/=+\-@]+$", strip_whitespace=True),
]
