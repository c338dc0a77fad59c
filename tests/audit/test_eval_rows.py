"""``--model`` cautions that rows it was fitted on make the results in-sample; ``--eval-rows``
names the rows it was not fitted on (a split column or a range of rows)."""

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from skfair.__main__ import main


@pytest.fixture
def split_data(tmp_path):
    """A csv with a split column, and a model fitted on its "train" rows (a DataFrame)."""
    rng = np.random.default_rng(0)
    n = 900
    sex = rng.choice(["female", "male"], n)
    income = rng.normal(50, 10, n) + 5 * (sex == "male")
    frame = pd.DataFrame(
        {
            "income": income,
            "region": rng.choice(["north", "south"], n),
            "sex": sex,
            "split": np.where(np.arange(n) < 600, "train", "test"),
            "approved": np.where(income + rng.normal(0, 5, n) > 52, "yes", "no"),
        }
    )
    frame.to_csv(tmp_path / "loans.csv", index=False)
    train = frame[frame["split"] == "train"]
    model = make_pipeline(
        make_column_transformer((OneHotEncoder(), ["region"]), remainder="passthrough"),
        LogisticRegression(),
    ).fit(train[["income", "region"]], train["approved"])
    joblib.dump(model, tmp_path / "model.joblib")
    return tmp_path, frame, model


def run(folder, *args):
    return main(
        ["audit", "--data", str(folder / "loans.csv"), "--target", "approved"]
        + ["--positive-label", "yes", "--sensitive", "sex", "--sections", "summary", "groups"]
        + ["--save-predictions", str(folder / "predictions.csv"), *args]
    )


def test_a_model_on_every_row_is_cautioned_in_the_report_and_on_stderr(split_data, capsys):
    folder, frame, _ = split_data
    assert run(folder, "--model", str(folder / "model.joblib")) == 0
    captured = capsys.readouterr()
    caution = "if some of them were used to fit it, the results are in-sample"
    assert caution in " ".join(captured.err.split())
    assert "caution" in captured.out and caution in " ".join(captured.out.split())
    assert len(pd.read_csv(folder / "predictions.csv")) == len(frame)


@pytest.mark.parametrize("rows", ["split=test", "600:", "600:900"])
def test_eval_rows_name_the_held_out_rows(split_data, capsys, rows):
    folder, frame, model = split_data
    assert run(folder, "--model", str(folder / "model.joblib"), "--eval-rows", rows) == 0
    captured = capsys.readouterr()
    assert "in-sample" not in captured.out + captured.err
    assert f"evaluated on the 300 rows named by --eval-rows ({rows}" in " ".join(
        captured.out.split()
    )
    predictions = pd.read_csv(folder / "predictions.csv")
    np.testing.assert_array_equal(predictions["row"], np.arange(600, 900))
    held_out = frame.iloc[600:]
    expected = (model.predict(held_out[["income", "region"]]) == "yes").astype(int)
    np.testing.assert_array_equal(predictions["y_pred"], expected)


def test_without_a_model_eval_rows_replace_the_random_split(split_data, capsys):
    folder, frame, _ = split_data
    assert run(folder, "--eval-rows", "split=test") == 0
    output = " ".join(capsys.readouterr().out.split())
    assert "split by --eval-rows (split=test) into 600 training and 300 evaluation rows" in output
    # The split column is not a feature of the model trained on the other rows.
    assert "(all 3 columns but the target)" in output
    predictions = pd.read_csv(folder / "predictions.csv")
    np.testing.assert_array_equal(predictions["row"], np.arange(600, 900))


@pytest.mark.parametrize(
    ("rows", "status", "message"),
    [
        ("split", 2, "--eval-rows takes COL=VALUE (a split column) or START:STOP"),
        ("5:2", 2, "STOP must exceed START"),
        ("fold=test", 1, "column 'fold' is not in"),
        ("split=valid", 1, "no row of"),
        ("900:", 1, "names no data row"),
        ("0:1000", 1, "goes past the last data row"),
        ("0:", 1, "leaves no row to train a model on"),
    ],
)
def test_bad_eval_rows_are_refused(split_data, capsys, rows, status, message):
    folder, _, _ = split_data
    if status == 2:
        with pytest.raises(SystemExit) as exit_info:
            run(folder, "--eval-rows", rows)
        assert exit_info.value.code == 2
    else:
        assert run(folder, "--eval-rows", rows) == 1
    assert message in capsys.readouterr().err
