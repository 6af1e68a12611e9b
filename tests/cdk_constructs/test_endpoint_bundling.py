"""The endpoint's deployment package in cdk.out: our code, aarch64 wheels, a boto3 with the agentic API."""

from __future__ import annotations

import gzip
import json
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from cdk_constructs.endpoint_bundling import KEEP_BOTOCORE_SERVICES, REPO_ROOT, package_sources
from contract.resource_names import tenant_stack_name

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]

ELF_MACHINE_AARCH64 = 0xB7


@pytest.fixture(scope="module")
def asset(synthesized) -> Path:
    template = synthesized.template(tenant_stack_name(synthesized.project.env_name, "acme"))
    (function,) = [
        r["Properties"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::Lambda::Function" and r["Properties"].get("Handler") == "lambdas/run.sh"
    ]
    asset_hash = function["Code"]["S3Key"].removesuffix(".zip")
    directory = synthesized.outdir / f"asset.{asset_hash}"
    assert directory.is_dir()
    return directory


def _locked_version(package: str) -> str:
    lock = (REPO_ROOT / "lambdas" / "requirements.lock").read_text()
    return re.search(rf"^{package}==(\S+)$", lock, re.MULTILINE).group(1)


def test_the_service_code_and_an_executable_run_sh_are_in_the_package(asset):
    for source in package_sources():
        assert (asset / source.relative_to(REPO_ROOT)).is_file(), source
    assert (asset / "contract" / "settings.py").is_file()  # the contract travels with the service
    assert (asset / "lambdas" / "endpoint" / "asgi_app.py").is_file()  # what run.sh serves
    assert (asset / "lambdas" / "endpoint" / "serve.py").is_file()  # and how it starts it
    assert "lambdas.endpoint.serve:app_from_environment" in (asset / "lambdas" / "run.sh").read_text()
    assert os.access(asset / "lambdas" / "run.sh", os.X_OK)


def test_no_tests_caches_or_build_host_scripts_in_the_package(asset):
    assert not list(asset.rglob("__pycache__")) and not list(asset.rglob("*.pyc"))
    assert not (asset / "lambdas" / "tests").exists() and not (asset / "tests").exists()
    assert not (asset / "bin").exists()


def test_botocore_is_the_locked_version_and_has_agentic_retrieve_stream(asset):
    init = (asset / "botocore" / "__init__.py").read_text()
    assert f"__version__ = '{_locked_version('botocore')}'" in init
    (model_file,) = (asset / "botocore" / "data" / "bedrock-agent-runtime").glob("*/service-2.json*")
    raw = model_file.read_bytes()
    model = json.loads(gzip.decompress(raw) if model_file.suffix == ".gz" else raw)
    assert "AgenticRetrieveStream" in model["operations"]


def test_the_bundled_boto3_creates_a_client_with_agentic_retrieve_stream(asset):
    # Pure-Python packages of the bundle, imported by this interpreter with the bundle first on the path.
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import boto3, botocore;"
        "assert botocore.__file__.startswith(sys.argv[1]), botocore.__file__;"
        "c = boto3.client('bedrock-agent-runtime', region_name='us-west-2', aws_access_key_id='x',"
        " aws_secret_access_key='x'); print(hasattr(c, 'agentic_retrieve_stream'))"
    )
    result = subprocess.run([sys.executable, "-I", "-c", code, str(asset)], capture_output=True, text=True, check=False)
    assert result.stdout.strip() == "True", result.stderr


def test_botocore_models_are_pruned_to_the_kept_services(asset):
    kept = {path.name for path in (asset / "botocore" / "data").iterdir() if path.is_dir()}
    assert kept == set(KEEP_BOTOCORE_SERVICES)


def test_every_boto3_client_the_service_creates_keeps_its_model():
    pattern = re.compile(r"""(?:\b|lazy_)client\(\s*["']([a-z0-9-]+)["']""")
    assert pattern.findall('boto3.client("bedrock-agent-runtime", config=c)') == ["bedrock-agent-runtime"]
    assert pattern.findall('lazy_client("dynamodb", CONFIG)') == ["dynamodb"]
    used = {
        name for source in package_sources() if source.suffix == ".py" for name in pattern.findall(source.read_text())
    }
    assert used <= set(KEEP_BOTOCORE_SERVICES), f"add {used - set(KEEP_BOTOCORE_SERVICES)} to KEEP_BOTOCORE_SERVICES"


def test_every_wheel_is_pure_or_built_for_aarch64(asset):
    """No bundled dependency is native since pydantic left the package; one that comes back must be aarch64."""
    tags = [
        line.split(":", 1)[1].strip()
        for wheel in asset.glob("*.dist-info/WHEEL")
        for line in wheel.read_text().splitlines()
        if line.startswith("Tag:")
    ]
    assert tags and all(tag.endswith("-any") or "aarch64" in tag for tag in tags), tags
    for shared_object in asset.rglob("*.so"):
        header = shared_object.read_bytes()[:20]
        assert header[:4] == b"\x7fELF", shared_object
        (machine,) = struct.unpack("<H", header[18:20])
        assert machine == ELF_MACHINE_AARCH64, shared_object
