"""Problems found in a scene file, and the exception that carries them."""

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import ClassVar

from .limits import MAX_MESSAGE, shorten

#: characters of a key path shown in a problem's line, so that a very long key (a misspelt
#: one pasted whole) leaves room for the message that says what is wrong
MAX_KEY_SHOWN = 120


@dataclass(frozen=True)
class SceneProblem:
    """One problem: where it is (file, 1-based line, key path) and what is wrong.

    ``str()`` gives one line: ``FILE:LINE: KEY: message`` (``FILE: KEY: message`` when the
    line is unknown, e.g. for scenes built from a dict), at most ``limits.MAX_MESSAGE``
    characters; the file and the key are cut first (to ``MAX_KEY_SHOWN`` each), so the
    message always shows. ``level`` is "error" (a warning: ``keys.SceneWarning``).
    """

    file: str
    line: int | None
    key: str
    message: str

    level: ClassVar[str] = "error"

    def __str__(self) -> str:
        file = shorten(self.file, MAX_KEY_SHOWN)
        where = file if self.line is None else f"{file}:{self.line}"
        key = shorten(self.key, MAX_KEY_SHOWN)
        text = f"{where}: {key}: {self.message}" if key else f"{where}: {self.message}"
        return shorten(text, MAX_MESSAGE)

    def to_dict(self) -> dict[str, str | int | None]:
        """The problem as `validate --json` prints it: file, line, key, level, message."""
        return {"file": self.file, "line": self.line, "key": self.key, "level": self.level,
                "message": self.message}


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
