"""Split criteria of Newton trees, by name: the built-in "newton" (XGBoost's gain) and users' own.

    @numba.njit
    def score(G, H, params):              # a child's score from its gradient and hessian sums
        ...
    apsplit.register_criterion("mine", score)            # weight: Newton's leaf weight
    grow_newton_tree(data, grad, hess, NewtonParams(), criterion="mine")
    apsplit.adapters.train({"criterion": "mine", ...}, dtrain)

**The contract.**  ``score(G, H, params) -> float`` and ``weight(G, H, params) ->
float`` are numba-jitted (``@numba.njit``) and pure: numba compiles them into the
tree grower, so a global they read is frozen at compile time, and they must not
print, raise or keep state.  Their arguments:

- ``G``, ``H`` (float64): the sums of the rows' gradients and hessians over one
  child (sample weights included, as the objective computed them).  H >= 0, and
  H may be 0 (a root of zero hessians; a difference of sums with a rounding
  residue): return a finite value there (``newton_score`` returns 0).
- ``params``: the kernel's ``newton_split.Params`` named tuple of the tree's
  ``NewtonParams``: the floats ``reg_lambda``, ``reg_alpha``, ``max_delta_step``,
  ``min_child_weight``, ``gamma``, ``learning_rate``, and the ints ``max_depth``,
  ``capacity``.  A criterion may read any of them or none.

The grower uses them as it uses Newton's: a split into L and R of a node P gains
``score(L) + score(R) - score(P)``; it is *admissible* when each child holds a
row with h > 0 and H >= min_child_weight; the best admissible split is taken when
its gain exceeds 1e-6 (XGBoost's kRtEps), and gamma prunes splits gaining less,
bottom-up; a node's leaf weight is ``weight(G, H)`` (times the learning rate in
its value).  So a score is in Newton's units, twice a loss reduction (Newton's
is ``T(G)^2 / (H + lambda)``), for 1e-6, gamma and the tie window to keep their
meaning: ties are gains closer than 1e-10 (sum |g|)^2 / (H + lambda) of the node
(``kernels/newton_split.py``), and the first candidate in XGBoost's order wins.

**Speed.**  ``newton_grow.specialise`` compiles the grower once per process and
criterion, with the criterion inlined as a compile-time constant: a user's
criterion runs at the built-in's speed (0.98-1.02x per tree, measured by
``python -m benchmarks.newton_engine``) after a compile of about 50 s at its first
tree (48-58 s measured by the same command on the shared 2-core machine).  The
built-in grower is cached on disk.  A user's is compiled in every process, unless
it is registered with ``cache=True``: its growers are then kept in numba's disk
cache, under names that carry a hash of the files that define its functions and of
their code (numba's cache checks only the grower's own file, not the criterion
inlined into it), so that an edited criterion is compiled afresh and a new process
loads an unchanged one in seconds.

``quick`` and ``adaptive`` take a user's criterion when it was registered with
``bounds=``: a jitted ``bounds(G_lo, G_hi, H_lo, H_hi, params) -> (lo, hi)`` on the
child score over a box (for a convex score, hi is its largest corner; lo its value
at the G of least |G| in the box and H_hi if it grows with |G| and falls with H).
They combine the two children's bounds separately (``kernels/newton_bounds.py``);
without ``bounds=`` they refuse the criterion with a ValueError.  The built-in
"newton" uses its convexity jointly (tighter).
"""

import hashlib
import inspect
import itertools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from numba.extending import is_jitted

from .kernels import newton_forest, newton_grow, newton_search
from .kernels.newton_split import Params, newton_score, newton_weight

__all__ = ["register_criterion", "available_criteria", "get_criterion", "Criterion"]

BUILT_IN = "newton"
# NewtonParams()'s kernel Params, and the same with lambda = 0
_DEFAULT = Params(6, 127, 0.3, 1.0, 0.0, 0.0, 1.0, 0.0)
_NO_LAMBDA = _DEFAULT._replace(reg_lambda=0.0)
# (G, H, params) at which a criterion is called when registered: two children, and the
# hessian sum 0 that the kernel can pass (a root of zero hessians, a rounding residue)
_PROBES = ((1.0, 2.0, _DEFAULT), (-0.75, 0.5, _DEFAULT), (0.0, 0.0, _DEFAULT),
           (0.5, 0.0, _NO_LAMBDA))


@dataclass(eq=False)
class Criterion:
    """A registered criterion: its jitted ``score`` and ``weight``, its tree grower
    (``grower()``: ``newton_grow.specialise`` of the two, compiled at the first tree), and
    ``bounds`` for quick and adaptive (a user's jitted ``bounds``; for the built-in, which
    bounds its gain jointly in ``kernels/newton_bounds.py``, a description; None: none)."""

    name: str
    score: object
    weight: object
    built_in: bool = False
    bounds: object = None
    cache_tag: str = None  # ``source_tag`` of a criterion registered with cache=True
    _grower: object = field(default=None, repr=False)
    _batched: object = field(default=None, repr=False)
    _round: object = field(default=None, repr=False)

    @property
    def cache(self):
        """Whether its growers are kept in numba's disk cache."""
        return self.cache_tag is not None

    def _label(self):
        """The growers' name: a serial tells apart criteria registered under one name; a
        cached criterion's carries its functions' hash instead (``cache_tag``)."""
        tag = self.cache_tag if self.cache else next(_SERIAL)
        return "user_" + re.sub(r"\W", "_", self.name) + f"_{tag}"

    def grower(self):
        if self._grower is None:
            self._grower = newton_grow.specialise(self.score, self.weight, self._label(),
                                                  cache=self.cache)
        return self._grower

    def round_grower(self):
        """The grower of a round's K trees (``newton_forest.specialise`` of ``grower()``),
        compiled at the first round."""
        if self._round is None:
            self._round = newton_forest.specialise(self.grower(), self._label(),
                                                   cache=self.cache)
        return self._round

    def batched_grower(self):
        """The grower of quick and adaptive (``newton_search.specialise``), compiled at the
        first tree; needs ``bounds``."""
        if self._batched is None:
            label = self._label()
            upper, lower = newton_search.user_gain_bounds(self.bounds, label, self.cache)
            self._batched = newton_search.specialise(self.score, self.weight, upper, lower,
                                                     label, cache=self.cache)
        return self._batched


_SERIAL = itertools.count(1)  # tells apart the growers of criteria registered under one name


def source_tag(functions):
    """A hash of the jitted ``functions``' source files, names and code (bytecode and
    constants): the tag in a cached criterion's growers' names.  A ValueError if one is
    a closure or has no source file, whose compiled code a hash of the file cannot
    tell apart."""
    digest = hashlib.sha1()
    for fn in functions:
        py = fn.py_func
        path = inspect.getsourcefile(py)
        if py.__closure__ or path is None or not Path(path).is_file():
            raise ValueError(f"cache=True needs criterion functions defined at the top level "
                             f"of a file; {py.__qualname__} is "
                             f"{'a closure' if py.__closure__ else 'not in a file'}")
        digest.update(Path(path).read_bytes())
        digest.update(f"{py.__module__}.{py.__qualname__}".encode())
        digest.update(py.__code__.co_code + repr(py.__code__.co_consts).encode())
    return digest.hexdigest()[:12]


_REGISTRY = {BUILT_IN: Criterion(BUILT_IN, newton_score, newton_weight, built_in=True,
                                 bounds="convex (kernels/newton_bounds.py)",
                                 _grower=newton_grow.grow_newton,
                                 _round=newton_forest.grow_round_newton,
                                 _batched=newton_search.grow_batched_newton)}


def _numba_message(exc):
    """The first informative line of a numba error (not its "Failed in ... pipeline" header)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    for line in lines:
        if not line.startswith("Failed in nopython mode pipeline"):
            return line
    return lines[0] if lines else type(exc).__name__


def _probe(name, role, fn):
    """Call ``fn`` at the probe points; a ValueError naming the criterion if it does not
    compile, raises, or returns anything but a finite float."""
    for G, H, params in _PROBES:
        at = f"G={G}, H={H}, reg_lambda={params.reg_lambda}"
        try:
            value = fn(G, H, params)
        except Exception as exc:  # numba's typing errors, and what the function raises
            raise ValueError(
                f"criterion {name!r}: {role}(G, H, params) fails at {at} "
                f"({type(exc).__name__}: {_numba_message(exc)}); it must compile for float G, "
                f"H and the kernel's Params, and return a float for every H >= 0 (return 0.0 "
                f"where H <= 0, as newton_score does)") from None
        if not isinstance(value, float):
            raise ValueError(f"criterion {name!r}: {role} returned {value!r} "
                             f"({type(value).__name__}) at {at}; it must return a float")
        if not math.isfinite(value):
            raise ValueError(f"criterion {name!r}: {role} returned {value!r} at {at}; it must "
                             f"return a finite float (0.0 where H <= 0, as newton_score does)")


def _probe_bounds(name, score, bounds):
    """Call ``bounds`` on boxes around the probe points; a ValueError naming the criterion if
    it fails, does not return two floats lo <= hi, or misses the score at a corner or the
    centre of the box."""
    for G, H, params in _PROBES:
        box = (G - 0.5, G + 0.25, H, H + 1.5)
        at = f"the box G in [{box[0]}, {box[1]}], H in [{box[2]}, {box[3]}]"
        try:
            out = bounds(*box, params)
            lo, hi = out
        except Exception as exc:
            raise ValueError(f"criterion {name!r}: bounds(G_lo, G_hi, H_lo, H_hi, params) fails "
                             f"at {at} ({type(exc).__name__}: {_numba_message(exc)}); it must "
                             f"return a pair (lo, hi) of floats") from None
        if not (isinstance(lo, float) and isinstance(hi, float) and lo <= hi):
            raise ValueError(f"criterion {name!r}: bounds returned {out!r} at {at}; it must "
                             f"return two floats lo <= hi")
        points = [(g, h) for g in box[:2] for h in box[2:]] + [((box[0] + box[1]) / 2,
                                                              (box[2] + box[3]) / 2)]
        for g, h in points:
            value = score(g, h, params)
            if not lo <= value <= hi:
                raise ValueError(f"criterion {name!r}: bounds ({lo}, {hi}) at {at} miss the "
                                 f"score {value} at G={g}, H={h}")


def register_criterion(name, score, weight=None, *, bounds=None, overwrite=False, cache=False):
    """Make a split criterion usable by name in Newton trees (``criterion=name`` in
    ``grow_newton_tree``, ``params["criterion"]`` in ``apsplit.adapters.train``).

    Parameters
    ----------
    name : str
    score : numba-jitted function ``score(G, H, params) -> float``
        A child's score from its gradient sum G, hessian sum H >= 0 and the kernel's
        ``Params`` (module docstring); in Newton's units (``T(G)^2 / (H + lambda)``).
        Pure, finite for every H >= 0 (H = 0 included).
    weight : numba-jitted function ``weight(G, H, params) -> float``, optional
        A leaf's weight (before the learning rate); default Newton's,
        ``-T(G) / (H + lambda)`` clipped by ``max_delta_step``.
    bounds : numba-jitted function ``bounds(G_lo, G_hi, H_lo, H_hi, params) -> (lo, hi)``, optional
        Bounds on ``score(G, H, params)`` over the box [G_lo, G_hi] x [H_lo, H_hi]
        (0 <= H_lo <= H_hi), as computed in float64: what ``method="quick"`` and
        ``"adaptive"`` need (without it they refuse the criterion).  They are combined per
        child, hi_L + hi_R - s_P, with a margin of 512 eps of the terms
        (``kernels/newton_bounds.py``); a convex score's maximum over a box is at a corner.
    overwrite : bool
        Replace a criterion registered under ``name``; the built-in "newton" (XGBoost's
        gain, which ``train``'s default trees and their XGBoost parity rest on) is never
        replaced.
    cache : bool
        Keep the criterion's compiled growers in numba's disk cache (as the built-in's
        are), to load them in seconds in the next process instead of compiling for
        about 50 s.  Its functions must be defined at the top level of a file (not in
        a closure or an interactive session); an edit of that file, or of their code,
        compiles them afresh.  What they read from other modules, and the values of
        globals computed at run time, are frozen in the cached code, as in numba's own
        cache.

    Both functions are called here at a few (G, H), H = 0 included, with
    ``NewtonParams()``'s parameters and with lambda = 0, so that a criterion that does
    not compile, raises, or does not return a finite float fails now, with a ValueError
    naming it.  Returns the ``Criterion``.
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"a criterion's name must be a non-empty string, got {name!r}")
    if name == BUILT_IN:
        raise ValueError(f"{name!r} is the built-in criterion (XGBoost's gain) and cannot be "
                         "replaced; register yours under another name")
    if name in _REGISTRY and not overwrite:
        raise ValueError(f"a criterion {name!r} is already registered; choose another name or "
                         f"pass overwrite=True")
    weight = newton_weight if weight is None else weight
    roles = (("score", score), ("weight", weight)) + ((("bounds", bounds),) if bounds else ())
    for role, fn in roles:
        if not is_jitted(fn):
            raise TypeError(f"criterion {name!r}: {role} must be a numba-jitted function "
                            f"(decorate {getattr(fn, '__name__', repr(fn))} with @numba.njit), "
                            f"got {type(fn).__name__}")
    if not isinstance(cache, bool):
        raise TypeError(f"cache must be True or False, got {cache!r}")
    _probe(name, "score", score)
    _probe(name, "weight", weight)
    if bounds is not None:
        _probe_bounds(name, score, bounds)
    tag = source_tag([fn for fn in (score, weight, bounds) if fn is not None]) if cache else None
    criterion = Criterion(name, score, weight, bounds=bounds, cache_tag=tag)
    _REGISTRY[name] = criterion
    return criterion


def available_criteria():
    """Names usable as a Newton tree's ``criterion``."""
    return sorted(_REGISTRY)


def get_criterion(name):
    """The registered ``Criterion`` of ``name``; a ValueError listing the names if none."""
    if not isinstance(name, str):
        raise TypeError(f"criterion must be a registered name (str), got {name!r}")
    if name not in _REGISTRY:
        raise ValueError(f"unknown criterion {name!r}; available: {available_criteria()} "
                         f"(add one with apsplit.register_criterion)")
    return _REGISTRY[name]
