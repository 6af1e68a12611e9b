"""A DynamoDB-compatible server for tests: moto in server mode on 127.0.0.1 (a free port), real boto3 calls.

moto stands in for DynamoDB because no AWS account is reachable here (a test double, named as such):
code under test runs through the real boto3 client and botocore's wire protocol against it.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Iterator
from typing import Any

from contract.resource_names import QUOTA_PARTITION_KEY


@contextlib.contextmanager
def moto_server() -> Iterator[str]:
    """moto's server on 127.0.0.1 (a free port) until the block ends; yields its URL."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{server._server.server_port}"
    finally:
        server.stop()


def dynamodb_client(url: str) -> Any:
    import boto3

    return boto3.client(
        "dynamodb",
        endpoint_url=url,
        region_name="us-west-2",
        aws_access_key_id="x",
        aws_secret_access_key="x",  # the local test server checks no signature
    )


def create_quota_table(client: Any) -> str:
    """A new table shaped like the stack's quota table (cdk_constructs/quota_table.py); returns its name."""
    name = f"akb-test-{uuid.uuid4().hex[:8]}-quota"
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": QUOTA_PARTITION_KEY, "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": QUOTA_PARTITION_KEY, "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    return name
