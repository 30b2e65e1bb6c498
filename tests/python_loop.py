"""A built-in finder behind a plain ``apsplit.Finder``, for tests of the tree builders."""

import apsplit


class PythonLoop(apsplit.Finder):
    """Delegates to a built-in finder; trees grown with it go through the Python node loop
    of ``apsplit.tree.grow_from_problem`` instead of the one-call kernel builder."""

    name = "python-loop"

    def __init__(self, method):
        self.inner = apsplit.get_finder(method)

    def find(self, problem):
        return self.inner.find(problem)
