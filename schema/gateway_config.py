"""`gateway:` in a tenant file: the tenant's retrieval as MCP tools behind an Amazon Bedrock AgentCore Gateway.

Opt-in. The gateway's target is the managed-knowledge-base connector (AgentCore developer guide,
gateway-target-connector-managed-kb); a REQUEST interceptor applies the tenant's identity rules to
every tool call (docs/agents.md, docs/security.md "The MCP gateway").
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from schema.common import NonBlank, StrictModel, unique

# A claim name as the gateway's rate limits accept it in `$.context.jwt.<claim>` (cfn-lint schema).
CLAIM_PATTERN = r"^[a-zA-Z_][a-zA-Z0-9_\-\.]{0,61}[a-zA-Z0-9_]$"
Claim = Annotated[str, Field(pattern=CLAIM_PATTERN)]


class GatewayJwt(StrictModel):
    """CUSTOM_JWT: callers present an OAuth access token from your identity provider."""

    discovery_url: Annotated[str, Field(pattern=r"^https://.+/\.well-known/openid-configuration$")] = Field(
        description="The provider's OpenID discovery URL (ends in /.well-known/openid-configuration)."
    )
    allowed_clients: list[NonBlank] = Field(min_length=1, description="Client ids whose tokens the gateway accepts.")
    allowed_audience: list[NonBlank] | None = Field(None, description="Accepted `aud` values; default: any.")
    user_claim: Claim = Field(
        "sub", description="The claim naming the end user (userContext for user_context: caller)."
    )
    client_claim: Claim = Field("client_id", description="The claim naming the calling application.")
    trusted_clients: list[NonBlank] = Field(
        default_factory=list,
        description="Client ids that may name the end user themselves (user_context: trusted), e.g. a portal "
        "that authenticates its users; must be allowed_clients.",
    )

    @model_validator(mode="after")
    def _trusted_are_allowed(self) -> GatewayJwt:
        unique(self.allowed_clients, "allowed client")
        stray = sorted(set(self.trusted_clients) - set(self.allowed_clients))
        if stray:
            raise ValueError(f"trusted_clients {', '.join(stray)} are not in allowed_clients")
        return self


class McpGateway(StrictModel):
    """The tenant's MCP gateway (AWS::BedrockAgentCore::Gateway, GatewayTarget, GatewayRateLimit)."""

    authorizer: Literal["AWS_IAM", "CUSTOM_JWT"] = Field(
        "AWS_IAM",
        description="AWS_IAM: SigV4 callers (the tenant's invokers get InvokeGateway on this gateway); "
        "CUSTOM_JWT: OAuth tokens of your identity provider (`jwt:`).",
    )
    jwt: GatewayJwt | None = Field(None, description="Required for CUSTOM_JWT, refused for AWS_IAM.")
    retrieve_tool: bool = Field(
        False, description="Also expose Retrieve (one search, no answer), one tool per knowledge base."
    )
    requests_per_minute: int = Field(
        60, ge=1, le=100_000, description="Rate limit per caller (IAM principal or the JWT's user claim)."
    )

    @model_validator(mode="after")
    def _authorizer_matches(self) -> McpGateway:
        if self.authorizer == "CUSTOM_JWT" and self.jwt is None:
            raise ValueError("authorizer CUSTOM_JWT needs `jwt:` (discovery_url, allowed_clients)")
        if self.authorizer == "AWS_IAM" and self.jwt is not None:
            raise ValueError("`jwt:` applies to authorizer CUSTOM_JWT only; remove it or set authorizer: CUSTOM_JWT")
        return self


def check_gateway_identity(gateway: McpGateway, user_context: str) -> None:
    """The tenant-level rule (ValueError): the interceptor must be able to tell whose documents a call reads."""
    if gateway.authorizer == "AWS_IAM" and user_context != "none":
        raise ValueError(
            f"gateway.authorizer AWS_IAM cannot serve user_context: {user_context}: the gateway does not tell "
            "its interceptor which IAM principal called, so no end user can be derived; use authorizer: "
            "CUSTOM_JWT (end users' tokens) or user_context: none"
        )
    trusted = bool(gateway.jwt and gateway.jwt.trusted_clients)
    if user_context == "trusted" and not trusted:
        raise ValueError("user_context: trusted needs gateway.jwt.trusted_clients (the front ends that name users)")
    if trusted and user_context != "trusted":
        raise ValueError(f"gateway.jwt.trusted_clients is set but user_context is '{user_context}'; set trusted")
