"""Fix the data: reweighing, linear decorrelation and distribution repair of the features.

The model trained afterwards is an ordinary one: the sensitive attribute is needed when the
training data are prepared (and by the feature repairs, to transform new rows), not by the
model.
"""

from skfair.preprocessing._correlation import CorrelationRemover
from skfair.preprocessing._feature_repair import FeatureRepair
from skfair.preprocessing._reweighing import ReweighingClassifier, reweighing_weights

__all__ = ["CorrelationRemover", "FeatureRepair", "ReweighingClassifier", "reweighing_weights"]
