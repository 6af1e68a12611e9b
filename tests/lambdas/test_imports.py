"""The service imports only itself and its bundled dependencies (the Lambda package has nothing else)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# lambdas/requirements.lock's packages by import name (no Starlette, anyio or their dependencies: the
# service is plain ASGI, lambdas/endpoint/http_exchange.py), and the project's two bundled packages.
BUNDLED = {
    "lambdas",
    "contract",
    "uvicorn",
    "boto3",
    "botocore",
    "urllib3",
    "h11",
    "click",
    "jmespath",
    "dateutil",
    "s3transfer",
    "six",
}
PROJECT_PACKAGES = {
    "schema",
    "stacks",
    "cdk_constructs",
    "monitoring",
    "client",
    "local",
    "policies",
    "aws_cdk",
    "constructs",
    "jsii",
    "tests",
}


def test_the_service_and_a_request_import_nothing_from_the_rest_of_the_project():
    code = """
import json, sys
before = set(sys.modules)
import uvicorn
from lambdas.endpoint import asgi_app, filters, identity, relay, request_pipeline, translate
from lambdas.endpoint import api_errors as errors
from lambdas.endpoint import request_metrics as metrics
from lambdas.endpoint.modes import agentic
from lambdas.endpoint.logs import logger
logger()
metrics.documents("t", metrics.RequestOutcome("c", 1, "x"))
errors.classify(OSError())
print(json.dumps(sorted({m.split(".")[0] for m in set(sys.modules) - before})))
"""
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO), "PATH": ""},
    )
    top_level = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert not top_level & PROJECT_PACKAGES
    stdlib = set(sys.stdlib_module_names) | {"_" + name for name in sys.stdlib_module_names}
    assert top_level - stdlib - BUNDLED - {m for m in top_level if m.startswith("_")} == set()
