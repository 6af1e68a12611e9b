"""The tenant MCP gateway's REQUEST interceptor: the endpoint's identity rules at the gateway door."""
