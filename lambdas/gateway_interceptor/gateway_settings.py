"""What the interceptor knows about its tenant, delivered at deploy time in one environment variable.

`cdk_constructs/mcp_gateway.py` writes `AKB_GATEWAY_SETTINGS` (JSON); the interceptor reads it once
per container. Nothing here is secret: identities of trusted callers, tool names, caps.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Literal

from contract.env_vars import GATEWAY_SETTINGS

ENV_VAR = GATEWAY_SETTINGS
AGENTIC = "AgenticRetrieveStream"
RETRIEVE = "Retrieve"
Authorizer = Literal["AWS_IAM", "CUSTOM_JWT"]


@dataclass(frozen=True)
class GatewaySettings:
    tenant: str
    environment: str
    authorizer: Authorizer
    user_context: str  # none | caller | trusted (schema.tenant.Tenant.user_context)
    tools: dict[str, str]  # MCP tool name `<target>___<tool>` -> connector tool (AGENTIC | RETRIEVE)
    max_results: int  # cap of Retrieve's numberOfResults (the tenant's retrieval.max_results)
    max_agent_iteration: int  # fixed on the target; named in refusals
    trusted_callers: list[str] = field(default_factory=list)  # JWT: client ids; IAM: role ARNs
    user_claim: str = "sub"
    client_claim: str = "client_id"

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> GatewaySettings:
        return cls(**json.loads(text))

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> GatewaySettings:
        text = environ.get(ENV_VAR)
        if not text:
            raise RuntimeError(f"{ENV_VAR} is not set: the interceptor does not know its tenant")
        return cls.from_json(text)
