"""CDK constructs, one module per resource family. Not named `constructs`: that is the CDK's own package."""
