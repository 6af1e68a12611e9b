"""Local stand-ins for the AWS services the project calls (see docs/emulator.md)."""
