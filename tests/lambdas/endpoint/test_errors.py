"""Upstream failures mapped to stable codes and messages that tell the operator what to change."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from lambdas.endpoint.api_errors import _PERMISSION_HINT, access_denied_message, api_error_for

ROLE = "arn:aws:sts::123456789012:assumed-role/akb-dev-acme-endpoint/akb-dev-acme-endpoint"
KB = "arn:aws:bedrock:eu-west-1:123456789012:knowledge-base/KB12345678"


@pytest.mark.parametrize(
    ("upstream", "expected"),
    [
        (
            f"User: {ROLE} is not authorized to perform: bedrock:Retrieve on resource: {KB} because no "
            "identity-based policy allows the bedrock:Retrieve action",
            f"the endpoint's role is not allowed bedrock:Retrieve on {KB}; grant it in the endpoint role's policy",
        ),
        (
            f"User: {ROLE} is not authorized to perform: bedrock:AgenticRetrieveStream",
            "the endpoint's role is not allowed bedrock:AgenticRetrieveStream; grant it in the endpoint role's policy",
        ),
        ("Access denied", _PERMISSION_HINT),
        ("", _PERMISSION_HINT),
    ],
)
def test_access_denied_names_the_action_and_resource_bedrock_named(upstream, expected):
    assert access_denied_message(upstream) == expected


def test_a_client_error_carries_its_denied_action_into_the_api_error():
    error = ClientError(
        {
            "Error": {
                "Code": "AccessDeniedException",
                "Message": f"User: {ROLE} is not authorized to perform: "
                f"bedrock:InvokeModelWithResponseStream on resource: {KB}.",
            }
        },
        "AgenticRetrieveStream",
    )
    api = api_error_for(error, 1)
    assert (api.status, api.code) == (502, "upstream_access_denied")
    assert api.message.startswith(f"the endpoint's role is not allowed bedrock:InvokeModelWithResponseStream on {KB};")
