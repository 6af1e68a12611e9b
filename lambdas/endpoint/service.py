"""What every request of the process shares: the tenant, the mode of trust, the clients, the wrappers.

Built once at start-up (asgi_app.service_from_environment; tests and `akb local` build their own).
`wrappers` is the pipeline's extension point (upstream_chain.py): each one wraps the upstream of
every request, the first outermost. The tenant's result cache is one of them, added here when the
tenant has one, so the pipeline itself never knows whether a cache exists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from contract.enums import USER_CONTEXT_MODES
from contract.settings import TenantSettings
from lambdas.endpoint import identity
from lambdas.endpoint import request_metrics as metrics
from lambdas.endpoint.page_tokens import PageTokens
from lambdas.endpoint.retry import Backoff
from lambdas.endpoint.upstream import shared_client

if TYPE_CHECKING:  # the cache's modules load only for tenants with a cache (cold start: bench/RESULTS.md)
    from lambdas.endpoint.cache.result_cache import ResultCache
    from lambdas.endpoint.upstream_chain import UpstreamWrapper


@dataclass
class Service:
    settings: TenantSettings
    local_mode: bool = False
    local_caller_arn: str | None = None
    # The request-context shapes of this function's front doors (identity.py; AKB_REQUEST_CONTEXTS).
    request_contexts: tuple[str, ...] = identity.DEFAULT_REQUEST_CONTEXTS
    client_factory: Callable[[], Any] = shared_client
    write_metrics: Callable[[str], None] = metrics.write_stdout
    backoff: Backoff = field(default_factory=Backoff)
    cache: ResultCache | None = None  # the tenant's result cache (cache/), None when it is off
    # A client gets this long to send the whole body once its request head is in (the head has its
    # own bound: http_timeouts.py); a stalled upload holds nothing longer. 408 `body_timeout`.
    body_timeout_seconds: float = 10.0
    # Around every request's upstream, the first outermost (the cache's, when on, comes first).
    wrappers: list[UpstreamWrapper] = field(default_factory=list)
    # Seals done.nextToken to its request (page_tokens.py); the function's key comes from its environment.
    page_tokens: PageTokens = field(default_factory=PageTokens.random)

    def __post_init__(self) -> None:
        if self.settings.user_context not in USER_CONTEXT_MODES:
            raise ValueError(f"user_context '{self.settings.user_context}' is not one of {USER_CONTEXT_MODES}")
        self.alias_of = {r.knowledge_base_id: r.alias for r in self.settings.retrievers}
        if self.cache is not None:
            from lambdas.endpoint.cache.cache_wrapper import CacheWrapper  # only tenants with a cache

            self.wrappers = [CacheWrapper(self.cache), *self.wrappers]
