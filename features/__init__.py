"""The tenant-feature registry and what a tenant's config means for its endpoint (CDK-free at import)."""
