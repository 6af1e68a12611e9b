"""CDK constructs (one file per resource family) and the stacks that compose them."""
