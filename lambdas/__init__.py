"""Code that runs inside Lambda. Nothing here may import aws-cdk-lib."""
