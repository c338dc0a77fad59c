"""The summary's verdict rules, reference groups and renderings, on small made-up audits."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skfair._audit import AuditContext, compute_sections
from skfair._audit._html import render_html
from skfair._audit._json import section_json
from skfair._audit._summary import MIN_ROWS, VERDICT_RULES, summary_section, verdict
from skfair._audit._text import render_section_markdown, render_section_text


@pytest.mark.parametrize(
    ("gap", "low", "high", "rows", "expected"),
    [
        (0.20, 0.12, 0.28, 500, "large gap"),
        (-0.20, -0.28, -0.06, 500, "large gap"),
        # Large, but the interval reaches inside the smaller cut-off: not sure it is large.
        (0.12, 0.04, 0.20, 500, "moderate gap"),
        (0.12, -0.01, 0.25, 500, "unclear"),
        (0.06, 0.055, 0.065, 500, "moderate gap"),
        (0.03, 0.01, 0.05, 500, "small gap"),
        (0.01, -0.02, 0.04, 500, "about equal"),
        (0.03, -0.03, 0.09, 500, "unclear"),
        # A narrow interval on few rows is not trusted (it can even collapse to a point).
        (0.50, 0.50, 0.50, MIN_ROWS - 1, "too few rows"),
        (np.nan, np.nan, np.nan, 500, "too few rows"),
    ],
)
def test_each_verdict_rule(gap, low, high, rows, expected):
    assert verdict(gap, low, high, rows, 1000) == expected
    assert verdict(gap, low, high, 1000, rows) == expected  # the reference's rows count too


def context_of(sensitive, privileged=None, n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    shift = sum((values == values[0]).astype(float) for values in sensitive.values())
    y = (X[:, 0] + 0.8 * shift + rng.normal(size=n) > 1).astype(int)
    model = LogisticRegression().fit(X, y)
    return AuditContext(
        model=model,
        X_test=X,
        y_test=y,
        y_pred=model.predict(X),
        y_score=model.predict_proba(X)[:, 1],
        sensitive=sensitive,
        privileged=privileged or {},
        description={"data": "made up"},
        feature_names=["a", "b"],
    )


def test_the_privileged_groups_of_every_attribute_are_the_intersection_reference():
    rng = np.random.default_rng(1)
    sex = rng.choice(["F", "M"], 3000)
    region = rng.choice(["n", "s", "e"], 3000, p=[0.6, 0.3, 0.1])
    context = context_of({"sex": sex, "region": region}, privileged={"sex": "F", "region": "s"})
    (section,) = compute_sections(context, {"summary": ("Summary", summary_section)})
    captions = [block.caption for block in section.blocks[3:]]
    assert captions == [
        "sex: reference group F (the privileged group, from --privileged)",
        "region: reference group s (the privileged group, from --privileged)",
        "sex & region: reference group F & s (the privileged groups of the attributes, from "
        "--privileged)",
    ]
    joint = section.blocks[-1]
    assert joint.rows[0][0] == "F & s" and joint.rows[0][-1] == "reference"
    assert len(joint.rows) == 3 * 6
    # Only one attribute privileged, or a combination without rows: the intersection falls
    # back to its largest group.
    largest = max(
        {(a, b) for a, b in zip(sex, region, strict=True)},
        key=lambda pair: np.sum((sex == pair[0]) & (region == pair[1])),
    )
    for privileged in ({"sex": "M"}, {"sex": "F", "region": "e"}):
        context.privileged = privileged
        if len(privileged) == 2:
            keep = ~((sex == "F") & (region == "e"))
            context = context_of(
                {"sex": sex[keep], "region": region[keep]}, privileged, n=int(keep.sum())
            )
        (section,) = compute_sections(context, {"summary": ("Summary", summary_section)})
        assert section.error is None
        assert section.blocks[-1].caption == (
            f"sex & region: reference group {largest[0]} & {largest[1]} (the largest group)"
        )


def test_a_rate_with_nothing_to_divide_by_has_too_few_rows():
    rng = np.random.default_rng(2)
    group = rng.choice(["big", "tiny"], 3000, p=[0.99, 0.01])
    context = context_of({"g": group})
    context.y_test = np.where(group == "tiny", 0, context.y_test)  # no positives: TPR undefined
    section = summary_section(context)
    tiny = {row[1]: row for row in section.blocks[3].rows if row[0] == "tiny"}
    assert tiny["TPR"][2] == 0 and np.isnan(tiny["TPR"][3].value)
    assert tiny["TPR"][-1] == "too few rows"
    text = render_section_text(section)
    assert "n/a [n/a, n/a]" in text


def test_every_format_shows_the_rules_the_reference_and_every_group():
    rng = np.random.default_rng(3)
    group = rng.choice(["<b>bold</b>", "a|b", "c_d"], 3000)
    context = context_of({"team": group})
    (section,) = compute_sections(context, {"summary": ("Summary", summary_section)})
    text = render_section_text(section)
    markdown = render_section_markdown(section)
    page = render_html([section])
    document = section_json(section)
    for rule, _ in VERDICT_RULES:
        assert rule in text and rule in markdown and f">{rule}<" in page
        assert [rule, _] in document["tables"][0]["rows"]
    assert "reference group" in text and "reference group" in page
    # Group names are data: shown as such, never as markup.
    assert "<b>bold</b>" in text
    assert "<b>" not in markdown and "\\<b\\>bold\\</b\\>" in markdown
    assert "a\\|b" in markdown and "c\\_d" in markdown
    assert "<b>bold" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page
    assert {row[0] for row in document["tables"][1]["rows"]} == set(group)
