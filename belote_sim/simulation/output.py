"""The output discipline shared by every writer of the package.

``simulate`` (deals and ``--games``), ``atlas build``, ``atlas page``, ``atlas show
--csv/--parquet``, ``study -o``, ``export-replay -o``, ``report -o`` (a folder or
``--single-file``) and ``dataset rebuild-manifest`` write their output through ``Output``:

1. **Checks before the work**: the output's folder exists (it is never created: a
   mistyped path is refused, not made) and is writable, the output
   is of the right kind (a file, or a folder), an existing output is refused unless
   ``overwrite`` (before anything is computed), and ``Output.check_space`` refuses a
   run whose estimated output does not fit on the disk.
2. **A lock per output**, ``.NAME.lock`` beside it (``safe_io.run_lock``): a second
   run on the same output is refused with a line naming the holder; a dead run's lock
   is taken over.
3. **A temporary name unique to the run**, ``.NAME.tmp-PID-RANDOM`` (``Output.tmp``):
   two runs never write the same file, and leftovers of dead runs on this output are
   deleted when the next run takes the lock.
4. **The final name only when complete**: ``Output.commit`` fsyncs the temporary and
   renames it over ``NAME`` (a folder: swaps it in) with SIGINT and SIGTERM held back,
   so that a signal during the rename finishes it first.  An existing output is
   replaced only then: an interrupted ``--overwrite`` run leaves it whole.
5. **No leftovers**: leaving the block without a commit deletes the temporary.
6. **One line on an interruption**: a ``KeyboardInterrupt`` (Ctrl-C, or SIGTERM as the
   command line turns it into one) leaving the block becomes ``RunInterrupted``, whose
   text says what is on disk (``NAME`` untouched, not created, or complete when the
   signal came after the rename); the command line prints it and exits 130 (SIGINT) or
   143 (SIGTERM).  A writer that keeps more (``simulate``'s resumable ``.NAME.partial``)
   raises its own ``RunInterrupted``, which passes through unchanged.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from belote_sim.simulation.safe_io import (
    TEMP_MARK,
    fsync_dir,
    fsync_file,
    human_bytes,
    run_lock,
    signals_deferred,
)

__all__ = [
    "Output",
    "RunInterrupted",
    "WriteFailed",
    "check_destination",
    "check_space",
    "remove_path",
]


#: the errors of a disk (or quota) that is full
_DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (or SIGTERM turned into ``KeyboardInterrupt``) after it
    put its output in order; ``str()`` says what is on disk and what to run next."""


class WriteFailed(OSError):
    """An ``OSError`` while writing an output (a full disk, ...), raised again once the
    writer has put its files in order; ``str()`` says what is on disk and what to do.
    ``errno`` is the cause's."""

    def __init__(self, cause: OSError, message: str):
        super().__init__(cause.errno, message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def check_destination(path: str, folder: bool = False, hint: str = "") -> str:
    """The absolute folder that will hold the output ``path``; ``ValueError`` when it
    does not exist or is not writable, or when ``path`` is of the wrong kind (a folder
    given as a file; a file given as a folder).  ``hint`` is added to the first."""
    path = os.path.abspath(path)
    directory = os.path.dirname(path)
    if not folder and os.path.isdir(path):
        raise ValueError(f"{path} is a directory: give a file name{hint}")
    if folder and os.path.lexists(path) and not os.path.isdir(path):
        raise ValueError(f"{path} is a file: give a directory")
    if not os.path.isdir(directory):
        raise ValueError(f"{directory}: no such directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ValueError(f"{directory}: not writable (permission denied or read-only)")
    return directory


def check_space(directory: str, need: int, what: str) -> None:
    """``ValueError`` if the disk of ``directory`` has less free space than ``need``
    bytes (``what`` names what needs them: "5,000,000 deals", "the atlas")."""
    try:
        free = shutil.disk_usage(directory or ".").free
    except OSError:
        return
    if need > free:
        raise ValueError(
            f"{what} need about {human_bytes(need)} on disk, only {human_bytes(free)} "
            f"free in {os.path.abspath(directory or '.')}"
        )


def remove_path(path: str) -> None:
    """Delete a file or a folder tree; nothing if it is not there."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


class Output:
    """One output of a run under the discipline of the module docstring.

    ::

        with Output("sweep.csv", what="the table", overwrite=overwrite) as out:
            table = compute()            # after the checks, under the lock
            table.to_csv(out.tmp)        # write the temporary
            out.commit()                 # the final name, only now

    Parameters
    ----------
    what : what is written, for messages ("the table", "the report").
    overwrite : replace an existing output (at the commit); without it an existing one
        is refused on entering the block.  ``exists_ok``: let the caller decide.
    folder : the output is a folder (written as the temporary folder ``out.tmp``).
    need : bytes the output needs on disk (checked on entering; 0: not checked).
    lock : the lock file (default ``.NAME.lock`` beside the output).
    leftovers : other names of files that dead runs left (older versions' temporaries).
    replaceable : for a folder, ``replaceable(path)`` gives why an existing folder may
        not be replaced even with ``overwrite`` (e.g. it holds files the writer does
        not write), or None.
    hint : added to the message that refuses a folder given as a file.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        what: str = "the output",
        overwrite: bool = False,
        exists_ok: bool = False,
        folder: bool = False,
        need: int = 0,
        lock: str | None = None,
        leftovers: Iterable[str] = (),
        replaceable: Callable[[str], str | None] | None = None,
        hint: str = "",
    ):
        self.shown = os.fspath(path)
        self.path = os.path.abspath(self.shown)
        self.directory, self.name = os.path.split(self.path)
        self.what = what
        self.overwrite = overwrite
        self.exists_ok = exists_ok
        self.folder = folder
        self.need = need
        self.lock = lock or os.path.join(self.directory, f".{self.name}.lock")
        self.leftovers = list(leftovers)
        self.replaceable = replaceable
        self.hint = hint
        run = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.tmp = os.path.join(self.directory, f".{self.name}{TEMP_MARK}{run}")
        self._old = os.path.join(self.directory, f".{self.name}.old-{run}")
        self.existed = False
        self.committed = False
        self._stack = contextlib.ExitStack()

    # ----------------------------------------------------------------- entering

    def __enter__(self) -> Output:
        check_destination(self.path, self.folder, self.hint)
        with self._stack as stack:
            stack.enter_context(run_lock(self.lock, self.shown))
            self.existed = self.exists()
            if self.existed and not self.exists_ok:
                self.check_replace()
            self.remove_leftovers()
            if self.need:
                self.check_space(self.need, self.what)
            self._stack = stack.pop_all()  # the lock is held until the block ends
        return self

    def exists(self) -> bool:
        """Whether an output is there (an empty folder is not one: it is filled)."""
        if self.folder and os.path.isdir(self.path) and not os.path.islink(self.path):
            return bool(os.listdir(self.path))
        return os.path.lexists(self.path)

    def check_replace(self) -> None:
        """``ValueError`` unless the existing output may be replaced: ``overwrite``,
        and for a folder what ``replaceable`` says."""
        if not self.overwrite:
            raise ValueError(
                f"{self.shown} exists; add --overwrite (overwrite=True) to replace it (it "
                "is kept until the new one is complete), or choose another output"
            )
        if self.folder and self.replaceable is not None:
            problem = self.replaceable(self.path)
            if problem:
                raise ValueError(f"{self.shown} is not replaced: {problem}")

    def remove_leftovers(self) -> None:
        """Delete what dead runs left on this output: temporaries (``.NAME.tmp-*``),
        a folder being swapped (``.NAME.old-*``) and ``leftovers``.  Under the lock no
        live run writes them."""
        prefixes = (f".{self.name}{TEMP_MARK}", f".{self.name}.old-")
        try:
            names = os.listdir(self.directory)
        except OSError:
            names = []
        for name in names:
            if name.startswith(prefixes):
                remove_path(os.path.join(self.directory, name))
        for path in self.leftovers:
            remove_path(path)

    def check_space(self, need: int, what: str | None = None) -> None:
        """``ValueError`` if the output's disk has less than ``need`` bytes free."""
        check_space(self.directory, need, what or self.what)

    # ----------------------------------------------------------------- the end

    def commit(self) -> None:
        """Rename the temporary to the final name (a folder is swapped in), fsynced;
        SIGINT and SIGTERM wait until it is done (then they are raised)."""
        with signals_deferred():
            if self.folder:
                for root, _dirs, files in os.walk(self.tmp):
                    for name in files:
                        fsync_file(os.path.join(root, name))
                    fsync_dir(root)
            else:
                fsync_file(self.tmp)
            if self.folder and os.path.lexists(self.path) and self.exists():
                os.rename(self.path, self._old)
                os.rename(self.tmp, self.path)
                remove_path(self._old)
            else:
                os.replace(self.tmp, self.path)
            fsync_dir(self.directory)
            self.committed = True

    def mark_written(self) -> None:
        """The output was put in place by the caller with ``safe_io.atomic_write`` (a
        temporary name of its own, fsynced and renamed): the block is complete."""
        self.committed = True

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        try:
            if not self.committed:
                with signals_deferred(redeliver=False):  # a second Ctrl-C: cleaned up still
                    remove_path(self.tmp)
        finally:
            self._stack.close()  # the lock
        if isinstance(exc, KeyboardInterrupt) and not isinstance(exc, RunInterrupted):
            raise RunInterrupted(self.interrupted_message()) from None
        if (
            isinstance(exc, OSError)
            and not isinstance(exc, WriteFailed)
            and exc.errno in _DISK_FULL
            and not self.committed
        ):
            state = "left untouched" if self.existed else "not created"
            raise WriteFailed(
                exc,
                f"disk full writing {self.shown}: {self.what} was not written ({self.shown} "
                f"{state}, nothing else left); free some space, then run the same command "
                "again",
            ) from exc

    def interrupted_message(self) -> str:
        """What an interruption leaves on disk, in one line."""
        if self.committed:
            return (
                f"interrupted after {self.what} was written in full: {self.shown} is "
                "complete, nothing left to do"
            )
        state = "left untouched" if self.existed else "not created"
        return (
            f"interrupted: {self.what} was not written ({self.shown} {state}, nothing "
            "else left); the same command starts over"
        )
