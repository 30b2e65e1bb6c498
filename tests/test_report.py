"""The benchmarks' shared report helpers (apsplit.experiments.report)."""

import pytest

from apsplit.experiments.report import panel_grid

pytest.importorskip("matplotlib")  # the 'bench' extra


@pytest.mark.parametrize("count, per_row, geometry", [(4, 3, (2, 3)), (4, 2, (2, 2)),
                                                      (2, 3, (1, 2)), (6, 2, (3, 2))])
def test_panels_fill_rows_of_at_most_per_row(count, per_row, geometry):
    fig, axes = panel_grid(count, 2.0, 1.5, per_row=per_row)
    assert axes[0].get_subplotspec().get_gridspec().get_geometry() == geometry
    assert len(axes) == geometry[0] * geometry[1]
    assert tuple(fig.get_size_inches()) == (2.0 * geometry[1], 1.5 * geometry[0])


def test_no_panels_is_an_error():
    with pytest.raises(ValueError, match="no benchmark results"):
        panel_grid(0, 2.0, 1.5)
