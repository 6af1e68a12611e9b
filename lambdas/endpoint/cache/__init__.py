"""The per-tenant result cache: exact caching that respects permissions and content versions (docs/cache.md).

The cache wraps a mode; it is not a mode. A request resolves its mode, then the cache decides hit,
miss, bypass or off around it, and the stream keeps the same contract either way. Modules: the
request's normalized text (normalize), its key (keys), what an entry holds (entry), where entries
live (store: SQLite; dynamodb_store: DynamoDB), the knowledge bases' content versions (versions),
the access re-check on a hit (acl), the decisions that tie them together (result_cache), and how
the request pipeline meets them: one wrapper around the upstream (cache_wrapper), whose hits replay
an entry as an upstream of their own (replay).
"""
