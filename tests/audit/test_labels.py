"""Labels of the audit that say what the numbers are: HFM's combined column, both directions of
the bias sources, MADD's figure title, intersections read as "a & b", small-group cautions."""

import re

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from skfair._audit import AuditContext
from skfair._audit._context import _predict
from skfair._audit._data_repair_section import data_repair_section
from skfair._audit._sections import bias_sources_section, hfm_section, madd_section
from skfair._audit._text import section_body_text
from skfair.metrics import madd_bandwidth_search
from skfair.plotting import GroupRatesDisplay, MADDDisplay, ScoreDistributionDisplay

matplotlib.use("Agg")


def hfm_context(seed=0, n=400):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "job": rng.choice(["a", "b"], n),
            "sex": rng.choice(["F", "M"], n),
            "race": rng.choice(["x", "y", "z"], n),
        }
    )
    y_test = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.2, 1 - y_test, y_test)
    sensitive = {"sex": frame["sex"].to_numpy(), "race": frame["race"].to_numpy()}
    return AuditContext(
        model=None, X_test=frame, y_test=y_test, y_pred=y_pred, y_score=None, sensitive=sensitive
    )


def test_hfm_column_over_all_attributes_is_named_and_explained_for_what_it_holds():
    section = hfm_section(hfm_context())
    table = section.blocks[0]
    assert table.header == ["HFM", "sex", "race", "all attributes"]
    rows = {row[0]: row[1:] for row in table.rows}
    # What the note says the column holds: D and D_f combined by the largest (max rows) or
    # the mean (avg rows) of the attributes' distances, hfm the log ratio of those.
    for version, combine in (("max", np.max), ("avg", np.mean)):
        D, D_f = rows[f"D {version} (data)"], rows[f"D_f {version} (model)"]
        assert D[-1] == pytest.approx(combine(D[:-1]))
        assert D_f[-1] == pytest.approx(combine(D_f[:-1]))
        assert rows[f"hfm ({version})"][-1] == pytest.approx(np.log10(D_f[-1] / D[-1]))
    assert "max / mean" not in section_body_text(section)
    assert "log ratio of these combined distances" in " ".join(section.notes)


def bias_context(seed=0, n=1200):
    # "hours" favours m; "relationship" favours f (higher for f, raising the score); six
    # noise features favour nobody. Ranked by beta+ alone, "relationship" comes last.
    rng = np.random.default_rng(seed)
    group = rng.choice(["f", "m"], n)
    hours = rng.normal(1.0 * (group == "m"), 1.0)
    relationship = rng.normal(0.8 * (group == "f"), 1.0)
    noise = rng.normal(size=(n, 6))
    X = np.column_stack([hours, relationship, noise])
    y = (hours + relationship + rng.normal(size=n) > 0.5).astype(int)
    model = LogisticRegression().fit(X, y)
    y_pred, y_score, _ = _predict(model, X, positive_label=1)
    return AuditContext(
        model=model,
        X_test=X,
        y_test=y,
        y_pred=y_pred,
        y_score=y_score,
        sensitive={"sex": group},
        privileged={"sex": "m"},
        feature_names=["hours", "relationship"] + [f"noise{j}" for j in range(6)],
    )


def test_bias_sources_show_the_features_favouring_either_group():
    context = bias_context()
    section = bias_sources_section(context)
    explanations = section.data["explainers"]["sex"].explanations_
    names = np.array(context.feature_names)
    # The precondition: by beta+ alone (the former table), "relationship" was left out.
    assert "relationship" not in names[np.argsort(-explanations.positive)[:5]]
    assert names[np.argmax(explanations.negative)] == "relationship"
    listed = [row[0] for row in section.blocks[0].rows[1:]]
    expected = set(names[np.argsort(-explanations.positive)[:5]]) | set(
        names[np.argsort(-explanations.negative)[:5]]
    )
    assert set(listed) == expected
    # In the order of beta, as the figure's bars.
    betas = [row[1] for row in section.blocks[0].rows[1:]]
    assert betas == sorted(betas, reverse=True)
    relationship = next(row for row in section.blocks[0].rows if row[0] == "relationship")
    assert relationship[3] > relationship[2]  # beta- (f favoured) above beta+


def intersection_scores(seed=0, n=3000):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["Female", "Male"], n)
    race = rng.choice(["Black", "White"], n)
    scores = np.clip(rng.normal(0.4 + 0.2 * (sex == "Male"), 0.15), 0, 1)
    return scores, sex, race


def test_madd_figure_title_gives_the_tables_number():
    scores, sex, race = intersection_scores()
    context = AuditContext(
        model=None,
        X_test=np.zeros((scores.size, 1)),
        y_test=(scores > 0.5).astype(int),
        y_pred=(scores > 0.5).astype(int),
        y_score=scores,
        sensitive={"sex": sex, "race": race},
    )
    section = madd_section(context)
    worst = {row[0]: row[1] for row in section.blocks[0].rows}
    for figure in section.figures:
        name = figure.caption.split(":")[0]
        display = figure.draw()
        title = display.ax_[0].get_title()
        assert title.startswith(f"stable MADD = {worst[name]:.3f} (")
        # The histograms' own MADD (at the bins shown) is named as such.
        shown = np.abs(display.proportions[0] - display.proportions[1]).sum()
        assert re.search(rf"\d+ bins shown: {shown:.3f}\)$", title)
    matplotlib.pyplot.close("all")


def test_legends_and_tick_labels_read_intersections_as_a_and_b():
    scores, sex, race = intersection_scores()
    both = np.column_stack([sex, race])
    madd = MADDDisplay.from_predictions(None, scores, sensitive_features=both)
    search = madd_bandwidth_search(None, scores, sensitive_features=both)
    legend = [text.get_text() for text in madd.ax_[0].get_legend().get_texts()]
    assert legend == [" & ".join(label) for label in search.worst_pair]
    distribution = ScoreDistributionDisplay.from_predictions(scores, sensitive_features=both)
    texts = [t.get_text() for t in distribution.ax_[-1].get_legend().get_texts()]
    assert "Female & Black" in texts and not any("(" in text for text in texts)
    y = (scores > 0.5).astype(int)
    rates = GroupRatesDisplay.from_predictions(y, y, sensitive_features=both)
    ticks = [tick.get_text() for tick in rates.ax_[0].get_yticklabels()]
    assert any(tick.startswith("Female & Black (n=") for tick in ticks)
    assert not any("('" in tick for tick in ticks)
    matplotlib.pyplot.close("all")


def test_repairing_the_data_cautions_about_rates_on_few_rows():
    rng = np.random.default_rng(0)
    n = 4000
    sex = rng.choice(["F", "M"], 2 * n)
    # "tiny": about 12 evaluation rows, a few of them with y = 1.
    race = np.where(rng.random(2 * n) < 0.003, "tiny", rng.choice(["x", "y"], 2 * n))
    income = rng.normal(size=2 * n) + 1.0 * (sex == "M")
    X = np.c_[income, rng.normal(size=2 * n)]
    y = (income + rng.normal(size=2 * n) > 0.8).astype(int)
    model = LogisticRegression().fit(X[:n], y[:n])
    context = AuditContext(
        model=model,
        X_test=X[n:],
        y_test=y[n:],
        y_pred=model.predict(X[n:]),
        y_score=model.predict_proba(X[n:])[:, 1],
        sensitive={"sex": sex[n:], "race": race[n:]},
        X_train=X[:n],
        y_train=y[:n],
        sensitive_train={"sex": sex[:n], "race": race[:n]},
        feature_names=["income", "other"],
    )
    notes = data_repair_section(context).notes
    # The oracle: the smallest positive count of rows with y = 1 / y = 0 of a joint group.
    frame = pd.DataFrame({"sex": sex[n:], "race": race[n:], "y": y[n:]})
    counts = frame.groupby(["sex", "race", "y"]).size()
    (fewest_sex, fewest_race, fewest_y), fewest = counts.idxmin(), counts.min()
    assert fewest < 30
    expected = (
        f"EO of sex & race: small groups. {fewest_sex} & {fewest_race} has {fewest} rows with "
        f"y={fewest_y}, so one changed prediction moves its rate by {1 / fewest:.2f}"
    )
    assert any(note.startswith(expected) for note in notes), notes
    # sex alone has no small group: no caution about it.
    assert not any(note.startswith(("DP of sex:", "EO of sex:")) for note in notes)
