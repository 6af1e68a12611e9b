"""Where the quality gate keeps the last promoted baseline: SSM Parameter Store per environment and tenant, or a
local file for `--local`.

Deployed: the String parameter `/akb/<env>/<tenant>/quality/baseline`, standard tier. Chosen over S3 because a
baseline is a few hundred bytes of figures per mode (well under the standard tier's 4 KB; ledger: the quality
gate), Parameter Store keeps earlier values as the parameter's history, the tenant's parameters already live under
that prefix, and the gate's role needs two actions on one parameter ARN instead of a bucket with its own policy,
logging and encryption. The gate writes it, not the stack: promoting a baseline must not need a deploy (the
stack's deletion therefore leaves it behind; delete it with `aws ssm delete-parameter`). A record that would not
fit the standard tier is refused rather than silently moved to the charged advanced tier.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from contract.resource_names import QUALITY_BASELINE_KEY, parameter_name

# Parameter Store's standard tier: values up to 4 KB (botocore ssm PutParameterRequest.Value; ledger).
STANDARD_TIER_BYTES = 4096


class BaselineError(Exception):
    """The baseline could not be read or written; the message says where and why."""


class BaselineStore(Protocol):
    where: str

    def load(self) -> dict[str, Any] | None: ...

    def save(self, record: dict[str, Any]) -> None: ...


def _decode(text: str, where: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise BaselineError(f"{where} is not JSON: promote a passing run to replace it") from None
    if not isinstance(data, dict):
        raise BaselineError(f"{where} is not a JSON object: promote a passing run to replace it")
    return data


def encode(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


class FileBaselineStore:
    """`--local`: a JSON file (default eval-out/baselines/<env>-<tenant>.json)."""

    def __init__(self, path: Path):
        self.path = path
        self.where = str(path)

    def load(self) -> dict[str, Any] | None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as error:
            raise BaselineError(f"cannot read {self.path}: {error}") from None
        return _decode(text, self.where)

    def save(self, record: dict[str, Any]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(encode(record) + "\n", encoding="utf-8")
        except OSError as error:
            raise BaselineError(f"cannot write {self.path}: {error.strerror or error}") from None


class SsmBaselineStore:
    """A deployed tenant's baseline in Parameter Store (standard tier, type String)."""

    def __init__(self, ssm_client: Any, env_name: str, tenant: str):
        self.client = ssm_client
        self.name = parameter_name(env_name, tenant, QUALITY_BASELINE_KEY)
        self.where = f"SSM parameter {self.name}"

    def load(self) -> dict[str, Any] | None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            value = self.client.get_parameter(Name=self.name)["Parameter"]["Value"]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ParameterNotFound":
                return None
            raise BaselineError(f"reading {self.where} failed: {_code(error)}") from None
        except BotoCoreError as error:
            raise BaselineError(f"reading {self.where} failed: {type(error).__name__}") from None
        return _decode(value, self.where)

    def save(self, record: dict[str, Any]) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        value = encode(record)
        if len(value.encode("utf-8")) > STANDARD_TIER_BYTES:
            raise BaselineError(
                f"the baseline is {len(value.encode('utf-8'))} bytes, over the standard tier's {STANDARD_TIER_BYTES}: "
                "check fewer modes in quality.modes"
            )
        try:
            self.client.put_parameter(Name=self.name, Value=value, Type="String", Tier="Standard", Overwrite=True)
        except ClientError as error:
            raise BaselineError(f"writing {self.where} failed: {_code(error)}") from None
        except BotoCoreError as error:
            raise BaselineError(f"writing {self.where} failed: {type(error).__name__}") from None


def _code(error: Any) -> str:
    """The error code only: AWS's message names ARNs and the account (never shown: docs/security.md)."""
    return str(error.response.get("Error", {}).get("Code") or "ClientError")
