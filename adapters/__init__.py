"""Clients of the split finders (installed as ``apsplit.adapters``).

Boosting loops and library bridges live here; they feed the core
(``apsplit.find_split`` / ``apsplit.grow_tree``) the node's rows in weight
order and the candidate features of each round.  Gradient boosting in
XGBoost's API: ``train``, ``DMatrix``, ``Booster`` (``adapters.training``),
its objectives, metrics and callbacks; ``adapters.export`` writes a Booster, an
AdaBoost client or a tree classifier in XGBoost's JSON and LightGBM's text format
(``to_xgboost``, ``to_lightgbm``, ``save_model``), ``adapters.model_import`` reads
them back (``Booster.from_xgboost``, ``Booster.from_lightgbm``, ``train(xgb_model=...)``).
"""

from .boosting import AdaBoost, Boosting, LazyBoost, WeightTrimmingBoost
from .callback import (CallbackContainer, EarlyStopping, EvaluationMonitor, ProgressBar,
                       TrainingCallback)
from .dmatrix import DMatrix
from .objectives import lightgbm_objective, sklearn_objective
from .training import Booster, train

__all__ = ["AdaBoost", "LazyBoost", "WeightTrimmingBoost", "Boosting", "train", "DMatrix",
           "Booster", "TrainingCallback", "CallbackContainer", "EarlyStopping",
           "EvaluationMonitor", "ProgressBar", "lightgbm_objective", "sklearn_objective"]
