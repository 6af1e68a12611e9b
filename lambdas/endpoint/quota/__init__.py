"""Fair share of the account's AgenticRetrieveStream quota across tenants (docs/quota.md).

A token bucket per tenant (its guarantee, and its borrowing up to its burst limit) plus the account's
shared bucket, kept in one store every endpoint of the environment uses: DynamoDB in AWS
(dynamodb_buckets.py), SQLite under `akb local` (sqlite_buckets.py). fair_share.py decides, the
pipeline wrapper (quota_wrapper.py) applies the decision to a request. Loaded only for tenants whose
settings carry `quota` (lambdas/endpoint/asgi_app.py).
"""
