"""Least-privilege IAM policy builders: pure functions from typed inputs to policy documents.

No CDK import: the stacks attach these documents (CDK tokens pass through as opaque strings),
`akb policy` prints them for a security review with placeholders, and tests check them in
milliseconds. Every statement carries a `Sid` that says why it exists.
"""
