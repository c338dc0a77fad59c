"""Input handling, the ground floor of skfair.

Frames of any library (``_frames``), sensitive features to group codes and the one
factoriser of columns (``_groups``), rows of X (``_rows``), checks with clear messages
(``_validation``), random numbers (``_random``), reading a fitted model's outputs
(``_response``), the scikit-learn compatibility shim (``_compat``) and the check of the shared
import name (``_name_clash``). Nothing here imports any other part of skfair.
"""
