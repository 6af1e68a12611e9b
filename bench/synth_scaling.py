"""Synth time and template size for N generated tenants (issue 2, item 9).

    PYTHONPATH=. python bench/synth_scaling.py 1 10 50

Each N: copies config/, writes N tenants (copies of acme.yaml, t001..tNNN) into the dev
environment, and times an in-process synth (CDK app + cdk-nag, like `cdk synth`) in a fresh
process so jsii starts cold each time. The endpoint package is bundled once (cached in .build/).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent

_CHILD = """
import json, sys, time
started = time.perf_counter()
import aws_cdk as cdk
from schema import load_project
from stacks.app_builder import build_app
from stacks.cdk_context import cdk_json_context
imported = time.perf_counter()
project = load_project(sys.argv[1], "dev")
app = cdk.App(outdir=sys.argv[2], context=cdk_json_context())
build_app(app, project)
built = time.perf_counter()
app.synth()
done = time.perf_counter()
print(json.dumps({"import": imported - started, "build": built - imported, "synth": done - built}))
"""


def generate(config_dir: Path, count: int) -> None:
    shutil.copytree(REPO / "config", config_dir)
    env_file = config_dir / "environments" / "dev.yaml"
    environment = yaml.safe_load(env_file.read_text())
    names = [f"t{index:03d}" for index in range(1, count + 1)]
    environment["tenants"] = names
    env_file.write_text(yaml.safe_dump(environment, sort_keys=False))
    template = (config_dir / "tenants" / "acme.yaml").read_text()
    for name in names:
        (config_dir / "tenants" / f"{name}.yaml").write_text(template)


def run(count: int) -> dict:
    with tempfile.TemporaryDirectory() as work:
        config_dir, outdir = Path(work) / "config", Path(work) / "cdk.out"
        generate(config_dir, count)
        started = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-c", _CHILD, str(config_dir), str(outdir)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONPATH": str(REPO), "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20"},
        )
        wall = time.perf_counter() - started
        phases = json.loads(result.stdout.strip().splitlines()[-1])
        templates = list(outdir.glob("*.template.json"))
        tenant_templates = [path for path in templates if not path.name.startswith("dev-platform")]
        sizes = [path.stat().st_size for path in tenant_templates]
        resources = [len(json.loads(path.read_text())["Resources"]) for path in tenant_templates]
        total_kb = sum(path.stat().st_size for path in templates) / 1e3
        return {
            "tenants": count,
            "wall": wall,
            **phases,
            "total_kb": total_kb,
            "tenant_kb": max(sizes) / 1e3,
            "resources": max(resources),
        }


def main(counts: list[int]) -> None:
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(
        "| tenants | wall s | import s | build s | synth s (incl. cdk-nag) | all templates KB "
        "| one tenant template KB | resources per tenant |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for count in counts:
        r = run(count)
        print(
            f"| {r['tenants']} | {r['wall']:.1f} | {r['import']:.1f} | {r['build']:.1f} | {r['synth']:.1f} | "
            f"{r['total_kb']:.0f} | {r['tenant_kb']:.1f} | {r['resources']} |",
            flush=True,
        )


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [1, 10, 50])
