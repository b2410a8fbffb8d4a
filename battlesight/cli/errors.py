"""Errors the command line turns into one line on stderr and exit code 2."""


class UsageError(Exception):
    """A bad argument (unknown model id, unreadable output path...): one line, exit code 2."""
