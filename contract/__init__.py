"""The project's contract: what every layer agrees on, defined once.

The tenant settings the endpoint receives, the enumerations (modes, user-context modes, stop
reasons, cache outcomes, error codes), the endpoint's environment variables and the one function
that builds them, the stream's events and the request body, metric names, log fields and resource
names. The Lambda code, the constructs, monitoring, policies, the client and the emulator import
it; it imports none of them, nor aws_cdk, starlette or boto3 (tests/contract/test_contract_imports.py),
so it is bundled into every function as it is.
"""
