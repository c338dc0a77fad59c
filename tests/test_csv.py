"""The csv reader of the audit and the bundled data: typed columns, lines, memory."""

import io

import numpy as np
import pandas as pd
import pytest

import skfair.datasets._csv
from skfair.datasets._csv import TextCategories, read_csv_file, read_csv_table


def frame(n=500, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "count": rng.integers(-5, 10**6, n),
            "share": np.round(rng.random(n), 3),
            "city": rng.choice(["Lyon", "Oslo", "Quito"], n),
            "late": rng.choice(["1", "2", "x"], n, p=[0.5, 0.49, 0.01]),
        }
    )


@pytest.mark.parametrize("chunk", [7, 64, 1 << 15])
@pytest.mark.parametrize("hint", [False, True])
def test_columns_are_typed_as_pandas_reads_them(tmp_path, monkeypatch, chunk, hint):
    # small chunks: a column turns to text after chunks of integers (read again as text), and
    # the buffers grow past the size estimated from the first chunk
    monkeypatch.setattr(skfair.datasets._csv, "_CHUNK_RECORDS", chunk)
    data = frame()
    data.loc[[3, 250], "share"] = np.nan  # empty fields
    data.loc[400, "late"] = "x"  # text late in the file
    path = tmp_path / "data.csv"
    data.to_csv(path, index=False)
    if hint:
        table = read_csv_file(path)
    else:
        with open(path, newline="") as text:
            table = read_csv_table(text, source="data.csv")
    oracle = pd.read_csv(path, dtype={"late": str}, keep_default_na=False, na_values=[""])
    assert table.names == list(oracle.columns)
    assert table.columns["count"].dtype == np.int64
    np.testing.assert_array_equal(table.columns["count"], oracle["count"])
    assert table.columns["share"].dtype == np.float64
    np.testing.assert_array_equal(table.columns["share"], oracle["share"])
    for name in ("city", "late"):
        assert table.columns[name].dtype == object
        assert table.columns[name].tolist() == oracle[name].tolist()
    # equal strings are one object
    city = table.columns["city"]
    assert len({id(value) for value in city}) <= 3 * (len(city) // chunk + 1)


def test_quoted_line_breaks_do_not_shift_the_line_numbers(tmp_path):
    # Regression: errors counted records, so a quoted newline shifted every later line number.
    text = 'name,sex,y\n"two\nlines",f,1\nb,m,0\nc,m\n'
    path = tmp_path / "data.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match="data.csv: line 5 has 2 fields, the header 3"):
        read_csv_file(path)
    path.write_text('name,sex,y\n"two\nlines",f,1\nb,,0\n"three\n\nlines",m,1\nd,,1\n')
    table = read_csv_file(path)
    assert [table.line(row) for row in range(4)] == [2, 4, 5, 8]
    assert table.columns["name"][0] == "two\nlines"


def test_blank_lines_at_the_end_are_ignored_but_not_before(tmp_path):
    # Regression: one trailing blank line made a file unreadable ("line 62 has 0 fields").
    path = tmp_path / "data.csv"
    path.write_text("a,b\n1,x\n2,y\n\n")
    table = read_csv_file(path)
    np.testing.assert_array_equal(table.columns["a"], [1, 2])
    path.write_text("a,b\n1,x\n\n2,y\n")
    with pytest.raises(ValueError, match="line 3 is blank"):
        read_csv_file(path)


def test_files_that_are_not_csv_tables_are_named():
    with pytest.raises(ValueError, match="x.csv is empty"):
        read_csv_table(io.StringIO(""), source="x.csv")
    with pytest.raises(ValueError, match="repeats column names"):
        read_csv_table(io.StringIO("a,a\n1,2\n"), source="x.csv")
    empty = read_csv_table(io.StringIO("a,b\n"), source="x.csv")
    assert empty.columns["a"].shape == (0,)


def test_a_long_field_is_not_a_fixed_width_string_of_the_whole_chunk():
    # fixed-width strings as wide as one 100,000-character field: 400 kB a field, 800 MB
    import tracemalloc

    long = "x" * 100_000
    text = "id,note\n" + "".join(f"{i},{long if i == 3 else 'ok'}\n" for i in range(2000))
    tracemalloc.start()
    try:
        table = read_csv_table(io.StringIO(text), source="notes.csv")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20
    assert table.columns["note"][3] == long and table.columns["note"][4] == "ok"


def _none(values):
    """The values as a list, NaN as None (NaN objects do not compare equal)."""
    return [None if value != value else value for value in list(values)]


@pytest.mark.parametrize("chunk", [7, 64, 1 << 15])
def test_text_columns_as_categories(tmp_path, monkeypatch, chunk):
    # Text with few distinct values: integer codes into the sorted strings (-1: empty), not
    # an object array of Python strings; the same values as pandas reads.
    monkeypatch.setattr(skfair.datasets._csv, "_CHUNK_RECORDS", chunk)
    data = frame()
    data.loc[[5, 300], "city"] = np.nan  # empty fields
    data.loc[400, "late"] = "x"  # text after numbers: read again, as categories
    path = tmp_path / "data.csv"
    data.to_csv(path, index=False)
    table = read_csv_file(path, categories=True)
    oracle = pd.read_csv(path, dtype={"late": str}, keep_default_na=False, na_values=[""])
    assert table.columns["count"].dtype == np.int64  # numbers as before
    for name in ("city", "late"):
        column = table.columns[name]
        assert isinstance(column, TextCategories)
        assert column.codes.dtype == np.int8
        expected = oracle[name].astype("category")
        assert column.labels.tolist() == sorted(expected.cat.categories)
        np.testing.assert_array_equal(column.codes, expected.cat.codes)
        assert _none(column.objects()) == _none(oracle[name])  # NaN for empty fields
        np.testing.assert_array_equal(column.missing(), oracle[name].isna())
        rows = np.array([400, 5, 0])
        assert _none(column.take(rows).objects()) == _none(oracle[name].iloc[rows])
        assert _none(column.objects(rows)) == _none(oracle[name].iloc[rows])
    # without categories=True (the bundled data's loaders): object arrays, as before
    assert read_csv_file(path).columns["city"].dtype == object


def test_text_with_many_distinct_values_stays_strings(tmp_path, monkeypatch):
    # Past _MAX_CATEGORIES distinct strings (identifiers, free text) a column is read as
    # strings, the codes read so far turned back into their strings.
    monkeypatch.setattr(skfair.datasets._csv, "_CHUNK_RECORDS", 16)
    monkeypatch.setattr(skfair.datasets._csv, "_MAX_CATEGORIES", 20)
    ids = [f"id{i % 30}" if i != 7 else "" for i in range(100)]
    path = tmp_path / "data.csv"
    pd.DataFrame({"id": ids, "kind": ["a", "b"] * 50}).to_csv(path, index=False)
    table = read_csv_file(path, categories=True)
    assert table.columns["id"].dtype == object
    assert _none(table.columns["id"]) == [None if value == "" else value for value in ids]
    assert isinstance(table.columns["kind"], TextCategories)
    assert table.columns["kind"].codes.nbytes == 100


def test_categories_take_a_byte_a_field():
    # Regression (memory of the audit's csv reader): a text column of 10^5 fields held an
    # 8-byte pointer per field (0.8 MB); as categories it holds 1 byte per field.
    import tracemalloc

    n = 100_000
    text = "sex,y\n" + "".join(f"{'FM'[i % 2]},{i % 3}\n" for i in range(n))
    tracemalloc.start()
    try:
        table = read_csv_table(io.StringIO(text), source="data.csv", categories=True)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert table.columns["sex"].codes.nbytes == n
    assert table.columns["sex"].objects()[:3].tolist() == ["F", "M", "F"]
    # the integer column (8 bytes a field) and the codes, with room for small objects
    assert held < 8 * n + n + 200_000
