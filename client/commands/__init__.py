"""One module per `akb` subcommand, each exposing `command` (a click command)."""
