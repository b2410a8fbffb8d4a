"""Problems found in a scene file, and the exception that carries them."""

from __future__ import annotations

import errno
from dataclasses import dataclass

from .limits import MAX_MESSAGE, shorten


@dataclass(frozen=True)
class SceneProblem:
    """One problem: where it is (file, 1-based line, key path) and what is wrong.

    ``str()`` gives one line: ``FILE:LINE: KEY: message`` (``FILE: KEY: message`` when the
    line is unknown, e.g. for scenes built from a dict), at most ``limits.MAX_MESSAGE``
    characters.
    """

    file: str
    line: int | None
    key: str
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        text = f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"
        return shorten(text, MAX_MESSAGE)


class SceneError(Exception):
    """A scene that could not be loaded; ``.problems`` lists every problem found."""

    def __init__(self, problems: list[SceneProblem]):
        if not problems:
            raise ValueError("SceneError needs at least one problem")
        self.problems = list(problems)
        super().__init__(str(self.problems[0]))

    def __str__(self) -> str:
        return str(self.problems[0])

    def report(self) -> str:
        """All problems, one per line."""
        return "\n".join(str(p) for p in self.problems)


class SceneBuildError(SceneError):
    """A scene that passed the format checks but that a builder or a ruleset could not use: the
    command line reports it like any other scene error (one line each, exit code 2)."""


class SceneFileNotFound(SceneError, FileNotFoundError):
    """A scene file that is not there: a SceneError (one line, exit 2 on the command line) and
    a FileNotFoundError, for callers that catch the standard one (`errno`, `filename` set)."""

    def __init__(self, problems: list[SceneProblem]):
        super().__init__(problems)
        self.errno = errno.ENOENT
        self.strerror = "No such file or directory"
        self.filename = self.problems[0].file
