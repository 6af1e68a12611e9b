"""The stacks (one per environment platform, one per tenant) and the app builder that composes them."""
