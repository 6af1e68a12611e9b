"""Least-privilege IAM policy builders: pure functions from typed inputs to policy-document dicts.

No CDK import here, so each builder is unit-tested in milliseconds and its output can be printed
for a security review. Inputs may be CDK tokens (they are plain strings until synth).
"""
