"""External security scanning of the synthesized templates (checkov), run by `make scan`."""
