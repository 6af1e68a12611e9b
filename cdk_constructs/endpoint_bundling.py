"""Builds the endpoint's deployment package without Docker: pip for the target platform, plus `lambdas/`.

`Code.from_asset(..., bundling=BundlingOptions(image=..., local=PipBundling(...)))`: CDK calls
`try_bundle` first and only falls back to the Docker image if it returns False, which it never does,
so the image is named (CDK requires one) but never pulled. pip downloads manylinux aarch64 wheels
for the Lambda runtime's Python (`--only-binary=:all:`: nothing is compiled on the build machine),
into a cache under `.build/` keyed by the lock file, so synth hits PyPI once per lock, not per synth.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import aws_cdk as cdk
import jsii
from aws_cdk import aws_lambda as lambda_

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = "lambdas"
# The service's own packages: lambdas/ and the contract it shares with the rest of the project.
PACKAGE_DIRS = (PACKAGE_DIR, "contract")
PACKAGE_FILES = ("*.py", "run.sh")
# botocore ships models for ~450 services (about half the package); the endpoint calls one. Only
# these keep their models (tests/cdk_constructs/test_endpoint_bundling.py checks every boto3 client the code creates).
# bedrock-agent (ingestion jobs) and dynamodb (the table) serve the result cache (lambdas/endpoint/cache/).
KEEP_BOTOCORE_SERVICES = ("bedrock-agent-runtime", "bedrock-agent", "dynamodb", "sts")
# Bump when the bundle's layout changes, so cached assets are rebuilt.
BUNDLER_VERSION = "2"


@dataclass(frozen=True)
class Target:
    """The Lambda platform the wheels must match."""

    runtime: lambda_.Runtime
    pip_platform: str = "manylinux2014_aarch64"

    @property
    def python_version(self) -> str:
        return self.runtime.name.removeprefix("python")  # "python3.14" -> "3.14"


def package_sources(repo_root: Path = REPO_ROOT) -> list[Path]:
    """The service's own files: .py and run.sh under lambdas/ and contract/, never tests or caches."""
    files = {
        path for folder in PACKAGE_DIRS for pattern in PACKAGE_FILES for path in (repo_root / folder).rglob(pattern)
    }
    return sorted(path for path in files if "__pycache__" not in path.parts and "tests" not in path.parts)


def _sha256(*chunks: bytes) -> str:
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(len(chunk).to_bytes(8, "big"))
        digest.update(chunk)
    return digest.hexdigest()


@jsii.implements(cdk.ILocalBundling)
class PipBundling:
    """Local bundling: cached `pip install --target` of the lock file, then a copy of `lambdas/`."""

    def __init__(self, target: Target, *, repo_root: Path = REPO_ROOT, prune_botocore: bool = True):
        self.target = target
        self.repo_root = repo_root
        self.lock_file = repo_root / PACKAGE_DIR / "requirements.lock"
        self.prune_botocore = prune_botocore

    @property
    def dependencies_key(self) -> str:
        return _sha256(
            self.lock_file.read_bytes(),
            self.target.python_version.encode(),
            self.target.pip_platform.encode(),
            str(self.prune_botocore).encode(),
            BUNDLER_VERSION.encode(),
        )

    def asset_hash(self) -> str:
        """Changes when the lock, the target or any bundled source file changes (AssetHashType.CUSTOM)."""
        sources = package_sources(self.repo_root)
        return _sha256(
            self.dependencies_key.encode(),
            *(str(path.relative_to(self.repo_root)).encode() + b"\0" + path.read_bytes() for path in sources),
        )

    def try_bundle(self, output_dir: str, *_options: object, **_keyword_options: object) -> bool:
        # jsii passes the BundlingOptions struct positionally or as keywords depending on version; unused.
        out = Path(output_dir)
        shutil.copytree(self.dependencies(), out, dirs_exist_ok=True, symlinks=True)
        for source in package_sources(self.repo_root):
            destination = out / source.relative_to(self.repo_root)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)  # copy2 keeps run.sh executable
        return True

    def dependencies(self) -> Path:
        """`.build/lambda-deps-<key>/`: built once per lock file (first synth on a fresh clone downloads)."""
        cache = self.repo_root / ".build" / f"lambda-deps-{self.dependencies_key[:16]}"
        if cache.is_dir():
            return cache
        cache.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix="lambda-deps-", dir=cache.parent))
        staging.chmod(0o755)  # mkdtemp makes 0700; Lambda runs the code as another user
        try:
            self._pip_install(staging)
            if self.prune_botocore:
                prune_botocore_data(staging, KEEP_BOTOCORE_SERVICES)
            shutil.rmtree(staging / "bin", ignore_errors=True)  # console scripts pointing at the build host's python
            try:
                staging.rename(cache)  # atomic: a parallel synth either wins or finds the finished cache
            except OSError:
                if not cache.is_dir():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return cache

    def _pip_install(self, target_dir: Path) -> None:
        command = [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-compile",
            "--target",
            str(target_dir),
            "--platform",
            self.target.pip_platform,
            "--implementation",
            "cp",
            "--python-version",
            self.target.python_version,
            "--only-binary=:all:",
            "-r",
            str(self.lock_file),
        ]
        result = subprocess.run(
            command, capture_output=True, text=True, check=False, env={**os.environ, "PIP_NO_INPUT": "1"}
        )
        if result.returncode != 0:
            raise RuntimeError(
                f"bundling the endpoint: pip could not install {self.lock_file} for "
                f"{self.target.pip_platform}/Python {self.target.python_version} (needs PyPI on the first "
                f"synth; later synths use .build/):\n{result.stderr.strip()[-2000:]}"
            )


def prune_botocore_data(site: Path, keep: tuple[str, ...]) -> int:
    """Deletes botocore's models of services the endpoint never calls; returns how many were removed."""
    data = site / "botocore" / "data"
    removed = 0
    for entry in data.iterdir() if data.is_dir() else ():
        if entry.is_dir() and entry.name not in keep:
            shutil.rmtree(entry)
            removed += 1
    return removed


def endpoint_code(runtime: lambda_.Runtime, *, repo_root: Path = REPO_ROOT) -> lambda_.Code:
    """The endpoint package as a Lambda asset, bundled locally (never Docker)."""
    bundler = PipBundling(Target(runtime), repo_root=repo_root)
    return lambda_.Code.from_asset(
        str(repo_root / PACKAGE_DIR),
        asset_hash_type=cdk.AssetHashType.CUSTOM,
        asset_hash=bundler.asset_hash(),
        bundling=cdk.BundlingOptions(
            image=runtime.bundling_image,  # required by CDK; never pulled, local bundling always succeeds
            local=bundler,
        ),
    )
