"""Reading a csv file with a header row into typed numpy columns, without pandas.

A column whose values all parse as integers becomes int64; one whose values all parse as
numbers (empty fields allowed, as NaN) float64; any other column an object array of stripped
strings, with empty fields as ``np.nan``, or, with ``categories=True``, a
:class:`TextCategories`: integer codes (1 or 2 bytes a field) into the sorted distinct strings,
-1 for an empty field, as long as the column has at most ``_MAX_CATEGORIES`` distinct strings
(a column with more, free text or identifiers, stays an object array). The file is read in
chunks of records, each turned into typed arrays at once, so memory holds the columns (8
bytes a number, equal strings shared) and one chunk of text, never the whole file as Python
strings. A column found to hold text after chunks of it parsed as numbers is read again as
text (one more pass over the file, for that case only), so its strings are the file's.

Errors name the line of the file, counted as an editor counts them: a quoted field spanning
several lines does not shift the line numbers of the records after it. Blank lines at the end
of the file are ignored.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass

import numpy as np

# Records turned into typed arrays at a time: a few megabytes of Python strings in flight.
_CHUNK_RECORDS = 1 << 15
# Fields up to this many characters are parsed as fixed-width numpy strings (4 bytes per
# character for every field of the chunk); a chunk with longer fields goes field by field.
_SHORT_FIELD = 64
# Distinct strings a text column may hold to be read as categories (int16 codes); a column
# with more is read as an object array of strings.
_MAX_CATEGORIES = np.iinfo(np.int16).max


@dataclass(frozen=True)
class TextCategories:
    """A text column as integer codes into its distinct strings.

    Attributes
    ----------
    codes : ndarray of shape (n_records,), dtype int8 or int16
        ``labels[codes[i]]`` is the text of record i; -1 marks an empty field.
    labels : ndarray of shape (n_labels,), dtype object
        The distinct non-empty strings, sorted; each occurs in the column.
    """

    codes: np.ndarray
    labels: np.ndarray

    @property
    def shape(self):
        return self.codes.shape

    def __len__(self):
        return self.codes.shape[0]

    def missing(self):
        """Boolean mask of the empty fields."""
        return self.codes < 0

    def take(self, rows):
        """The records ``rows`` (an index array or a boolean mask), as categories."""
        return TextCategories(self.codes[rows], self.labels)

    def objects(self, rows=slice(None)):
        """The records ``rows`` as an object array of strings, ``np.nan`` for empty fields."""
        return np.append(self.labels, np.nan)[self.codes[rows]]


@dataclass(frozen=True)
class CsvColumns:
    """The columns of a csv file and where its records start.

    Attributes
    ----------
    names : list of str
        The header row, stripped.
    columns : dict of str to ndarray of shape (n_records,) or TextCategories
        int64, float64 or object (strings, ``np.nan`` for empty fields), or text as
        :class:`TextCategories` (when read with ``categories=True``), by header name.
    """

    names: list
    columns: dict
    header_lines: int
    # Records that span several lines, and the extra lines of all records up to each of them.
    long_records: np.ndarray
    extra_lines: np.ndarray

    def line(self, row):
        """Line of the file (the header's first line is 1) where data record ``row`` starts."""
        before = np.searchsorted(self.long_records, row, side="left")
        extra = int(self.extra_lines[before - 1]) if before else 0
        return self.header_lines + 1 + int(row) + extra


def read_csv_file(path, *, categories=False):
    """Read the csv file at ``path`` (UTF-8, an optional byte-order mark) into columns.

    Parameters
    ----------
    path : str or path-like
        The file.
    categories : bool, default=False
        Read text columns with few distinct values as :class:`TextCategories` (see the
        module) instead of object arrays of strings.

    Returns
    -------
    CsvColumns

    Raises
    ------
    ValueError
        For a file that is not UTF-8 text, has no header, repeats a column name, has a record
        with another number of fields than the header (naming its line), or a blank line
        before the end.
    """
    # utf-8-sig: a byte-order mark (spreadsheet exports) is not part of the first column name.
    with open(path, encoding="utf-8-sig", newline="") as text:
        try:
            return read_csv_table(
                text, source=str(path), size_hint=os.path.getsize(path), categories=categories
            )
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"{path} is not a text csv file in UTF-8 (byte {exc.start}: {exc.reason}); "
                "--data takes a csv file with a header row."
            ) from None


def read_csv_table(text, *, source, size_hint=None, categories=False):
    """Read a csv text stream with a header row into typed columns (see the module).

    Parameters
    ----------
    text : file object
        Opened in text mode with ``newline=""``; seekable when a column may turn out to be
        text after numbers (it is then read again from the start).
    source : str
        Name used in error messages.
    size_hint : int, default=None
        Size of the file in bytes, if known: the columns are allocated once for the number
        of records it suggests, instead of growing.
    categories : bool, default=False
        Read text columns with at most ``_MAX_CATEGORIES`` distinct values as
        :class:`TextCategories` instead of object arrays of strings.

    Returns
    -------
    CsvColumns
    """
    records = _Records(text, source)
    names = records.names
    columns = [_Column(categories=categories) for _ in names]
    for chunk in records.chunks():
        for column, fields in zip(columns, zip(*chunk, strict=True), strict=True):
            column.append(fields)
        if size_hint is not None and records.n_records == len(chunk):
            # The first chunk's characters per record estimate the number of records; the
            # columns are reserved once its values have given them their types (a text
            # column reserved as int64 first would hold 8 bytes a record for a moment).
            characters = sum(len(field) + 1 for record in chunk for field in record)
            capacity = int(1.05 * size_hint * len(chunk) / max(characters, 1)) + len(chunk)
            for column in columns:
                column.reserve(capacity)
    reread = [j for j, column in enumerate(columns) if column.reread]
    if reread:
        # Chunks of these columns parsed as numbers before text showed up: read their text.
        text.seek(0)
        for j in reread:
            columns[j] = _Column(kind="text", categories=categories)
        for chunk in _Records(text, source).chunks():
            fields = list(zip(*chunk, strict=True))
            for j in reread:
                columns[j].append(fields[j])
    return CsvColumns(
        names=names,
        columns={name: column.values() for name, column in zip(names, columns, strict=True)},
        header_lines=records.header_lines,
        long_records=np.asarray(records.long_records, dtype=np.int64),
        extra_lines=np.cumsum(np.asarray(records.extra_lines, dtype=np.int64)),
    )


class _Column:
    """One column, filled chunk by chunk into one buffer of the weakest type seen so far.

    Kinds: "int" (int64), "float" (float64), "text": category codes (int16, with the strings
    in ``index``) when ``categories`` is true, until there are too many; object strings.
    """

    def __init__(self, kind="int", *, categories=False):
        self.categories = categories
        self.kind = kind
        self.buffer = np.empty(0, dtype=self._dtype(kind))
        self.size = 0
        self.reread = False  # text found after numbers: the numbers' text is needed
        self.index = {}  # string -> category code, in order of first appearance

    def _dtype(self, kind):
        if kind == "text":
            return np.int16 if self.categories else object
        return {"int": np.int64, "float": np.float64}[kind]

    def reserve(self, capacity):
        if capacity > self.buffer.shape[0]:
            # In place (realloc): no second buffer while the data are copied.
            self.buffer.resize(capacity, refcheck=False)

    def append(self, fields):
        if self.reread:
            return
        kind, values = _parse_fields(fields, at_least=self.kind)
        if kind != self.kind:
            if kind == "text" and self.size:
                self.reread = True
                return
            self.kind = kind
            if kind == "text":  # nothing read yet: a fresh buffer of the same capacity
                self.buffer = np.empty(self.buffer.shape[0], dtype=self._dtype(kind))
            else:
                self.buffer = self.buffer.astype(self._dtype(kind))
        if kind == "text":
            values = self._text_values(values)
        end = self.size + values.shape[0]
        if end > self.buffer.shape[0]:
            self.reserve(max(end, int(1.5 * self.buffer.shape[0])))
        self.buffer[self.size : end] = values
        self.size = end

    def _text_values(self, text):
        """Category codes of a chunk of text, or its strings once there are too many."""
        if self.categories:
            index = self.index
            codes = np.array(
                [
                    -1 if label == "" else index.setdefault(label, len(index))
                    for label in text.distinct
                ],
                dtype=np.int64,
            )
            if len(index) <= _MAX_CATEGORIES:
                return codes[text.inverse].astype(np.int16)
            # Too many distinct strings for categories: the column's codes become its strings.
            self.categories = False
            labels = np.array([*index, np.nan], dtype=object)
            objects = np.empty(self.buffer.shape[0], dtype=object)
            objects[: self.size] = labels[self.buffer[: self.size]]
            self.buffer, self.index = objects, {}
        return text.objects()

    def values(self):
        self.buffer.resize(self.size, refcheck=False)
        if self.kind != "text" or not self.categories:
            return self.buffer
        labels = np.array(list(self.index), dtype=object)
        order = np.argsort(labels)
        dtype = np.int8 if len(labels) <= np.iinfo(np.int8).max else np.int16
        # The codes in sorted order of the strings; the last entry maps -1 (empty) to -1.
        recode = np.empty(len(labels) + 1, dtype=dtype)
        recode[order] = np.arange(len(labels))
        recode[-1] = -1
        return TextCategories(codes=recode[self.buffer], labels=labels[order])


class _Records:
    """The records of a csv stream after its header, in chunks, with their lines checked."""

    def __init__(self, text, source):
        self.reader = csv.reader(text)
        self.source = source
        try:
            header = next(self.reader)
        except StopIteration:
            raise ValueError(f"{source} is empty; expected a header row.") from None
        except csv.Error as exc:
            raise ValueError(f"{source}: line {self.reader.line_num}: {exc}.") from None
        self.names = [name.strip() for name in header]
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"{source}: the header repeats column names: {self.names}.")
        self.header_lines = self.reader.line_num
        self.n_records = 0
        self.long_records, self.extra_lines = [], []

    def chunks(self):
        """Yield lists of records; raise for a record whose field count is not the header's."""
        reader, n_fields = self.reader, len(self.names)
        last_line = self.header_lines
        blank_line = None  # a blank line, fine only if nothing but blank lines follows it
        chunk = []
        while True:
            try:
                record = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:  # e.g. a field over csv.field_size_limit() characters
                raise ValueError(f"{self.source}: line {reader.line_num}: {exc}.") from None
            start, last_line = last_line + 1, reader.line_num
            if not record:
                blank_line = start if blank_line is None else blank_line
                continue
            if blank_line is not None:
                raise ValueError(
                    f"{self.source}: line {blank_line} is blank; only the end of the file may "
                    "hold blank lines."
                )
            if len(record) != n_fields:
                raise ValueError(
                    f"{self.source}: line {start} has {len(record)} fields, the header {n_fields}."
                )
            if last_line != start:  # a quoted field holds line breaks
                self.long_records.append(self.n_records)
                self.extra_lines.append(last_line - start)
            self.n_records += 1
            chunk.append(record)
            if len(chunk) == _CHUNK_RECORDS:
                yield chunk
                chunk = []
        if chunk:
            yield chunk


@dataclass(frozen=True)
class _Text:
    """A chunk of text: its distinct stripped strings and each field's position among them."""

    distinct: list
    inverse: np.ndarray

    def objects(self):
        """An object array of the strings, equal strings one object, empty fields NaN."""
        distinct = np.array(self.distinct, dtype=object)
        distinct[distinct == ""] = np.nan
        return distinct[self.inverse]


def _parse_fields(fields, *, at_least):
    """``(kind, values)`` of one chunk of a column, trying only kinds from ``at_least`` on.

    Integers and numbers come as int64 and float64 arrays, text as a :class:`_Text`.
    """
    longest = max(map(len, fields))
    if longest <= _SHORT_FIELD:
        values = np.char.strip(np.array(fields, dtype=f"U{max(longest, 1)}"))
    else:
        values = np.array([field.strip() for field in fields], dtype=object)
    missing = values == ""
    if at_least != "text":
        if at_least == "int" and not missing.any():
            try:
                return "int", values.astype(np.int64)
            except (ValueError, OverflowError):  # OverflowError: an integer beyond int64
                pass
        try:
            return "float", np.where(missing, "nan", values).astype(np.float64)
        except (ValueError, OverflowError):
            pass
    distinct, inverse = np.unique(values, return_inverse=True)
    return "text", _Text(distinct.tolist(), inverse.reshape(-1))
