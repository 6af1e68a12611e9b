"""A variant of the example dev config with every front door combination, one tenant each.

- acme: api_gateway with custom_domain (+ Route 53 alias), web_acl_arn, vpc and snapstart;
- globex: api_gateway, private (two VPC endpoints), keep_function_url (migration);
- initech (a copy of globex's file): api_gateway with no option at all;
- umbrella (a copy of globex's file): function_url with snapstart.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from tests.conftest import EXAMPLE_CONFIG

CERTIFICATE = "arn:aws:acm:us-west-2:123456789012:certificate/11111111-2222-3333-4444-555555555555"
WEB_ACL = "arn:aws:wafv2:us-west-2:123456789012:regional/webacl/akb/11111111-2222-3333-4444-555555555555"
VPC_ENDPOINTS = ["vpce-0123456789abcdef0", "vpce-0fedcba9876543210"]
SUBNETS = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
SECURITY_GROUPS = ["sg-0123456789abcdef0"]

OVERRIDES = {
    "acme": {
        "front_door": "api_gateway",
        "api_gateway": {
            "throttling": {"rate_limit": 5, "burst_limit": 10},
            "custom_domain": {
                "domain_name": "search.acme.example.com",
                "certificate_arn": CERTIFICATE,
                "hosted_zone_id": "Z0123456789ABCDEFGHIJ",
                "hosted_zone_name": "acme.example.com",
            },
            "web_acl_arn": WEB_ACL,
        },
        "vpc": {"subnet_ids": SUBNETS, "security_group_ids": SECURITY_GROUPS},
        "snapstart": True,
    },
    "globex": {
        "front_door": "api_gateway",
        "api_gateway": {"private": {"vpc_endpoint_ids": VPC_ENDPOINTS}, "keep_function_url": True},
    },
    "initech": {"front_door": "api_gateway"},
    "umbrella": {"snapstart": True},
}


def _tenant_file(config: Path, name: str, source: str) -> None:
    data = yaml.safe_load((config / "tenants" / f"{source}.yaml").read_text())
    data["endpoint"] = OVERRIDES[name]
    if name != source:  # a copy must not name another tenant's bucket; the example's sources are prefixes
        data["description"] = f"{name} (front door test copy of {source})"
        for knowledge_base in data["knowledge_bases"]:  # nor its connector secret: one owner per secret
            for item in knowledge_base["sources"]:
                if "secret_arn" in item:
                    item["secret_arn"] = item["secret_arn"].replace(f":secret:{source}-", f":secret:{name}-")
    (config / "tenants" / f"{name}.yaml").write_text(yaml.safe_dump(data, sort_keys=False))


def front_door_config(root: Path) -> Path:
    config = root / "config"
    shutil.copytree(EXAMPLE_CONFIG, config)
    env_file = config / "environments" / "dev.yaml"
    environment = yaml.safe_load(env_file.read_text())
    environment["tenants"] = list(OVERRIDES)
    env_file.write_text(yaml.safe_dump(environment, sort_keys=False))
    for name, source in (("acme", "acme"), ("globex", "globex"), ("initech", "globex"), ("umbrella", "globex")):
        _tenant_file(config, name, source)
    return config
