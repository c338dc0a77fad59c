"""Command line: ``python -m skfair audit`` (also installed as the ``skfair`` command).

Examples
--------
Audit a logistic regression trained on the bundled Adult data (train split), evaluated on the
test split, for ``sex`` and ``race``::

    python -m skfair audit

Audit a model fitted by you (joblib file) on the rows of your own csv file it was not fitted
on (here, those whose column ``split`` holds ``test``)::

    python -m skfair audit --data loans.csv --target approved --positive-label yes \\
        --sensitive sex age_group --privileged sex=male --model model.joblib \\
        --eval-rows split=test

Also write an HTML page with figures, and print JSON instead of text::

    python -m skfair audit --html report.html --format json > audit.json
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shlex
import sys
from datetime import datetime, timezone

from skfair import __version__


def build_parser():
    parser = argparse.ArgumentParser(
        prog="skfair",
        description="skfair: measure, repair and explain group bias of scikit-learn models.",
    )
    parser.add_argument("--version", action="version", version=f"skfair {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    _add_audit_parser(commands)
    return parser


def _add_audit_parser(commands):
    from skfair._audit._sections import SECTIONS
    from skfair._audit._subgroups_section import (
        DEFAULT_LEVEL,
        DEFAULT_METRIC,
        SUBGROUP_METRICS,
    )
    from skfair._audit._subsample import DEFAULT_MAX_TRAIN_ROWS

    audit = commands.add_parser(
        "audit",
        help="print a fairness audit of a model",
        description=(
            "Print a fairness audit of a binary classifier: per-group rates and disparity "
            "metrics for each sensitive attribute. Without --data, a logistic regression is "
            "trained on the bundled UCI Adult train split and evaluated on its test split "
            "(sensitive attributes sex and race)."
        ),
        epilog="sections: "
        + ", ".join(f"{name} ({title})" for name, (title, _) in SECTIONS.items()),
    )
    audit.add_argument("--data", metavar="CSV", help="csv file with a header row")
    audit.add_argument("--target", metavar="COL", help="target column of --data (two classes)")
    audit.add_argument(
        "--sensitive", metavar="COL", nargs="+", help="sensitive attribute column(s) of --data"
    )
    audit.add_argument(
        "--model",
        metavar="FILE",
        help="fitted classifier saved with joblib.dump; evaluated on the --eval-rows of --data "
        "(by default every row, with a caution: rows it was fitted on make the results "
        "in-sample), or on the Adult test split. Without it, a logistic regression is trained "
        "on a split of the data. Only load files you trust: unpickling runs code.",
    )
    audit.add_argument(
        "--eval-rows",
        metavar="COL=VALUE|START:STOP",
        help="the evaluation rows of --data: those whose column COL holds VALUE (a split "
        "column, then no feature), or the data rows START to STOP - 1 (numbered from 0, the "
        "first row after the header; START: for all rows from START). Without --model, the "
        "model is trained on the other rows (instead of a random split).",
    )
    audit.add_argument(
        "--positive-label",
        metavar="LABEL",
        help="favourable class of --target (default: 1 for 0/1 or -1/1 targets)",
    )
    audit.add_argument(
        "--privileged",
        metavar="COL=VALUE",
        nargs="+",
        default=[],
        help="privileged group of an attribute; its disparities are then signed "
        "(disadvantaged minus privileged) instead of the largest gap between two groups",
    )
    audit.add_argument(
        "--bins",
        metavar="COL=K",
        nargs="+",
        default=[],
        help="group a numeric sensitive column of --data into K quantile bins (e.g. age=4)",
    )
    audit.add_argument(
        "--sections",
        nargs="+",
        choices=list(SECTIONS),
        metavar="NAME",
        help="sections to print (default: all): " + ", ".join(SECTIONS),
    )
    audit.add_argument(
        "--subgroups-columns",
        metavar="COL",
        nargs="+",
        help="columns the subgroups of the 'subgroups' section are defined on (default: every "
        "feature with 2 or more values, text columns with at most 100)",
    )
    audit.add_argument(
        "--subgroups-level",
        metavar="N",
        type=int,
        default=DEFAULT_LEVEL,
        help=f"most conditions of a subgroup (default {DEFAULT_LEVEL})",
    )
    audit.add_argument(
        "--subgroups-metric",
        metavar="NAME",
        choices=SUBGROUP_METRICS,
        default=DEFAULT_METRIC,
        help="rate whose highest subgroups are searched (default error_rate): "
        + ", ".join(SUBGROUP_METRICS),
    )
    audit.add_argument(
        "--test-size",
        type=float,
        default=0.3,
        help="share of --data held out for evaluation when a model is trained (default 0.3)",
    )
    audit.add_argument(
        "--max-train-rows",
        type=int,
        default=DEFAULT_MAX_TRAIN_ROWS,
        metavar="N",
        help="train the audit's models (the plain model and the copies some sections retrain) "
        f"on at most N training rows (default {DEFAULT_MAX_TRAIN_ROWS:,}): more are sampled at "
        "random within each cell of the target and the sensitive attributes (seeded by "
        "--random-state), and the report says so. A bound on memory and time; every metric "
        "still uses all evaluation rows",
    )
    audit.add_argument(
        "--random-state",
        type=int,
        default=0,
        help="seed of the split, of the training sample and of sections (default 0)",
    )
    audit.add_argument(
        "--format",
        choices=["text", "markdown", "json"],
        default="text",
        help="output on stdout: text (default; each section printed as soon as it is "
        "computed), markdown, or json (machine-readable, stable for diffing)",
    )
    audit.add_argument(
        "--html",
        metavar="FILE",
        help="also write the report as one self-contained HTML page with figures (needs "
        "matplotlib: the plot extra)",
    )
    audit.add_argument(
        "--json-schema",
        action="store_true",
        help="print the JSON Schema of --format json (its version is the document's 'schema' "
        "field) and exit",
    )
    audit.add_argument(
        "--quiet",
        action="store_true",
        help="no progress messages on stderr (shown only when stderr is a terminal)",
    )
    audit.add_argument(
        "--save-predictions",
        metavar="CSV",
        help="also write the evaluation rows' position in the data (column 'row', 0 for the "
        "first row after the header), sensitive attributes, y_true, y_pred and y_score",
    )
    audit.set_defaults(handler=_audit, command_parser=audit)


def _audit(args, parser):
    from skfair import _audit
    from skfair._audit._html import render_html
    from skfair._audit._json import render_json
    from skfair._audit._text import (
        MARKDOWN_HEADING,
        render_section_markdown,
        render_section_text,
        text_heading,
    )

    if args.json_schema:
        from skfair._audit._json import json_schema

        sys.stdout.write(json_schema())
        return
    privileged = _parse_privileged(args.privileged, parser)
    bins = _parse_bins(args.bins, parser)
    eval_rows = None if args.eval_rows is None else _parse_eval_rows(args.eval_rows, parser)
    if bins and args.data is None:
        parser.error("--bins needs --data (Adult's sensitive attributes are categorical).")
    if eval_rows is not None and args.data is None:
        parser.error("--eval-rows needs --data (without it the Adult test split is evaluated).")
    if args.data is None:
        if args.target is not None or args.sensitive is not None:
            parser.error("--target and --sensitive need --data.")
        if args.positive_label is not None:
            parser.error("--positive-label needs --data (Adult's favourable label is '>50K').")
    elif args.target is None or args.sensitive is None:
        parser.error("--data needs --target and --sensitive.")
    if not 0 < args.test_size < 1:
        parser.error(f"--test-size must lie strictly between 0 and 1, got {args.test_size}.")
    if args.max_train_rows < 2:
        parser.error(
            f"--max-train-rows must be at least 2 (a model needs rows of both classes), got "
            f"{args.max_train_rows}."
        )
    if args.subgroups_level < 1:
        parser.error(f"--subgroups-level must be at least 1, got {args.subgroups_level}.")
    if args.html is not None:
        _check_matplotlib()
    tell = _progress_printer(quiet=args.quiet)
    if args.data is not None and _is_large_file(args.data):
        _return_freed_arrays()
    model = None if args.model is None else _load_model(args.model)
    if args.data is None:
        tell(
            "no --data: auditing on the bundled Adult test split"
            + (" (training a logistic regression on the train split)" if model is None else "")
        )
        context = _audit.adult_context(
            model=model,
            privileged=privileged,
            random_state=args.random_state,
            max_train_rows=args.max_train_rows,
        )
    else:
        tell(f"reading {args.data}" + (" and training a model" if model is None else ""))
        context = _audit.csv_context(
            args.data,
            target=args.target,
            sensitive=args.sensitive,
            model=model,
            positive_label=args.positive_label,
            privileged=privileged,
            bins=bins,
            test_size=args.test_size,
            random_state=args.random_state,
            eval_rows=eval_rows,
            max_train_rows=args.max_train_rows,
        )
        context.description["data"] += f", sha256 {_sha256(args.data)}"
        if "caution" in context.description:
            # Always said, also when the progress messages are not shown.
            print(f"skfair audit: caution: {context.description['caution']}", file=sys.stderr)
    if args.model is not None:
        context.description["model"] += f" ({args.model}, sha256 {_sha256(args.model)})"
    context.description["options"] = _options_text(args)
    context.description["skfair"] = __version__
    # The date and the command line are in the text and HTML reports only, so that the JSON
    # of two runs on the same files with the same options is identical.
    run = f"{args.prog} audit {shlex.join(args.argv)}".rstrip()
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    context.subgroup_options = {
        "columns": args.subgroups_columns,
        "max_level": args.subgroups_level,
        "metric": args.subgroups_metric,
    }
    sections = []
    computed = _audit.compute_sections(
        context,
        _audit.SECTIONS,
        args.sections,
        progress=lambda position, total, title: tell(f"[{position}/{total}] {title}"),
    )
    if args.format == "markdown":
        sys.stdout.write(MARKDOWN_HEADING)
    elif args.format == "text":
        sys.stdout.write(text_heading(run, date) + "\n")
    for section in computed:
        # Text and Markdown: each section is written as soon as it is computed.
        if args.format == "text":
            sys.stdout.write(("\n" if sections else "") + render_section_text(section) + "\n")
        elif args.format == "markdown":
            sys.stdout.write(("\n" if sections else "") + render_section_markdown(section) + "\n")
        sys.stdout.flush()
        # No report shows a section's raw results, and only the HTML page draws its figures:
        # both hold arrays of the evaluation rows, which must not pile up over the sections.
        section.data = {}
        if args.html is None:
            section.figures = []
        sections.append(section)
    if args.format == "json":
        sys.stdout.write(render_json(sections))
    if args.html is not None:
        tell(f"drawing the figures and writing {args.html}")
        page = render_html(sections, command=run, date=date)
        with open(args.html, "w", encoding="utf-8") as stream:
            stream.write(page)
    if args.save_predictions is not None:
        _audit.write_predictions(context, args.save_predictions)


# glibc's mallopt parameter: the size from which an allocation gets pages of its own.
_M_MMAP_THRESHOLD = -3
# From this size of --data file on, freed arrays go back to the system (_return_freed_arrays).
_LARGE_FILE_BYTES = 8 * 2**20


def _is_large_file(path):
    """Whether ``path`` is a file of at least ``_LARGE_FILE_BYTES`` (False if it is missing:
    reading it then says so)."""
    return os.path.isfile(path) and os.path.getsize(path) >= _LARGE_FILE_BYTES


def _return_freed_arrays():
    """With glibc, give every allocation of 128 KiB or more pages of its own (its default
    until a larger block is freed), so that freed arrays go back to the system.

    By default glibc raises that size to the largest block freed so far (up to 32 MB): after
    the first large array is freed, arrays of a few MB come from the heap, and the heap keeps
    the memory they leave between the audit's sections (10 to 20 MB of the peak of an audit
    of 10^6 rows, and most of its run-to-run spread). Pages of their own cost time (each
    array's pages are zeroed anew: the audit of the bundled data took 1.7-2 s more system
    CPU, and it needs no more memory without), so the command asks for them only for a data file of
    8 MiB or more. This process-wide setting is made by the command only, never by the
    library; elsewhere it does nothing.
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # no C library to ask, or not one with mallopt
        return
    mallopt(_M_MMAP_THRESHOLD, 128 * 1024)


def _sha256(path):
    """The sha256 fingerprint of a file (hex), read a megabyte at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while block := stream.read(2**20):
            digest.update(block)
    return digest.hexdigest()


def _options_text(args):
    """The options that decide the audit's numbers, defaults included, as command-line text.

    Output options (--format, --html, --quiet, --save-predictions) are left out: they change
    how the report is shown, not what it says.
    """
    options = []
    if args.data is not None:
        options += ["--target", args.target, "--sensitive", *args.sensitive]
    if args.positive_label is not None:
        options += ["--positive-label", args.positive_label]
    if args.privileged:
        options += ["--privileged", *args.privileged]
    if args.bins:
        options += ["--bins", *args.bins]
    if args.eval_rows is not None:
        options += ["--eval-rows", args.eval_rows]
    options += ["--sections", *(args.sections or ["all"])]
    if args.sections is None or "subgroups" in args.sections:
        if args.subgroups_columns:
            options += ["--subgroups-columns", *args.subgroups_columns]
        options += ["--subgroups-level", str(args.subgroups_level)]
        options += ["--subgroups-metric", args.subgroups_metric]
    if args.model is None:
        if args.data is not None and args.eval_rows is None:
            options += ["--test-size", f"{args.test_size:g}"]
        options += ["--max-train-rows", str(args.max_train_rows)]
    options += ["--random-state", str(args.random_state)]
    return shlex.join(options)


def _progress_printer(*, quiet):
    """A function printing what the audit does on stderr, when stderr is a terminal."""
    if quiet or not sys.stderr.isatty():
        return lambda message: None

    def tell(message):
        print(f"skfair audit: {message}", file=sys.stderr, flush=True)

    return tell


def _check_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        from skfair._utils._compat import install_hint

        raise ImportError(f"--html draws figures with matplotlib: {install_hint('plot')}.") from exc


def _load_model(path):
    import joblib

    with open(path, "rb") as stream:  # a missing file raises OSError with its name
        try:
            model = joblib.load(stream)
        # Unpickling a file that is not a pickle can raise almost anything.
        except Exception as exc:
            raise ValueError(
                f"{path} is not a model saved with joblib.dump ({type(exc).__name__}: {exc})."
            ) from exc
    if isinstance(model, type):
        raise ValueError(
            f"{path} holds the class {model.__name__}, not a fitted model; save a fitted "
            "instance: joblib.dump(model.fit(X, y), path)."
        )
    if not hasattr(model, "predict"):
        raise ValueError(f"{path} holds a {type(model).__name__}, not a fitted model.")
    if not hasattr(model, "classes_"):
        from sklearn.base import is_classifier

        kind = "an unfitted classifier" if is_classifier(model) else "not a classifier"
        raise ValueError(
            f"{path} holds a {type(model).__name__}, which is {kind}: the audit needs a fitted "
            "classifier of the binary target (with predict and classes_); the outputs of a "
            "regressor are not class labels."
        )
    return model


def _parse_privileged(items, parser):
    privileged = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            parser.error(f"--privileged takes COL=VALUE, got {item!r}.")
        privileged[name] = value
    return privileged


def _parse_eval_rows(text, parser):
    """``COL=VALUE`` -> ("column", COL, VALUE); ``START:STOP`` -> ("range", start, stop)."""
    name, sep, value = text.partition("=")
    if sep:
        if not name or not value:
            parser.error(f"--eval-rows takes COL=VALUE or START:STOP, got {text!r}.")
        return ("column", name, value)
    start, sep, stop = text.partition(":")
    if not sep or not start.isdigit() or not (stop == "" or stop.isdigit()):
        parser.error(
            f"--eval-rows takes COL=VALUE (a split column) or START:STOP (data rows, from 0), "
            f"got {text!r}."
        )
    start, stop = int(start), None if stop == "" else int(stop)
    if stop is not None and stop <= start:
        parser.error(f"--eval-rows {text}: STOP must exceed START.")
    return ("range", start, stop)


def _parse_bins(items, parser):
    bins = {}
    for item in items:
        name, _, count = item.partition("=")
        if not name or not count.isdigit() or int(count) < 2:
            parser.error(f"--bins takes COL=K with an integer K >= 2, got {item!r}.")
        bins[name] = int(count)
    return bins


def main(argv=None, *, prog="skfair"):
    """Entry point of the ``skfair`` console script and of ``python -m skfair``.

    ``prog`` is the command as the user typed it (``python -m skfair`` when run as a module);
    the reports name it, with the arguments, in their heading.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    args.prog = prog
    # The arguments after the command's name, as typed.
    args.argv = argv[argv.index(args.command) + 1 :] if args.command in argv else []
    try:
        args.handler(args, args.command_parser)
    except (ValueError, OSError, ImportError) as exc:
        print(f"skfair {args.command}: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(prog="python -m skfair"))
