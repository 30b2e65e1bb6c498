"""Writing a gradient-boosting ``Booster`` in XGBoost's JSON and LightGBM's text model format
(``adapters.model_import`` reads both back: ``Booster.from_xgboost`` / ``from_lightgbm``).

Both files are written here by hand, field by field; the libraries are only
imported to load what was written (``Booster.to_xgboost`` /
``Booster.to_lightgbm``).  The exported model predicts what apsplit predicts:

- **Trees.**  XGBoost: one tree per class per round, in apsplit's order, with
  ``tree_info`` giving each tree's class; the nodes keep apsplit's numbering
  (XGBoost's own, level by level).  LightGBM: ``num_tree_per_iteration`` =
  number of classes, trees interleaved by class (tree i adds to class
  i mod K), internal nodes and leaves renumbered as LightGBM numbers them.
  Leaf values carry the learning rate already (``shrinkage=1``).
- **Intercept.**  XGBoost 3 stores ``base_score`` in the space of the
  prediction: a probability for ``reg:logistic`` / ``binary:logistic``, the
  margin otherwise (one per class for ``multi:*``).  LightGBM has no
  intercept field: it keeps the intercept in the leaves of the first tree of
  each class (as its ``boost_from_average`` does), so a model without trees
  cannot be written in its format.
- **Missing values** go where apsplit sends them: XGBoost's ``default_left``;
  LightGBM's ``decision_type`` with missing type NaN (8 = NaN right, 10 = NaN
  left).  XGBoost reads an absent scipy.sparse entry as missing, as apsplit's
  DMatrix does; LightGBM reads it as 0.0.  For LightGBM pass dense data with
  NaN where the entry is missing (``missing_as_nan(X)``).
- **Thresholds.**  apsplit sends ``x <= threshold`` left, on X rounded to
  float32 (``DMatrix``).  XGBoost sends ``x < t`` left on float32 X: t is the
  least float32 above ``threshold``, and every training value must then go
  the side apsplit sent it: ``float32(left_value) < t <= float32(right_value)`` (t
  raised to just above float32(left_value) where a float64 left value rounds up past
  the threshold);
  a split whose two values are one float32 is refused (ValueError naming the
  tree, the node and the values).  For trees grown by ``train`` t is
  ``NewtonTree.xgboost_split_conditions()``.  LightGBM compares ``x <=
  threshold`` in double on the values as given: the threshold written is the
  largest double that rounds to a float32 at or below apsplit's threshold, so
  that float64 input is routed as apsplit routes it after rounding (on float32
  data that is apsplit's threshold itself).  Written with 17 significant
  digits, it reads back exactly.
- **Objectives** (XGBoost's name / LightGBM's): reg:squarederror /
  ``regression``; reg:logistic / ``cross_entropy``; binary:logistic /
  ``binary sigmoid:1``; binary:logitraw / none (LightGBM's ``predict`` then
  gives the raw margin, as apsplit's does); multi:softprob and multi:softmax /
  ``multiclass num_class:K`` (LightGBM predicts probabilities: take the
  argmax for softmax's classes).  A custom objective is written as raw
  margins (XGBoost: ``reg:squarederror``, with ``num_class`` for several
  outputs; LightGBM: no objective).
- **AdaBoost, SAMME and single trees** (``AdaBoost`` and the other clients of
  ``adapters.boosting``, ``APBoostClassifier``, ``APTreeClassifier``) are written
  as raw scores (``vote_booster``, ``proba_booster``): two classes as
  ``binary:logitraw`` with one tree per round whose leaves are +-2 alpha_t /
  sum |alpha| (+ where the leaf votes for ``classes_[1]``), so the margin is the
  client's ``decision_function`` (and its sigmoid ``predict_proba[:, 1]``); more
  classes as ``multi:softmax`` (LightGBM: ``multiclass``) with one tree per class
  per round, leaf alpha_t / sum |alpha| where the leaf votes for the class and
  -alpha_t / ((C - 1) sum |alpha|) elsewhere (SAMME's vote), so the margins are
  ``decision_function`` and their argmax the predicted class code; a tree
  classifier as one tree per class (one for two classes) whose leaves are the
  leaf's class probabilities, written as raw scores (XGBoost's
  ``reg:squarederror``, LightGBM without objective), so that the libraries'
  ``predict`` is ``predict_proba`` (two classes: its column 1).  These models
  compare ``x <= threshold`` on X as given (float64): LightGBM gets the
  threshold itself, XGBoost the float32 rule above with the two training values
  around the threshold (``apsplit.tree.split_values``).  apsplit reads an absent
  sparse entry as 0 and refuses NaN; both files send a missing value where 0
  goes.  A categorical split (categories sent left, every other value right)
  is LightGBM's categorical split (``decision_type`` 9, a bitset of the left
  categories, which must be integers in [0, 2**24); LightGBM truncates a
  non-integer input to an integer, apsplit sends it right) and XGBoost's (the
  left categories as the node's category set, whose members XGBoost sends
  right, so the children are written swapped; ``feature_types`` "c" for those
  features, so predict with ``DMatrix(X, feature_types=xb.feature_types,
  enable_categorical=True)``).  A Newton tree's categorical split (``train`` on
  categorical features) sends its set right and every other value, unseen codes
  and missing values left (XGBoost's own rule): XGBoost gets the set as it is;
  LightGBM gets it as the bitset with the children swapped, since LightGBM
  sends NaN, negative values and codes outside the bitset right.  Both then
  route every value as apsplit does, except that LightGBM truncates a value in
  (-1, 0) to the code 0 where apsplit and XGBoost call it negative.  An imported
  tree keeps its library's rules: an XGBoost tree's split may send missing values
  right with its set, which LightGBM cannot hold (a ValueError naming the tree and
  the node); a LightGBM tree (``truncate_codes``) goes to XGBoost as its bitset's
  codes, routed alike except a value in (-1, 0), which XGBoost calls negative.
- **Feature names** (``DMatrix(feature_names=...)`` or a DataFrame's columns)
  go into both files; LightGBM's are separated by spaces, so whitespace in a
  name becomes ``_``, as LightGBM's own Dataset does.  Without names LightGBM
  gets ``Column_<i>``, XGBoost none.
"""

import json
import math
import os
import re
import warnings

import numpy as np
import scipy.sparse as sp

from ..newton import NewtonTree
from ..optional import require
from ..tree import node_impurity
from .objectives import get_objective

__all__ = ["FORMATS", "xgboost_json", "lightgbm_text", "to_xgboost", "to_lightgbm",
           "save_model", "xgboost_conditions", "lightgbm_thresholds", "missing_as_nan",
           "vote_booster", "proba_booster", "Exportable"]

FORMATS = ("xgboost", "lightgbm")
_ROOT_PARENT = 2147483647  # XGBoost's parent of the root
_XGB_VERSION = [3, 2, 0]   # the JSON schema written (XGBoost 3's: vector base_score)
_LGB_OBJECTIVE = {"reg:squarederror": "regression", "reg:logistic": "cross_entropy",
                  "binary:logistic": "binary sigmoid:1", "binary:logitraw": None}


def _trees(booster):
    """(trees, tree_info) of a Booster, checked: Newton trees, classes round by round."""
    k = booster.n_outputs
    if len(booster.trees) % k:
        raise ValueError(f"the model has {len(booster.trees)} trees, not a whole number of "
                         f"rounds of {k}")
    for i, c in enumerate(booster.tree_info):
        if c != i % k:
            raise ValueError(f"tree {i} adds to class {c}, not {i % k}: both formats expect "
                             f"one tree per class per round, classes in order")
    return booster.trees, booster.tree_info


def _f32(x):
    """x rounded to float32, as a Python float (its repr reads back as that float32)."""
    return float(np.float32(x))


def _floor32(x):
    """The largest float32 <= x (x a finite double)."""
    f = np.float32(x)
    if float(f) > float(x):  # in double: NumPy 2 compares a float32 with a Python float in float32
        f = np.nextafter(f, np.float32(-np.inf))
    return f


# ------------------------------------------------------------------ thresholds
def xgboost_conditions(tree, index=0):
    """XGBoost's float32 ``split_conditions`` t of every split of a NewtonTree (NaN at
    leaves): ``x < t`` on float32 x is apsplit's ``x <= threshold`` (t the least float32
    above the threshold), and each split's two training values stay on their sides (t is
    raised above float32(left value) where a float64 left value rounds up past the
    threshold); otherwise a ValueError naming tree ``index``, the node and the two
    values."""
    out = np.full(tree.node_count, np.nan, np.float32)
    categories = _categories(tree)
    for node in np.flatnonzero(np.asarray(tree.feature) >= 0):
        if categories[node] is not None:  # a categorical split has no threshold
            continue
        thr = float(tree.threshold[node])
        lo, hi = float(tree.left_value[node]), float(tree.right_value[node])
        where = (f"tree {index}, node {node} (feature {int(tree.feature[node])}): the "
                 f"training values {lo!r} and {hi!r}")
        if not math.isfinite(thr):
            raise ValueError(f"{where} have the threshold {thr!r}, which XGBoost cannot hold")
        with np.errstate(over="ignore"):
            up = np.float32(np.inf)
            t = max(np.nextafter(_floor32(thr), up), np.nextafter(np.float32(lo), up))
        if not np.isfinite(t):
            raise ValueError(f"{where}: the threshold {thr!r} is beyond float32's range")
        if not (np.float32(lo) < t and (math.isinf(hi) or t <= np.float32(hi))):
            raise ValueError(f"{where} are one float32 ({np.float32(lo)!r} and "
                             f"{np.float32(hi)!r}): no float32 threshold of XGBoost's x < t "
                             f"separates them (train on float32 data, as DMatrix rounds it)")
        out[node] = t
    return out


def lightgbm_thresholds(tree):
    """LightGBM's double thresholds (``x <= threshold`` left) of a NewtonTree's splits (NaN
    at leaves): the largest double that rounds to a float32 at or below apsplit's
    threshold, so that unrounded float64 values go where apsplit sends them once
    rounded to float32.  A tree read from LightGBM (``input_dtype`` "float64") keeps its
    double thresholds."""
    out = np.full(tree.node_count, np.nan)
    if getattr(tree, "input_dtype", "float32") == "float64":  # read from LightGBM: as is
        split = np.asarray(tree.feature) >= 0
        out[split] = np.asarray(tree.threshold, dtype=np.float64)[split]
        return out
    for node in np.flatnonzero(np.asarray(tree.feature) >= 0):
        f = _floor32(float(tree.threshold[node]))
        up = np.nextafter(f, np.float32(np.inf))
        if not np.isfinite(up):
            out[node] = float(f)
            continue
        mid = (float(f) + float(up)) / 2.0  # exact in double
        out[node] = mid if np.float32(mid) == f else float(np.nextafter(mid, -np.inf))
    return out


# ------------------------------------------------------------------ XGBoost
def _objective_name(booster):
    return booster.objective.name if booster.objective is not None else None


def _categories(tree):
    """Per node: None, or (the category set of a categorical split, whether its members go
    right): an AdaBoost-family tree's ``categories_left`` (members left, every other value
    right), a Newton tree's ``categories_right`` (members right, every other value and the
    missing ones left)."""
    left = getattr(tree, "categories_left", None)
    if left is not None:
        return [None if c is None else (c, False) for c in left]
    return [None if c is None else (c, True) for c in tree.categories_right]


def _bitset(categories):
    """LightGBM's ``cat_threshold`` words of a set of non-negative integer categories:
    bit c % 32 of word c // 32."""
    words = [0] * (int(max(categories)) // 32 + 1)
    for c in categories:
        words[int(c) // 32] |= 1 << (int(c) % 32)
    return words


def _xgb_tree(tree, index, n_features):
    """One tree of XGBoost's JSON.  XGBoost sends the members of a categorical split's set
    right and every other value (unseen and negative ones included) left: a Newton tree's
    right set is written as it is; an AdaBoost-family tree's left set is written with the
    children swapped."""
    feature = np.asarray(tree.feature)
    split = feature >= 0
    cond = xgboost_conditions(tree, index)
    value = np.asarray(tree.value, dtype=np.float64)
    n = tree.node_count
    parents = [int(p) if p >= 0 else _ROOT_PARENT for p in np.asarray(tree.parent)]
    left, right = list(map(int, tree.children_left)), list(map(int, tree.children_right))
    default_left = [bool(d) and bool(s) for d, s in zip(tree.default_left, split)]
    cat_nodes, cat_values = [], []
    for node, split_set in enumerate(_categories(tree)):
        if split_set is not None:
            cats, members_right = split_set
            cat_nodes.append(node)
            cat_values.append(sorted(int(c) for c in cats))
            if not members_right:
                left[node], right[node] = right[node], left[node]
                default_left[node] = not default_left[node]
            cond[node] = 0.0
    return {
        "base_weights": [_f32(w) for w in tree.base_weight],
        "categories": [c for cats in cat_values for c in cats],
        "categories_nodes": cat_nodes,
        "categories_segments": [int(b) for b in np.cumsum([0] + [len(c) for c in cat_values])[:-1]],
        "categories_sizes": [len(c) for c in cat_values],
        "default_left": [int(d) for d in default_left],
        "id": int(index),
        "left_children": left,
        "loss_changes": [_f32(g) if s else 0.0 for g, s in zip(tree.gain, split)],
        "parents": parents,
        "right_children": right,
        "split_conditions": [float(cond[i]) if split[i] else _f32(value[i]) for i in range(n)],
        "split_indices": [int(f) if s else 0 for f, s in zip(feature, split)],
        "split_type": [int(i in cat_nodes) for i in range(n)],
        "sum_hessian": [_f32(h) for h in tree.cover],
        "tree_param": {"num_deleted": "0", "num_feature": str(n_features),
                       "num_nodes": str(n), "size_leaf_vector": "1"},
    }


def _xgb_feature_types(trees, n_features):
    """XGBoost's ``feature_types``: "c" for a feature some tree splits by categories, "q"
    for the others; [] (all numeric) without categorical splits."""
    categorical = {int(t.feature[node]) for t in trees
                   for node, split_set in enumerate(_categories(t)) if split_set is not None}
    return ["c" if f in categorical else "q" for f in range(n_features)] if categorical else []


def _xgb_float(x):
    return repr(float(np.float32(x))).upper()


def xgboost_json(booster):
    """The model as XGBoost 3's JSON document (a dict; ``json.dumps`` writes the file)."""
    trees, info = _trees(booster)
    k = booster.n_outputs
    name = _objective_name(booster)
    base = np.asarray(booster.base_margin, dtype=np.float64)
    if name in ("reg:logistic", "binary:logistic"):
        base = 1.0 / (1.0 + np.exp(-base))  # XGBoost 3 keeps a probability
    params = getattr(booster, "params", {}) or {}
    spw = str(params.get("scale_pos_weight", 1))
    if name is None or not name.startswith("multi:"):
        objective = {"name": name or "reg:squarederror",
                     "reg_loss_param": {"scale_pos_weight": spw}}
    else:
        objective = {"name": name, "softmax_multiclass_param": {"num_class": str(k)}}
    names = booster.feature_names
    if names is not None:
        bad = [n for n in names if any(c in str(n) for c in "[]<")]
        if bad:
            raise ValueError(f"XGBoost refuses feature names holding '[', ']' or '<': {bad}")
    rounds = len(trees) // k
    return {
        "learner": {
            "attributes": {str(a): str(v) for a, v in booster.attributes().items()},
            "feature_names": [str(n) for n in names] if names is not None else [],
            "feature_types": _xgb_feature_types(trees, booster.n_features),
            "gradient_booster": {
                "model": {
                    "cats": {"enc": [], "feature_segments": [], "sorted_idx": []},
                    "gbtree_model_param": {"num_parallel_tree": "1",
                                           "num_trees": str(len(trees))},
                    "iteration_indptr": [r * k for r in range(rounds + 1)],
                    "tree_info": [int(c) for c in info],
                    "trees": [_xgb_tree(t, i, booster.n_features) for i, t in enumerate(trees)],
                },
                "name": "gbtree",
            },
            "learner_model_param": {
                "base_score": "[" + ",".join(_xgb_float(b) for b in base) + "]",
                "boost_from_average": "0",  # the intercept is final
                "num_class": str(k if k > 1 else 0),
                "num_feature": str(booster.n_features),
                "num_target": "1",
            },
            "objective": objective,
        },
        "version": list(_XGB_VERSION),
    }


def to_xgboost(booster):
    """An ``xgboost.Booster`` loaded from the JSON written by ``xgboost_json``."""
    xgb = require("xgboost", "exporting to XGBoost")
    raw = bytearray(json.dumps(xgboost_json(booster)).encode())
    return xgb.Booster(model_file=raw)


# ------------------------------------------------------------------ LightGBM
def _g(x):
    """A double in 17 significant digits (reads back exactly)."""
    return "%.17g" % float(x)


def _lgb_names(booster):
    if booster.feature_names is None:
        return [f"Column_{i}" for i in range(booster.n_features)]
    out = []
    for n in booster.feature_names:
        s = re.sub(r"\s", "_", str(n))
        if s != str(n):
            warnings.warn(f"feature name {n!r} holds whitespace; LightGBM gets {s!r}",
                          UserWarning, stacklevel=4)
        out.append(s)
    return out


def _lgb_infos(trees, n_features):
    """LightGBM's ``feature_infos``: [min:max] of the training values the splits on a
    feature separate (apsplit keeps no other range), ``none`` for unused features."""
    lo = np.full(n_features, np.inf)
    hi = np.full(n_features, -np.inf)
    for t in trees:
        for node in np.flatnonzero(np.asarray(t.feature) >= 0):
            f = int(t.feature[node])
            for v in (t.left_value[node], t.right_value[node]):
                if math.isfinite(v):
                    lo[f], hi[f] = min(lo[f], v), max(hi[f], v)
    return ["none" if lo[f] > hi[f] else f"[{_g(lo[f])}:{_g(hi[f])}]" for f in range(n_features)]


def _lgb_tree(tree, index, offset):
    """One ``Tree=`` block; ``offset`` is added to every leaf (the intercept)."""
    feature = np.asarray(tree.feature)
    value = np.asarray(tree.value, dtype=np.float64)
    internal, leaves, order = {}, {}, [0]
    for node in order:  # breadth first: LightGBM's root is internal node 0
        if feature[node] >= 0:
            internal[node] = len(internal)
            order += [int(tree.children_left[node]), int(tree.children_right[node])]
        else:
            leaves[node] = len(leaves)
    nodes = sorted(internal, key=internal.get)
    categories = _categories(tree)
    cat_nodes = [n for n in nodes if categories[n] is not None]
    lines = [f"Tree={index}", f"num_leaves={len(leaves)}", f"num_cat={len(cat_nodes)}"]
    if internal:
        thr = lightgbm_thresholds(tree)
        decision = {n: "10" if tree.default_left[n] else "8" for n in nodes}
        children = {n: (tree.children_left[n], tree.children_right[n]) for n in nodes}
        bitsets = []
        for i, n in enumerate(cat_nodes):  # categorical: threshold is the bitset's index
            thr[n], decision[n] = i, "9"  # categorical, NaN (and negatives) right
            cats, members_right = categories[n]
            if members_right and not tree.default_left[n]:
                raise ValueError(f"tree {index}, node {n} (feature {int(feature[n])}) sends a "
                                 f"missing value right with its categories {list(cats)}: "
                                 f"LightGBM sends it with the codes outside its bitset, so "
                                 f"its format cannot hold the split")
            bitsets.append(_bitset(cats))
            if members_right:  # a Newton split: LightGBM's left (the members) is its right
                children[n] = children[n][::-1]

        def child(c):
            c = int(c)
            return str(internal[c]) if c in internal else str(~leaves[c])
        lines += [
            "split_feature=" + " ".join(str(int(feature[n])) for n in nodes),
            "split_gain=" + " ".join(_g(tree.gain[n]) for n in nodes),
            "threshold=" + " ".join(_g(thr[n]) for n in nodes),
            "decision_type=" + " ".join(decision[n] for n in nodes),
            "left_child=" + " ".join(child(children[n][0]) for n in nodes),
            "right_child=" + " ".join(child(children[n][1]) for n in nodes),
        ]
        if cat_nodes:
            bounds = np.cumsum([0] + [len(b) for b in bitsets])
            lines += ["cat_boundaries=" + " ".join(str(int(b)) for b in bounds),
                      "cat_threshold=" + " ".join(str(w) for b in bitsets for w in b)]
    else:
        lines += ["split_feature=", "split_gain=", "threshold=", "decision_type=",
                  "left_child=", "right_child="]
    leaf_nodes = sorted(leaves, key=leaves.get)
    lines += [
        "leaf_value=" + " ".join(_g(value[n] + offset) for n in leaf_nodes),
        "leaf_weight=" + " ".join(_g(tree.cover[n]) for n in leaf_nodes),
        "leaf_count=" + " ".join(str(int(tree.n_node_samples[n])) for n in leaf_nodes),
        "internal_value=" + " ".join(_g(value[n] + offset) for n in nodes),
        "internal_weight=" + " ".join(_g(tree.cover[n]) for n in nodes),
        "internal_count=" + " ".join(str(int(tree.n_node_samples[n])) for n in nodes),
        "is_linear=0",
        "shrinkage=1",
    ]
    return "\n".join(lines) + "\n\n\n"


def lightgbm_text(booster):
    """The model in LightGBM's text format (``lightgbm.Booster(model_str=...)``)."""
    trees, _ = _trees(booster)
    k = booster.n_outputs
    if not trees:
        raise ValueError("the model has no trees: LightGBM keeps the intercept in the first "
                         "tree of each class, so train at least one round before exporting")
    name = _objective_name(booster)
    if name is None:
        objective = None
    elif name.startswith("multi:"):
        objective = f"multiclass num_class:{k}"
    else:
        objective = _LGB_OBJECTIVE[name]
    header = ["tree", "version=v4", f"num_class={k}", f"num_tree_per_iteration={k}",
              "label_index=0", f"max_feature_idx={booster.n_features - 1}"]
    if objective is not None:
        header.append(f"objective={objective}")
    header += ["feature_names=" + " ".join(_lgb_names(booster)),
               "feature_infos=" + " ".join(_lgb_infos(trees, booster.n_features))]
    base = np.asarray(booster.base_margin, dtype=np.float64)
    blocks = [_lgb_tree(t, i, base[i] if i < k else 0.0) for i, t in enumerate(trees)]
    return ("\n".join(header) + "\n\n" + "".join(blocks) + "end of trees\n\n"
            + "pandas_categorical:null\n")


def to_lightgbm(booster):
    """A ``lightgbm.Booster`` loaded from the text written by ``lightgbm_text``."""
    lgb = require("lightgbm", "exporting to LightGBM")
    return lgb.Booster(model_str=lightgbm_text(booster))


# ------------------------------------------------------------------ files, data
def save_model(booster, path, format="xgboost"):
    """Write the model file: XGBoost's JSON (``format="xgboost"``) or LightGBM's text
    (``"lightgbm"``), loadable with ``xgboost.Booster(model_file=path)`` /
    ``lightgbm.Booster(model_file=path)``."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; choose one of {list(FORMATS)}")
    text = json.dumps(xgboost_json(booster)) if format == "xgboost" else lightgbm_text(booster)
    with open(os.fspath(path), "w", encoding="utf-8") as f:
        f.write(text)


def missing_as_nan(X):
    """X dense (float64) with NaN where an entry is missing: an absent scipy.sparse entry
    (apsplit and XGBoost read it as missing, LightGBM as 0.0).  Dense X is returned as a
    float64 array; a stored sparse entry keeps its value, zeros included."""
    if not sp.issparse(X):
        return np.asarray(X, dtype=np.float64)
    coo = sp.coo_matrix(X)
    coo.sum_duplicates()
    out = np.full(coo.shape, np.nan)
    out[coo.row, coo.col] = coo.data
    return out


# ------------------------------------------------------------------ AdaBoost, SAMME, trees
def _class_tree(tree, value, index):
    """An apsplit ``Tree`` (class weights at its nodes) as a NewtonTree that outputs
    ``value`` (one number per node): the same routing, on X as given (input_dtype
    "float64"), a missing value sent where 0 goes; its gain the weighted impurity
    decrease, its cover the node's weight.  A categorical split keeps its left
    categories (``categories_left``), which must be integers in [0, 2**24) (exact in
    float32, as XGBoost reads X)."""
    for node, cats in enumerate(tree.categories_left):
        cats = None if cats is None else np.asarray(cats, dtype=np.float64)
        if cats is not None and not np.all((cats >= 0) & (cats < 2 ** 24) & (cats % 1 == 0)):
            raise ValueError(f"tree {index}, node {node} splits feature {int(tree.feature[node])} "
                             f"by categories {list(cats)}: the formats hold categories that are "
                             f"integers in [0, 2**24) only")
    split = tree.feature >= 0
    impurity = node_impurity(tree.value, tree.criterion)
    left = np.where(split, tree.children_left, 0)
    right = np.where(split, tree.children_right, 0)
    gain = np.where(split, impurity - impurity[left] - impurity[right], 0.0)
    with np.errstate(invalid="ignore"):
        zero_left = split & (0.0 <= tree.threshold)
    out = NewtonTree.from_arrays(
        tree.feature, tree.threshold, zero_left, tree.children_left, tree.children_right,
        value, tree.n_features, base_weight=value, gain=gain, cover=tree.value.sum(axis=1),
        n_node_samples=tree.n_node_samples, left_value=tree.left_value,
        right_value=tree.right_value, input_dtype="float64")
    if any(cats is not None for cats in tree.categories_left):
        out.categories_left = list(tree.categories_left)
    return out


def _booster(objective, n_outputs, n_features, feature_names, trees):
    """A Booster of ``trees`` [(NewtonTree, output)], intercept 0."""
    from .training import Booster  # training imports this module's users
    bst = Booster(None if objective is None else get_objective(objective), n_outputs,
                  np.zeros(n_outputs), n_features, feature_names)
    for tree, output in trees:
        bst.trees.append(tree)
        bst.tree_info.append(output)
    return bst


def vote_booster(trees, alphas, n_classes, n_features, feature_names=None):
    """AdaBoost / SAMME (trees of class weights, their alphas) as a Booster whose margin is
    the client's ``decision_function``: sum_t alpha_t v_t(x) / sum_t |alpha_t|, with
    v_t = +-2 (two classes: + where tree t votes for class 1; ``binary:logitraw``) or
    one margin per class k, v_tk = 1 where tree t votes for k and -1/(C - 1) elsewhere
    (``multi:softmax``, one tree per class per round)."""
    alphas = np.asarray(alphas, dtype=np.float64)
    norm = float(np.abs(alphas).sum()) or 1.0
    out = []
    for t, (tree, alpha) in enumerate(zip(trees, alphas)):
        vote = np.argmax(tree.value, axis=1)
        scale = alpha / norm
        if n_classes == 2:
            out.append((_class_tree(tree, np.where(vote == 1, 2.0, -2.0) * scale, t), 0))
            continue
        for k in range(n_classes):
            value = np.where(vote == k, 1.0, -1.0 / (n_classes - 1)) * scale
            out.append((_class_tree(tree, value, t), k))
    if n_classes == 2:
        return _booster("binary:logitraw", 1, n_features, feature_names, out)
    return _booster("multi:softmax", n_classes, n_features, feature_names, out)


def proba_booster(tree, n_classes, feature_names=None):
    """A tree classifier as raw-score trees whose outputs are its ``predict_proba``: one tree
    per class of the leaf's class-weight fractions (two classes: one tree, class 1's)."""
    value = np.maximum(tree.value, 0.0)
    proba = value / np.maximum(value.sum(axis=1, keepdims=True), np.finfo(float).tiny)
    classes = [1] if n_classes == 2 else range(n_classes)
    trees = [(_class_tree(tree, proba[:, k], 0), i) for i, k in enumerate(classes)]
    return _booster(None, len(trees), tree.n_features, feature_names, trees)


class Exportable:
    """``to_xgboost()``, ``to_lightgbm()`` and ``save_model(path, format)`` of a fitted model
    that ``_export_booster()`` writes as a Booster."""

    def to_xgboost(self):
        """The fitted model as an ``xgboost.Booster`` (``adapters.export``)."""
        return self._export_booster().to_xgboost()

    def to_lightgbm(self):
        """The fitted model as a ``lightgbm.Booster`` (``adapters.export``)."""
        return self._export_booster().to_lightgbm()

    def save_model(self, path, format="xgboost"):
        """Write the fitted model as XGBoost's JSON or LightGBM's text file."""
        self._export_booster().save_model(path, format=format)
