"""Reading XGBoost's JSON and LightGBM's text model formats into a gradient-boosting ``Booster``.

The inverse of ``adapters.export``: ``Booster.from_xgboost(source)`` and
``Booster.from_lightgbm(source)`` take the library's Booster (read through
``save_raw("json")`` / ``model_to_string()``) or a model file's path, and
return an apsplit ``Booster`` that predicts what the library predicts, and
that ``train(..., xgb_model=...)`` continues.  The files are parsed here;
the libraries are needed only to hand over their own Booster objects (or
to convert XGBoost's binary UBJSON file to JSON).

What is read:

- **Trees.**  Numerical splits of any depth, renumbered breadth first (a
  node's children consecutive, left first: ``NewtonTree``'s numbering).
  XGBoost's ``tree_info`` gives each tree's class; LightGBM's trees are
  interleaved by class (tree i adds to class i mod ``num_tree_per_iteration``).
- **Thresholds.**  XGBoost sends ``x < t`` left, t a float32, on float32
  inputs: the threshold is the largest float32 below t, so ``x <= threshold``
  on float32 x is XGBoost's rule (as ``train`` sets its own trees' thresholds),
  and ``left_value`` / ``right_value`` are that float32 and t (the training
  values are not in the file).  LightGBM sends ``x <= threshold`` left in
  double: its threshold is kept as is and the tree's ``input_dtype`` is
  "float64", so that ``predict`` compares arrays as given, as LightGBM does
  (a ``DMatrix`` rounds X to float32 whatever the model; in a model
  continued by ``train`` the new trees get X rounded to float32, LightGBM's
  trees X as given).  ``left_value`` / ``right_value`` are the two float32
  the threshold separates (the largest float32 at or below it and the next
  one), so that an XGBoost export routes float32 data as LightGBM does.
- **Missing values.**  XGBoost's ``default_left``.  LightGBM's
  ``decision_type``: missing type NaN sends NaN the default way; missing type
  None makes NaN a 0.0 (so it goes where 0 compares: ``default_left = 0 <=
  threshold``); missing type Zero sends 0 (|x| <= 1e-35) and NaN the default
  way, which apsplit represents only when that is where 0 compares anyway
  (otherwise refused).  An absent scipy.sparse entry is missing to apsplit
  and XGBoost, 0.0 to LightGBM: give LightGBM-read models dense data
  (``export.missing_as_nan`` builds it).
- **Categorical splits** become apsplit's (``NewtonTree.categories_right``: a
  set of codes sent right, every other value left, a missing value the
  ``default_left`` way).  XGBoost's (``split_type`` 1; the node's codes are
  ``categories[categories_segments[i]:][:categories_sizes[i]]`` for node
  ``categories_nodes[i]``; one-hot splits are sets of one) are that rule
  already (``common::Decision``: float32 x in [0, 2**24) truncated to a code in
  the set goes right; other codes, negative values and unseen codes left;
  ``default_left`` for missing): kept as they are.  LightGBM's
  (``decision_type`` bit 0; ``threshold`` indexes ``cat_boundaries``, which
  bound the node's words of the ``cat_threshold`` bitset) send the bitset's
  codes LEFT and everything else right: apsplit gets the bitset as its set
  with the children swapped.  LightGBM's ``CategoricalDecision`` casts x to
  int first (toward zero: a value in (-1, 0) is the code 0, so the tree gets
  ``truncate_codes``) and sends a negative cast right; NaN casts to INT_MIN
  on x86-64, so NaN goes right whatever the missing type and default bit
  (measured with the real library; on a platform where the cast gives 0 a
  missing type other than NaN would read NaN as the code 0): default_left is
  True (apsplit's left is LightGBM's right).  A code apsplit cannot hold
  (outside [0, 2**24), or not an integer) is refused naming the tree, node and
  feature.  The codes are the library's: an XGBoost model trained on a
  DataFrame recodes the frame's categories, apsplit takes the codes (predict on
  the training frame's ``CategoricalDtype``, or its ``.cat.codes``).
- **Values.**  A leaf's output is the file's (XGBoost's float32
  ``split_conditions`` at the leaf, LightGBM's double ``leaf_value``: the
  learning rate included).  ``learning_rate`` is LightGBM's ``shrinkage``, or
  for XGBoost (which does not store eta in the model) the median ratio of the
  leaf outputs to their ``base_weights``, rounded to float32.  ``base_weight``:
  XGBoost's ``base_weights``; LightGBM's value / shrinkage (at the first tree
  this holds the intercept LightGBM folded in).  ``gain``: ``loss_changes`` /
  ``split_gain``; ``cover`` (the hessian sum): ``sum_hessian`` /
  ``leaf_weight`` and ``internal_weight``; ``n_node_samples``: LightGBM's
  ``leaf_count`` / ``internal_count``, 0 for XGBoost (it keeps no counts);
  ``sum_grad`` is NaN (neither file holds it).  Internal nodes' ``value``
  (never a prediction) is learning_rate × base_weight, LightGBM's
  ``internal_value``.
- **Intercept.**  XGBoost's ``base_score`` in its convention: a probability
  for ``reg:logistic`` / ``binary:logistic`` (its logit is the margin), the
  margin otherwise, one per class for ``multi:*`` (a scalar is broadcast).
  LightGBM has no intercept: it is in the first trees' leaves, and the
  Booster's ``base_margin`` is 0.
- **Objectives.**  XGBoost's reg:squarederror (reg:linear), reg:logistic,
  binary:logistic, binary:logitraw, multi:softprob, multi:softmax; LightGBM's
  ``regression`` (L2) → reg:squarederror, ``cross_entropy`` → reg:logistic,
  ``binary sigmoid:1`` → binary:logistic, ``multiclass`` → multi:softprob, and
  no objective line (a custom objective's raw scores) → a Booster without
  objective (raw margins).  LightGBM's ``dart`` models are plain sums of
  their saved trees and are read like ``gbdt``.  Feature names are kept,
  except LightGBM's ``Column_<i>`` for unnamed columns (the Booster has none).

Refused with a ValueError that names the tree, node and feature, or the
objective: categories apsplit cannot hold, LightGBM's linear trees, random-forest mode
(``average_output``), LightGBM's "zero" missing type where it cannot be
represented, other objectives (``binary`` with sigmoid other than 1,
``multiclassova``, ``regression_l1``, ``reg:gamma``, ranking ...),
XGBoost's DART (``weight_drop``), ``gblinear``, ``num_parallel_tree > 1``,
multi-target trees; a source of the wrong type is a TypeError.
"""

import json
import math
import os

import numpy as np

from ..newton import LEAF, NewtonTree, invalid_codes
from ..optional import install_command, installed
from .objectives import get_objective

__all__ = ["from_xgboost", "from_lightgbm", "load_model", "xgboost_document", "lightgbm_string"]

_XGB_OBJECTIVES = ("reg:squarederror", "reg:linear", "reg:logistic", "binary:logistic",
                   "binary:logitraw", "multi:softprob", "multi:softmax")
_LGB_ZERO = 1e-35  # LightGBM's kZeroThreshold: |x| <= it is a zero for missing type Zero


def _is_path(source):
    return isinstance(source, (str, os.PathLike))


def _read(path, binary=False):
    with open(os.fspath(path), "rb" if binary else "r",
              **({} if binary else {"encoding": "utf-8"})) as f:
        return f.read()


def _module_of(obj):
    return type(obj).__module__.split(".")[0]


# ------------------------------------------------------------------ sources
def xgboost_document(source):
    """The JSON document (a dict) of an ``xgboost.Booster``, a JSON model file's path, a
    JSON string / bytes, or a dict; a binary (UBJSON) file is converted by xgboost."""
    if isinstance(source, dict):
        return source
    if _module_of(source) == "xgboost" and hasattr(source, "save_raw"):
        return json.loads(bytes(source.save_raw("json")))
    if isinstance(source, (bytes, bytearray)):
        text = bytes(source)
    elif _is_path(source):
        text = _read(source, True)
    else:
        raise TypeError(f"from_xgboost takes an xgboost.Booster, a model file's path or its "
                        f"JSON, got {type(source).__name__}")
    try:
        return json.loads(text)
    except ValueError as exc:
        error = exc
    xgboost = installed("xgboost")  # XGBoost's binary UBJSON (which also starts with "{")
    if xgboost is None:
        raise ValueError(f"not an XGBoost JSON model ({error}); a binary (UBJSON) model "
                         f"needs the xgboost package to be read: "
                         f"{install_command('xgboost')}")
    try:
        bst = xgboost.Booster(model_file=os.fspath(source) if _is_path(source)
                              else bytearray(text))
    except xgboost.core.XGBoostError as exc:
        raise ValueError(f"not an XGBoost model: {str(exc).splitlines()[0]}") from None
    return json.loads(bytes(bst.save_raw("json")))


def lightgbm_string(source):
    """The text model of a ``lightgbm.Booster``, a text model file's path, or the text."""
    if _module_of(source) == "lightgbm" and hasattr(source, "model_to_string"):
        return source.model_to_string()
    if _is_path(source):
        text = _read(source)
        return text
    raise TypeError(f"from_lightgbm takes a lightgbm.Booster or a text model file's path, got "
                    f"{type(source).__name__}")


def load_model(source):
    """A Booster read from an xgboost.Booster, a lightgbm.Booster, or a model file of
    either format (XGBoost JSON or UBJSON, LightGBM text: told apart by their start)."""
    from .training import Booster
    if isinstance(source, Booster):
        return source
    module = _module_of(source)
    if module == "xgboost":
        return from_xgboost(source)
    if module == "lightgbm":
        return from_lightgbm(source)
    if _is_path(source):
        head = _read(source, True)[:64].lstrip()
        if head.startswith(b"tree"):
            return from_lightgbm(source)
        return from_xgboost(source)
    raise TypeError(f"xgb_model must be an apsplit Booster, an xgboost.Booster, a "
                    f"lightgbm.Booster or a model file's path, got {type(source).__name__}")


# ------------------------------------------------------------------ helpers
def _breadth_first(root, children, limit):
    """The nodes in apsplit's order (level by level, children consecutive, left first),
    from ``children(node) -> (left, right) or None`` (a leaf); None if more than
    ``limit`` nodes are reached (a cycle)."""
    order = [root]
    i = 0
    while i < len(order):
        if len(order) > limit:
            return None
        kids = children(order[i])
        if kids is not None:
            order.extend(kids)
        i += 1
    return order


def _tree(nodes, split_of, n_features, learning_rate, categories=None, **arrays):
    """A NewtonTree from the source's nodes in apsplit's order; ``split_of(node)`` gives
    (feature, threshold, default_left, left, right) or None for a leaf; ``categories``
    maps a categorical split's node to the codes it sends right."""
    index = {node: i for i, node in enumerate(nodes)}
    n = len(nodes)
    feature = np.full(n, LEAF, np.int64)
    threshold = np.full(n, np.nan)
    default_left = np.zeros(n, bool)
    cl = np.full(n, LEAF, np.int64)
    cr = np.full(n, LEAF, np.int64)
    for i, node in enumerate(nodes):
        s = split_of(node)
        if s is not None:
            feature[i], threshold[i], default_left[i] = s[0], s[1], s[2]
            cl[i], cr[i] = index[s[3]], index[s[4]]
    if categories:
        arrays["categories_right"] = [categories.get(node) for node in nodes]
    return NewtonTree.from_arrays(feature, threshold, default_left, cl, cr,
                                  n_features=n_features, learning_rate=learning_rate, **arrays)


def _check_codes(codes, where):
    """The sorted distinct codes of a categorical split, refused (naming ``where``) unless
    integers in [0, 2**24) (the codes apsplit's trees hold)."""
    codes = np.unique(np.asarray(codes, dtype=np.float64))
    bad = invalid_codes(codes)
    if bad.size:
        raise ValueError(f"{where} is a categorical split on the category {float(bad[0]):.17g}, "
                         f"which apsplit cannot represent: categories must be integers in "
                         f"[0, 2**24)")
    return codes.astype(np.int64)


# ------------------------------------------------------------------ XGBoost
def _xgb_vector(text):
    text = str(text).strip()
    if text.startswith("["):
        text = text[1:-1]
    return np.array([float(t) for t in text.split(",") if t.strip()], dtype=np.float64)


def from_xgboost(source):
    """An apsplit ``Booster`` from an ``xgboost.Booster`` or an XGBoost model file (module
    docstring: what is read, what is refused)."""
    from .training import Booster
    doc = xgboost_document(source)
    try:
        learner = doc["learner"]
        gbm = learner["gradient_booster"]
        mparam = learner["learner_model_param"]
    except (KeyError, TypeError):
        raise ValueError("not an XGBoost model: no learner / gradient_booster") from None
    booster_name = gbm.get("name")
    if booster_name == "dart":
        raise ValueError("XGBoost's DART booster is not supported: its trees are scaled by "
                         "weight_drop at prediction; train with booster='gbtree'")
    if booster_name != "gbtree":
        raise ValueError(f"XGBoost booster {booster_name!r} is not supported: apsplit reads "
                         f"tree models (booster='gbtree')")
    model = gbm["model"]
    npt = int(model.get("gbtree_model_param", {}).get("num_parallel_tree", "1"))
    if npt != 1:
        raise ValueError(f"num_parallel_tree={npt} is not supported: apsplit adds one tree per "
                         f"output per round")
    objective = learner.get("objective", {}).get("name")
    if objective not in _XGB_OBJECTIVES:
        raise ValueError(f"XGBoost objective {objective!r} is not supported; apsplit reads "
                         f"{list(_XGB_OBJECTIVES)}")
    obj = get_objective(objective)
    if int(mparam.get("num_target", "1")) > 1:
        raise ValueError("multi-target XGBoost models (num_target > 1) are not supported")
    n_features = int(mparam["num_feature"])
    num_class = int(mparam.get("num_class", "0"))
    k = num_class if obj.multiclass else 1
    if obj.multiclass and k < 2:
        raise ValueError(f"objective {objective!r} with num_class={num_class}")
    if not obj.multiclass and num_class > 1:
        raise ValueError(f"num_class={num_class} with objective {objective!r} is not supported")
    base = _xgb_vector(mparam.get("base_score", "0.5"))
    if base.size == 1:
        base = np.repeat(base, k)
    if base.size != k:
        raise ValueError(f"base_score holds {base.size} values, the model has {k} outputs")
    base = base.astype(np.float32).astype(np.float64)  # XGBoost holds float32
    if obj.name in ("reg:logistic", "binary:logistic"):
        base = np.log(base / (1.0 - base))

    trees_json = model.get("trees", [])
    info = [int(c) for c in model.get("tree_info", [0] * len(trees_json))]
    trees = [_xgb_tree(t, i, n_features) for i, t in enumerate(trees_json)]
    names = learner.get("feature_names") or None
    params = {"objective": obj.name, **({"num_class": k} if k > 1 else {})}
    spw = (learner.get("objective", {}).get("reg_loss_param") or {}).get("scale_pos_weight")
    if spw is not None and float(spw) != 1.0:
        params["scale_pos_weight"] = float(spw)  # written back by the exporter
    out = Booster(obj, k, base, n_features, feature_names=list(names) if names else None,
                  params=params)
    out.trees, out.tree_info = trees, info
    for key, value in (learner.get("attributes") or {}).items():
        out.set_attr(**{key: value})
    return out


def _xgb_tree(t, index, n_features):
    left = [int(c) for c in t["left_children"]]
    right = [int(c) for c in t["right_children"]]
    feats = [int(f) for f in t["split_indices"]]
    cond = np.asarray(t["split_conditions"], dtype=np.float32)
    dleft = [bool(d) for d in t["default_left"]]
    stype = t.get("split_type") or [0] * len(left)
    size_leaf = int(t.get("tree_param", {}).get("size_leaf_vector", "1") or 1)
    if size_leaf > 1:
        raise ValueError(f"tree {index} has vector leaves (multi_strategy='multi_output_tree'), "
                         f"which apsplit does not read")
    n = len(left)
    categories = _xgb_categories(t, index, stype, left, feats)

    def children(node):
        return None if left[node] == -1 else (left[node], right[node])

    nodes = _breadth_first(0, children, n)
    if nodes is None or len(set(nodes)) != len(nodes) or max(nodes) >= n or min(nodes) < 0:
        raise ValueError(f"tree {index} is not a tree (a node is reached twice)")

    # a numeric split's threshold: the largest float32 below XGBoost's t (x < t goes left)
    below = {node: float(np.nextafter(cond[node], np.float32(-np.inf))) for node in nodes
             if left[node] != -1 and node not in categories}

    def split_of(node):
        if left[node] == -1:
            return None
        return feats[node], below.get(node, np.nan), dleft[node], left[node], right[node]

    base_w = np.asarray(t["base_weights"], dtype=np.float64)[nodes]
    leaf = np.array([left[node] == -1 for node in nodes])
    value = np.where(leaf, cond[nodes].astype(np.float64), 0.0)
    lr = 1.0
    ok = leaf & (base_w != 0)
    if ok.any():
        lr = float(np.float32(np.median(value[ok] / base_w[ok])))
    value = np.where(leaf, value, lr * base_w)
    numeric = np.array([node in below for node in nodes])
    thr = np.array([below.get(node, np.nan) for node in nodes])
    t_up = np.where(numeric, cond[nodes].astype(np.float64), np.nan)
    gain = np.asarray(t["loss_changes"], dtype=np.float64)[nodes]
    cover = np.asarray(t["sum_hessian"], dtype=np.float64)[nodes]
    return _tree(nodes, split_of, n_features, lr, categories, value=value, base_weight=base_w,
                 gain=gain, cover=cover, left_value=thr, right_value=t_up)


def _xgb_categories(t, index, split_type, left, feats):
    """{node: the codes its categorical split sends right} of an XGBoost tree: node
    ``categories_nodes[i]``'s set is ``categories[segments[i]:segments[i] + sizes[i]]``.
    XGBoost's ``common::Decision`` sends a value right when it is a code of the set
    (float32 x in [0, 2**24), truncated); every other value, negative and unseen ones
    included, left; a missing value the ``default_left`` way: apsplit's rule."""
    cat_nodes = [int(c) for c in t.get("categories_nodes", [])]
    segments = [int(c) for c in t.get("categories_segments", [])]
    sizes = [int(c) for c in t.get("categories_sizes", [])]
    codes = t.get("categories", [])
    if not len(cat_nodes) == len(segments) == len(sizes):
        raise ValueError(f"tree {index}: categories_nodes, categories_segments and "
                         f"categories_sizes differ in length")
    out = {}
    for node, seg, size in zip(cat_nodes, segments, sizes):
        if not 0 <= node < len(left) or left[node] == -1 or int(split_type[node]) != 1:
            raise ValueError(f"tree {index}: categories_nodes names node {node}, which is not "
                             f"a categorical split")
        if not 0 <= seg <= seg + size <= len(codes):
            raise ValueError(f"tree {index}, node {node}: its categories segment [{seg}, "
                             f"{seg + size}) is outside the {len(codes)} categories")
        out[node] = _check_codes(codes[seg:seg + size],
                                 f"tree {index}, node {node} (feature {feats[node]})")
    for node in range(len(left)):
        if left[node] != -1 and int(split_type[node]) != 0 and node not in out:
            raise ValueError(f"tree {index}, node {node} (feature {feats[node]}) is a "
                             f"categorical split without categories")
    return out


# ------------------------------------------------------------------ LightGBM
def _lgb_objective(line):
    """(apsplit objective name or None, num_class) of LightGBM's ``objective=`` line."""
    if line is None:
        return None, None
    parts = line.split()
    name, opts = parts[0], dict(p.split(":", 1) for p in parts[1:] if ":" in p)
    flags = [p for p in parts[1:] if ":" not in p]
    if name in ("regression", "regression_l2", "l2", "mean_squared_error", "mse") and not flags:
        return "reg:squarederror", None
    if name in ("cross_entropy", "xentropy") and not flags:
        return "reg:logistic", None
    if name == "binary" and float(opts.get("sigmoid", 1)) == 1.0 and not flags:
        return "binary:logistic", None
    if name in ("multiclass", "softmax"):
        return "multi:softprob", int(opts.get("num_class", 0))
    raise ValueError(f"LightGBM objective {line!r} is not supported; apsplit reads regression "
                     f"(L2), cross_entropy, binary (sigmoid:1), multiclass and raw scores")


def _lgb_blocks(text):
    """(header dict, [tree dict]) of LightGBM's text model."""
    head, _, rest = text.partition("\nTree=")
    if not head.lstrip().startswith("tree"):
        raise ValueError("not a LightGBM text model (it must start with 'tree')")
    header = {}
    for line in head.splitlines():
        if "=" in line:
            key, _, value = line.partition("=")
            header[key.strip()] = value.strip()
        elif line.strip():
            header[line.strip()] = ""
    body = ("Tree=" + rest).split("end of trees")[0] if rest else ""
    trees = []
    for block in body.split("Tree=")[1:]:
        tree = {}
        lines = block.splitlines()
        tree["Tree"] = lines[0].strip()
        for line in lines[1:]:
            if "=" in line:
                key, _, value = line.partition("=")
                tree[key.strip()] = value.strip()
        trees.append(tree)
    return header, trees


def from_lightgbm(source):
    """An apsplit ``Booster`` from a ``lightgbm.Booster`` or a LightGBM text model file
    (module docstring: what is read, what is refused)."""
    from .training import Booster
    text = lightgbm_string(source)
    header, blocks = _lgb_blocks(text)
    if "average_output" in header:
        raise ValueError("LightGBM random-forest models (boosting='rf', average_output) are "
                         "not supported: apsplit sums its trees")
    name, num_class = _lgb_objective(header.get("objective"))
    k = int(header.get("num_tree_per_iteration", header.get("num_class", "1")))
    n_class = int(header.get("num_class", "1"))
    if name == "multi:softprob" and k != num_class:
        raise ValueError(f"LightGBM multiclass model with num_class={num_class} but "
                         f"num_tree_per_iteration={k}")
    if name is not None and name != "multi:softprob" and k != 1:
        raise ValueError(f"LightGBM model with objective {header.get('objective')!r} and "
                         f"{k} trees per iteration is not supported")
    if n_class != k:
        raise ValueError(f"num_class={n_class} but num_tree_per_iteration={k}")
    n_features = int(header["max_feature_idx"]) + 1
    names = header.get("feature_names", "").split() or None
    if names == [f"Column_{i}" for i in range(n_features)]:
        names = None  # LightGBM's names for unnamed columns (as the exporter writes them)
    trees = [_lgb_tree(b, i, n_features) for i, b in enumerate(blocks)]
    obj = get_objective(name) if name is not None else None
    params = {"objective": name} if name else {}
    if k > 1:
        params["num_class"] = k
    out = Booster(obj, k, np.zeros(k), n_features,
                  feature_names=names if names and len(names) == n_features else None,
                  params=params)
    out.trees = trees
    out.tree_info = [i % k for i in range(len(trees))]
    return out


def _floats(tree, key, count, default=np.nan):
    raw = tree.get(key)
    if raw is None or raw == "":
        return np.full(count, default)
    out = np.array([float(x) for x in raw.split()], dtype=np.float64)
    if out.size != count:
        raise ValueError(f"tree {tree['Tree']}: {key} holds {out.size} values, expected {count}")
    return out


def _ints(tree, key, count, default=0):
    raw = tree.get(key)
    if raw is None or raw == "":
        return np.full(count, default, np.int64)
    out = np.array([int(x) for x in raw.split()], dtype=np.int64)
    if out.size != count:
        raise ValueError(f"tree {tree['Tree']}: {key} holds {out.size} values, expected {count}")
    return out


def _lgb_tree(tree, index, n_features):
    if int(tree.get("is_linear", "0") or 0):
        raise ValueError(f"tree {index} is a linear tree (linear_tree=True), which apsplit "
                         f"does not read")
    n_leaves = int(tree["num_leaves"])
    n_inner = n_leaves - 1
    shrinkage = float(tree.get("shrinkage", "1") or 1)
    leaf_value = _floats(tree, "leaf_value", n_leaves)
    leaf_weight = _floats(tree, "leaf_weight", n_leaves)
    leaf_count = _ints(tree, "leaf_count", n_leaves)
    if n_inner == 0:
        return NewtonTree.from_arrays([LEAF], [np.nan], [False], [LEAF], [LEAF], leaf_value,
                                      n_features, learning_rate=shrinkage, cover=leaf_weight,
                                      n_node_samples=leaf_count,
                                      base_weight=leaf_value / (shrinkage or 1.0),
                                      input_dtype="float64")
    feats = _ints(tree, "split_feature", n_inner)
    thresholds = _floats(tree, "threshold", n_inner)
    dtype = _ints(tree, "decision_type", n_inner, 0)
    lc = _ints(tree, "left_child", n_inner)
    rc = _ints(tree, "right_child", n_inner)
    gains = _floats(tree, "split_gain", n_inner, 0.0)
    ivalue = _floats(tree, "internal_value", n_inner, 0.0)
    iweight = _floats(tree, "internal_weight", n_inner)
    icount = _ints(tree, "internal_count", n_inner)
    # apsplit's node keys: ("i", j) internal node j, ("l", j) leaf j
    default = np.zeros(n_inner, bool)
    categories = {}
    for j in range(n_inner):
        d, f, thr = int(dtype[j]), int(feats[j]), float(thresholds[j])
        where = f"tree {index}, node {j} (feature {f})"
        if not 0 <= f < n_features:
            raise ValueError(f"{where}: the feature is outside the model's {n_features}")
        if d & 1:  # the bitset's codes go LightGBM's left, apsplit's right: children swapped
            categories[("i", j)] = _lgb_bitset(tree, thr, where)
            continue
        missing = (d >> 2) & 3
        zero_left = 0.0 <= thr
        if missing == 2:      # NaN: the default way
            default[j] = bool(d & 2)
        elif missing == 0:    # None: NaN is read as 0.0
            default[j] = zero_left
        elif missing == 1:    # Zero: 0 and NaN the default way
            if bool(d & 2) != zero_left or -_LGB_ZERO < thr < _LGB_ZERO:
                raise ValueError(f"{where} has LightGBM's 'zero' missing type sending 0 and NaN "
                                 f"{'left' if d & 2 else 'right'} while x <= {thr!r} sends 0 "
                                 f"{'left' if zero_left else 'right'}: apsplit cannot "
                                 f"represent it (train with zero_as_missing=False)")
            default[j] = zero_left
        else:
            raise ValueError(f"{where} has the unknown decision_type {d}")

    def key(c):
        return ("i", int(c)) if c >= 0 else ("l", int(~c))

    def children(node):  # a bitset's codes go LightGBM's left, apsplit's right
        if node[0] == "l":
            return None
        pair = key(lc[node[1]]), key(rc[node[1]])
        return pair[::-1] if node in categories else pair

    nodes = _breadth_first(("i", 0), children, 2 * n_leaves - 1)
    if nodes is None or len(nodes) != 2 * n_leaves - 1 or len(set(nodes)) != len(nodes):
        raise ValueError(f"tree {index} is not a binary tree of {n_leaves} leaves")

    def split_of(node):
        if node[0] == "l":
            return None
        j = node[1]
        if node in categories:  # NaN goes LightGBM's right, apsplit's left (docstring)
            return (int(feats[j]), np.nan, True) + children(node)
        return (int(feats[j]), float(thresholds[j]), bool(default[j])) + children(node)

    def pick(inner, leaf):
        return np.array([inner[j] if t == "i" else leaf[j] for t, j in nodes])

    value = pick(ivalue, leaf_value)
    lo = np.full(len(nodes), np.nan)
    hi = np.full(len(nodes), np.nan)
    for i, (t, j) in enumerate(nodes):
        if t == "i" and (t, j) not in categories:  # the float32 pair x <= threshold separates
            f = np.float32(thresholds[j])
            if float(f) > float(thresholds[j]):
                f = np.nextafter(f, np.float32(-np.inf))
            with np.errstate(over="ignore"):
                lo[i], hi[i] = float(f), float(np.nextafter(f, np.float32(np.inf)))
    return _tree(nodes, split_of, n_features, shrinkage, categories, value=value,
                 base_weight=value / (shrinkage or 1.0),
                 gain=pick(gains, np.zeros(n_leaves)), cover=pick(iweight, leaf_weight),
                 n_node_samples=pick(icount, leaf_count), left_value=lo, right_value=hi,
                 input_dtype="float64", truncate_codes=True)


def _lgb_bitset(tree, threshold, where):
    """The codes of a LightGBM categorical split: its threshold indexes ``cat_boundaries``,
    whose consecutive entries bound its words in ``cat_threshold`` (bit c % 32 of word
    c // 32 set: code c is in the set)."""
    bounds = [int(b) for b in tree.get("cat_boundaries", "").split()]
    words = [int(w) for w in tree.get("cat_threshold", "").split()]
    i = int(threshold) if math.isfinite(threshold) else -1
    if not (i == threshold and 0 <= i < len(bounds) - 1
            and 0 <= bounds[i] <= bounds[i + 1] <= len(words)):
        raise ValueError(f"{where} is a categorical split whose threshold {threshold!r} does "
                         f"not index its bitset in cat_boundaries / cat_threshold")
    codes = [32 * k + b for k, w in enumerate(words[bounds[i]:bounds[i + 1]])
             for b in range(32) if (w >> b) & 1]
    return _check_codes(codes, where)
