"""Names of stacks, resources and SSM parameters, derived in one place from env and tenant."""

from __future__ import annotations


def platform_stack_name(env_name: str) -> str:
    return f"{env_name}-platform"


def tenant_stack_name(env_name: str, tenant: str) -> str:
    return f"{env_name}-{tenant}"


def resource_prefix(env_name: str, tenant: str | None = None) -> str:
    """`akb-dev-acme`: prefix of physical names, so a resource's owner is visible in the console."""
    return f"akb-{env_name}-{tenant}" if tenant else f"akb-{env_name}"


def parameter_name(env_name: str, tenant: str, key: str) -> str:
    """`/akb/<env>/<tenant>/<key>`: where `akb` commands find a deployed tenant's resources."""
    return f"/akb/{env_name}/{tenant}/{key}"


def endpoint_function_name(env_name: str, tenant: str) -> str:
    return f"{resource_prefix(env_name, tenant)}-endpoint"


def endpoint_log_group_name(env_name: str, tenant: str) -> str:
    """Lambda's default log group name for the function, so the console's "View logs" finds it."""
    return f"/aws/lambda/{endpoint_function_name(env_name, tenant)}"


def invoke_policy_name(env_name: str, tenant: str) -> str:
    return f"{resource_prefix(env_name, tenant)}-invoke"
