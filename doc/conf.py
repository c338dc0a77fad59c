"""Sphinx configuration of the skfair documentation."""

import importlib.util
import os
import sys
import warnings
from pathlib import Path

import skfair

# Build from a checkout without installing: the package sits one level up.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

project = "skfair"
author = "skfair developers"
copyright = "2026, skfair developers"
version = release = skfair.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

# Formulas are typeset by a copy of MathJax in the built site (the docs extra's
# sphinx-mathjax-offline), so that they render offline too; without that package the build
# still works, with MathJax loaded from the network.
if importlib.util.find_spec("sphinx-mathjax-offline") is not None:
    extensions.append("sphinx-mathjax-offline")
    mathjax_path = "mathjax/tex-chtml.js"
else:
    print(
        "skfair docs: MathJax is loaded from the network; install the docs extra for a site "
        "that works offline."
    )

templates_path = ["_templates"]
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py"]
root_doc = "index"

autosummary_generate = True
autodoc_default_options = {"members": True}


def _skip_metadata_request_setters(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated ``set_*_request`` methods (documented upstream)."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_request_setters)
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# Cross-references in "See Also" and parameter types resolve to the API pages or to intersphinx.
numpydoc_xref_param_type = False
numpydoc_xref_ignore = {
    "of",
    "or",
    "and",
    "shape",
    "default",
    "optional",
    "instance",
    "callable",
    "array-like",
    "ndarray",
    "n_samples",
    "n_features",
    "n_groups",
    "n_classes",
    "n_estimators",
    "n_attributes",
    "n_outputs",
    "n_boot",
    "n_bandwidths",
    "n_columns",
    "n_rows",
    "n_players",
    "n_thresholds",
    "n_levels",
    "n_pairs",
    "n_sensitive",
    "estimator",
    "object",
    "dtype",
    "like",
    "function",
    "sparse",
    "matrix",
    "DataFrame",
    "Series",
    "Bunch",
    "dict",
    "list",
    "tuple",
    "str",
    "int",
    "float",
    "bool",
    "None",
    "path-like",
    "generator",
    "Generator",
    "RandomState",
}

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable/", None),
    "scipy": ("https://docs.scipy.org/doc/scipy/", None),
    "sklearn": ("https://scikit-learn.org/stable/", None),
    "pandas": ("https://pandas.pydata.org/docs/", None),
    "matplotlib": ("https://matplotlib.org/stable/", None),
    "dask": ("https://docs.dask.org/en/stable/", None),
}
# The build must not need the network (CI has none): intersphinx inventories are used only when
# SKFAIR_DOCS_INTERSPHINX=1 is set by someone building with network access.
if os.environ.get("SKFAIR_DOCS_INTERSPHINX") != "1":
    intersphinx_mapping = {}

html_theme = "pydata_sphinx_theme"
html_title = "skfair"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path = ["_static"]
# Long API names wrap instead of being cut off (titles, signatures, the page's contents).
html_css_files = ["skfair.css"]

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    # Every example runs: the gallery shows their output and figures.
    "filename_pattern": r".*\.py$",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "backreferences_dir": None,
    # The page of execution times loads jQuery and DataTables from a CDN: not written, so
    # that the site works offline.
    "write_computation_times": False,
}

# Examples run headless.
os.environ.setdefault("MPLBACKEND", "Agg")
warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")
