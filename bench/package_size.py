"""Deployment package size of the endpoint: unzipped and zipped, with and without botocore pruning.

    PYTHONPATH=. python bench/package_size.py

Builds the package exactly as synth does (cdk_constructs/endpoint_bundling.py, pip for manylinux2014_aarch64), into
temporary directories; the first run downloads wheels from PyPI, later runs use .build/.
"""

from __future__ import annotations

import io
import os
import platform
import tempfile
import time
import zipfile
from pathlib import Path

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from cdk_constructs.endpoint_bundling import PipBundling, Target  # after the variable jsii reads at import
from cdk_constructs.streaming_endpoint import RUNTIME

LAMBDA_ZIP_LIMIT_MB = (
    50  # direct upload; 250 MB unzipped (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html)
)


def measure(prune: bool) -> tuple[int, int, int]:
    bundler = PipBundling(Target(RUNTIME), prune_botocore=prune)
    with tempfile.TemporaryDirectory() as out:
        bundler.try_bundle(out)
        files = [path for path in Path(out).rglob("*") if path.is_file()]
        unzipped = sum(path.stat().st_size for path in files)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in files:
                archive.write(path, path.relative_to(out))
        return unzipped, len(buffer.getvalue()), len(files)


def main() -> None:
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"target: {RUNTIME.name} arm64")
    print("| botocore models | files | unzipped MB | zipped MB |")
    print("|---|---|---|---|")
    for prune in (False, True):
        started = time.perf_counter()
        unzipped, zipped, count = measure(prune)
        label = "pruned to the kept services" if prune else "all services"
        print(
            f"| {label} | {count} | {unzipped / 1e6:.1f} | {zipped / 1e6:.1f} |"
            f"  <!-- {time.perf_counter() - started:.1f}s -->"
        )


if __name__ == "__main__":
    main()
