"""One module per sub-command of `battlesight` (`add_parser(sub, name)` and `run(args)`), listed
in `battlesight.cli.main.COMMANDS`."""
