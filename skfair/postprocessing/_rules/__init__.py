"""Decision rules: per-group randomised decisions chosen from a model's scores.

The group thresholds of a binary model (ROC hulls and their linear program, predictive
parity), the fair argmax of a multi-class model, the objective-against-fairness front over
tolerances, and what their estimators share (model fitting, group codes, randomised draws).
The score repairs (transport maps of the outputs) are the other half of
:mod:`skfair.postprocessing`.
"""
