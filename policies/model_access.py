"""Statements that let a role call one Bedrock model, whether named directly or via an inference profile.

A cross-region inference profile routes a request to the model in any region of its geography, so
IAM evaluates the profile ARN *and* the foundation-model ARN in the destination region. AWS's
pattern (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-prereq.html):
allow the profile, and allow `arn:<partition>:bedrock:*::foundation-model/<model id>` only when the
call comes through that profile (condition `bedrock:InferenceProfileArn`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from policies.document import Statement, allow

# Geography prefixes of system-defined cross-region inference profile ids (`us.amazon.nova-lite-v1:0`).
GEO_PREFIXES = ("us", "us-gov", "eu", "apac", "jp", "au", "ca", "global")


@dataclass(frozen=True)
class ModelArn:
    """The parts of a Bedrock model ARN that decide which statements it needs."""

    arn: str
    partition: str
    resource_type: str  # foundation-model | inference-profile | application-inference-profile | ...
    resource_id: str

    @property
    def foundation_model_id(self) -> str | None:
        """The model behind a system-defined profile (`us.amazon.nova-lite-v1:0` -> `amazon.nova-lite-v1:0`)."""
        if self.resource_type == "foundation-model":
            return self.resource_id
        if self.resource_type == "inference-profile":
            prefix, _, rest = self.resource_id.partition(".")
            return rest if prefix in GEO_PREFIXES and rest else self.resource_id
        return None  # an application inference profile does not name its model in the ARN


def parse_model_arn(arn: str) -> ModelArn:
    parts = arn.split(":", 5)
    if len(parts) != 6 or parts[0] != "arn" or parts[2] != "bedrock" or "/" not in parts[5]:
        raise ValueError(f"'{arn}' is not a Bedrock model or inference profile ARN")
    resource_type, _, resource_id = parts[5].partition("/")
    return ModelArn(arn=arn, partition=parts[1], resource_type=resource_type, resource_id=resource_id)


def model_statements(sid: str, actions: Sequence[str], model_arn: str) -> list[Statement]:
    """`actions` on one model; through a profile, the profile plus its model(s) narrowed to that profile."""
    model = parse_model_arn(model_arn)
    if model.resource_type not in ("inference-profile", "application-inference-profile"):
        return [allow(sid, actions, model.arn)]
    model_id = model.foundation_model_id
    # Any region: the profile decides where the request runs; the condition pins it to this profile.
    target = f"arn:{model.partition}:bedrock:*::foundation-model/{model_id or '*'}"
    return [
        allow(f"{sid}Profile", actions, model.arn),
        allow(
            f"{sid}ThroughProfile",
            actions,
            target,
            condition={"StringEquals": {"bedrock:InferenceProfileArn": model.arn}},
        ),
    ]
