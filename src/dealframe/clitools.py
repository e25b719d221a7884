"""What the ``dealframe`` subcommands share: the exit status rule, the one-line error and
warning (an error of the Python API said in a shell's words: :func:`in_shell_words`), the
``--sandbox`` options, the client they work with, and the usage error.

Exit status of every sub-command (docs/errors.md, "In the command line"): 0 success; 1 the
run failed (the service, the network, the data, the disk); 2 the command cannot work as
given (a bad option or argument, no or an insecure service configuration, a missing extra);
130 interrupted (Ctrl-C), with one line ``dealframe COMMAND: interrupted``.
``report`` adds 3 (some cohorts of a config file failed) and ``doctor`` keeps its own
meaning (docs/real-service.md).

``--sandbox`` starts the embedded sandbox (:func:`dealframe.sandbox.embedded`); otherwise the
service comes from ``DEALFRAME_BASE_URL`` and the tokens from the environment.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from dealframe._inode import locked
from dealframe.arguments import expanded_path

from .cli_options import non_negative_int, one_line, sandbox_scale
from .errors import (
    ConfigurationError,
    DealframeError,
    ValidationError,
    _scrub,
    reworded,
    without_python_types,
)
from .notices import DealframeWarning
from .sandbox.arguments import MAX_SCALE, SCALE_MEMORY

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "UsageError",
    "add_sandbox_options",
    "check_folder",
    "command_tokens",
    "exit_status",
    "fail",
    "flag_name",
    "in_shell_words",
    "say",
    "service_client",
    "show_warning",
    "told",
]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: Stopped by Ctrl-C (SIGINT): 128 + 2, as a shell reports it.
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """The command cannot work as given: one line to standard error, exit status 2."""


def exit_status(error: BaseException) -> int:
    """The exit status for an error: 2 when the command cannot work as given, else 1.

    Examples
    --------
    >>> exit_status(UsageError("no service configured")), exit_status(DealframeError("503"))
    (2, 1)
    """
    usage = (UsageError, ConfigurationError, ValidationError)
    return EXIT_USAGE if isinstance(error, usage) else EXIT_FAILED


def say(line: str) -> None:
    """Print one line to standard error, flushed at once."""
    print(line, file=sys.stderr, flush=True)


def fail(prog: str, message: object, status: int = EXIT_FAILED) -> int:
    """Print ``<prog>: error: <message>`` as one line to standard error; return ``status``.

    Examples
    --------
    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     fail("dealframe pull", "bad news,\\n  got '   '", 2)
    2
    >>> err.getvalue()
    "dealframe pull: error: bad news, got '   '\\n"
    """
    say(f"{prog}: error: {one_line(message)}")
    return status


def command_tokens(args: argparse.Namespace) -> list[str | None]:
    """The tokens a command may hold: from its options (``doctor --public-token``) and the
    environment, to be blanked out of what it prints (:func:`told`).

    Examples
    --------
    >>> "t0k3n" in command_tokens(argparse.Namespace(public_token="t0k3n"))
    True
    """
    from dealframe.transport.session import TOKEN_ENV_VARS  # the client's, only when said

    named = [getattr(args, name, None) for name in ("public_token", "private_key")]
    return [*named, *(os.environ.get(var) for var in TOKEN_ENV_VARS.values())]


def told(error: BaseException, secrets: Iterable[str | None] = ()) -> str:
    """What a command says of ``error``: its message, then each of its PEP 678 notes
    (``__notes__``: what a mirror sync adds to an error that has no ``with_note``, a warning
    turned into an error while a sync failed), ``; `` between them. The notes are not the
    error's own words, so ``secrets`` (the command's tokens) are blanked out of them.

    Examples
    --------
    >>> error = ValueError("bad")
    >>> error.add_note("mirror sync of deals: stopped at page 3 (key sk_0123456789abcdef)")
    >>> told(error, ["sk_0123456789abcdef", None])
    'bad; mirror sync of deals: stopped at page 3 (key ***)'
    """
    notes = [
        _scrub(str(note), [s for s in secrets if s]) for note in getattr(error, "__notes__", ())
    ]
    return "; ".join([str(error), *notes])


def flag_name(field: str) -> str:
    """``--target-region`` for the filter (or argument) ``target_region``.

    Examples
    --------
    >>> flag_name("target_region")
    '--target-region'
    """
    return "--" + field.replace("_", "-")


def in_shell_words(error: ValidationError, fields: Mapping[str, Any]) -> ValidationError:
    """``error`` as a command-line user reads it: the filters it names (the other bound
    of a range, ``date_to``) as their flags (``--date-to``), and no Python type
    (``datetime.date or pandas.Timestamp``: :func:`~dealframe.errors.without_python_types`)
    among what is expected. Its class is kept.

    Examples
    --------
    >>> error = ValidationError("--date-from", "a date not after date_to (2020-01-01): "
    ...     "the range would match no row", got="2030-01-01")
    >>> str(in_shell_words(error, {"date_from": None, "date_to": None}))
    "invalid --date-from: expected a date not after --date-to (2020-01-01): the range would match no row, got '2030-01-01'"
    >>> error = ValidationError("--date-from", "a date YYYY-MM-DD, datetime.date or "
    ...     "pandas.Timestamp", got="2020-13-01")
    >>> str(in_shell_words(error, {}))
    "invalid --date-from: expected a date YYYY-MM-DD, got '2020-13-01'"
    """
    error = without_python_types(error)
    named = sorted((f for f in fields if "_" in f), key=len, reverse=True)
    if not named:
        return error
    words = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, named)) + r")(?!\w)")
    return reworded(error, words.sub(lambda m: flag_name(m.group(1)), error.expected))


def show_warning(prog: str) -> Callable[..., None]:
    """A ``warnings.showwarning`` printing ``<prog>: warning: <message>`` as one line.

    Examples
    --------
    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     show_warning("dealframe pull")(UserWarning("3 ids\\n  missing"), UserWarning, "f.py", 9)
    >>> err.getvalue()
    'dealframe pull: warning: 3 ids missing\\n'
    """

    def show(message: Warning | str, *args: Any, **kwargs: Any) -> None:
        say(f"{prog}: warning: {one_line(message)}")

    return show


def check_folder(path: str | os.PathLike[str], option: str) -> list[Path]:
    """Check that ``path`` is or can become a writable folder, creating no folder.

    The nearest existing folder is proven writable by making a file in it
    (:func:`_probe_write`): permission bits say yes to root on a folder no file can be made
    in (``/proc``), which would otherwise fail only once the rows are pulled.

    Returns the folders that writing there would create, deepest first.

    Raises
    ------
    dealframe.errors.ValidationError
        ``path`` or one of its parents is a file, or no file can be created in the nearest
        existing folder (named as ``option``, with the system's reason).

    Examples
    --------
    >>> import tempfile
    >>> base = Path(tempfile.mkdtemp())
    >>> [p.name for p in check_folder(base / "a" / "b", "-o")]
    ['b', 'a']
    >>> (base / "a").exists(), list(base.iterdir())
    (False, [])
    """
    folder, missing = expanded_path(path, option).absolute(), []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    expected = "a folder that exists or can be created, and can be written"
    if not folder.is_dir():
        raise ValidationError(option, f"{expected} ({folder} is a file)", got=str(path))
    flagged = locked(folder)  # before the bits, which say no to an immutable folder too
    if flagged and (not missing or flagged.startswith("immutable")):
        # known before a probe is made that the folder would keep (a new folder can be made
        # in an append-only one, and written as usual)
        raise ValidationError(option, f"{expected} ({folder} is {flagged})", got=str(path))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValidationError(option, f"{expected} ({folder} cannot be written)", got=str(path))
    try:  # the bits are not the proof: as root, os.access says yes to /proc
        _probe_write(folder, renamed=not missing)
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise ValidationError(
            option, f"{expected} ({folder} cannot be written: {why})", got=str(path)
        ) from None
    return missing


#: What ``open(folder, O_TMPFILE)`` fails with where the file system or kernel has no
#: unnamed files (``/proc`` says EOPNOTSUPP): a named probe is made instead.
_NO_TMPFILE = frozenset({errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL})


def _probe_write(folder: Path, *, renamed: bool = False) -> None:
    """Make a file in ``folder`` and let it go, as the write will.

    With ``renamed`` (``folder`` is the one the file is written in: the write makes a
    temporary file there and renames it into place), a named ``.dealframe-*.probe`` is made,
    renamed and removed, so a folder where files can be made but not renamed (made
    append-only with ``chattr +a``) is refused before the rows are pulled. Otherwise (the
    write will make a new folder in ``folder``) the file is an unnamed one (``O_TMPFILE``,
    Linux) where the system has them, else a named probe removed at once. A probe that
    cannot be removed is named in a :class:`~dealframe.notices.DealframeWarning`.

    Raises
    ------
    OSError
        No file can be made (or, with ``renamed``, renamed) in ``folder``.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _probe_write(folder), _probe_write(folder, renamed=True)
    (None, None)
    >>> list(folder.iterdir())
    []
    """
    unnamed = getattr(os, "O_TMPFILE", 0)
    if unnamed and not renamed:
        try:
            os.close(os.open(folder, unnamed | os.O_WRONLY, 0o600))
            return
        except OSError as exc:
            if exc.errno not in _NO_TMPFILE:
                raise
    handle, probe = tempfile.mkstemp(prefix=".dealframe-", suffix=".probe", dir=folder)
    os.close(handle)
    if renamed:
        moved = probe.removesuffix(".probe") + "-renamed.probe"
        try:
            os.replace(probe, moved)
        except OSError:
            _let_go(probe, folder)
            raise
        probe = moved
    _let_go(probe, folder)


def _let_go(probe: str, folder: Path) -> None:
    """Remove the probe ``probe``; a warning names it when it cannot be removed."""
    try:
        os.remove(probe)
    except OSError as exc:
        warnings.warn(
            f"the empty file {probe}, made to check that {folder} can be written, cannot be "
            f"removed ({exc.strerror or type(exc).__name__}): remove it by hand",
            DealframeWarning,
            stacklevel=3,
        )


def add_sandbox_options(parser: argparse.ArgumentParser, *, scale: float = 1.0) -> None:
    """``--sandbox``, ``--scale`` (above 0 and at most the sandbox's maximum, 20, checked
    before anything starts) and ``--seed``: the embedded sandbox a command may run against
    (see :func:`service_client`).

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> add_sandbox_options(p, scale=0.1)
    >>> vars(p.parse_args(["--sandbox", "--seed", "3"]))
    {'sandbox': True, 'scale': 0.1, 'seed': 3}
    """
    parser.add_argument(
        "--sandbox",
        action="store_true",
        help="run against an embedded sandbox instead of DEALFRAME_BASE_URL",
    )
    parser.add_argument(
        "--scale",
        type=sandbox_scale,
        default=scale,
        help=f"sandbox data scale, above 0 and at most {MAX_SCALE:g} (default {scale:g}); "
        f"{SCALE_MEMORY}",
    )
    parser.add_argument("--seed", type=non_negative_int, default=7, help="sandbox seed (default 7)")


#: The token a command was run without, named as the help names it, by its variable.
_TOKEN_NOUNS = {"DEALFRAME_PUBLIC_TOKEN": "public token", "DEALFRAME_PRIVATE_KEY": "private key"}


def _no_token(error: ConfigurationError) -> Exception:
    """The client's "no private token configured ... pass private_key= to the client" as
    a command says it: no client to pass a keyword to, the variable to set (a usage error).
    Any other configuration error is returned as it is.

    Examples
    --------
    >>> error = ConfigurationError("no private token configured", field="DEALFRAME_PRIVATE_KEY")
    >>> str(_no_token(error))
    'no private key configured: set DEALFRAME_PRIVATE_KEY, or pass --sandbox'
    """
    var = getattr(error, "field", None)
    if var not in _TOKEN_NOUNS or not str(error).startswith("no "):
        return error
    return UsageError(f"no {_TOKEN_NOUNS[var]} configured: set {var}, or pass --sandbox")


#: The settings a command's errors name, by the transport's key: the setting and its variable.
_SETTINGS_FROM = {
    "base_url": ("base_url", "DEALFRAME_BASE_URL"),
    "public": ("public_token", "DEALFRAME_PUBLIC_TOKEN"),
    "private": ("private_key", "DEALFRAME_PRIVATE_KEY"),
}


def said_from(client: Any, options: Any = None) -> Any:
    """Make ``client``'s errors name where a command's user set its base URL and tokens
    (the Python API's name the ``Client`` arguments, which a command has none of).

    A setting given as an option of ``options`` (``--base-url``) is named by it; one read
    from the environment by its variable; a token also names the command's option for it,
    when it has one (``check DEALFRAME_PRIVATE_KEY (or --private-key)``).

    Parameters
    ----------
    client : Client
        The command's client (before any request).
    options : argparse.Namespace, optional
        The command's options; those named ``base_url``, ``public_token``, ``private_key``
        are the settings' options (None: the command has none).

    Returns
    -------
    Client
        ``client`` itself.
    """
    words = {}
    for key, (setting, var) in _SETTINGS_FROM.items():
        option = f"--{setting.replace('_', '-')}"
        if getattr(options, setting, None) is not None:  # given: the option is where it is
            words[key] = option
        elif hasattr(options, setting) and key != "base_url":
            words[key] = f"{var} (or {option})"
        else:
            words[key] = var
    client._transport.settings_from.update(words)
    return client


@contextlib.contextmanager
def service_client(
    args: argparse.Namespace,
    say: Callable[[str], None] | None = None,
    *,
    progress: bool | None = False,
) -> Iterator[Any]:
    """The :class:`~dealframe.Client` a command runs with (``args.sandbox``, ``args.scale``,
    ``args.seed``), closed (and the sandbox stopped) at the end.

    Raises
    ------
    UsageError
        No service configured, or ``--sandbox`` without the sandbox extra.
    DealframeError
        The embedded sandbox failed to start.
    """
    from .client import Client
    from .config import Settings
    from .sandbox import SandboxExtraMissing, SandboxStartError, embedded

    if not getattr(args, "sandbox", False):
        if Settings.from_env().base_url is None:
            raise UsageError(
                "no service configured: set DEALFRAME_BASE_URL, "
                "DEALFRAME_PUBLIC_TOKEN and DEALFRAME_PRIVATE_KEY, or pass --sandbox"
            )
        with Client(progress=progress) as client:
            try:
                yield said_from(client)
            except ConfigurationError as exc:
                raise _no_token(exc) from None
        return
    try:
        with (
            embedded(args.scale, args.seed, say=say) as sb,
            Client.for_sandbox(sb, progress=progress) as client,
        ):
            yield client
    except SandboxExtraMissing as exc:
        raise UsageError(f"--sandbox: {exc}") from None
    except SandboxStartError as exc:
        raise DealframeError(f"--sandbox: {exc}") from None
