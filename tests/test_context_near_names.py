"""What context.symbol offers for a name nothing defines, from a real index: the names equal
but for case first (whatever their files' rank), then the names containing it, then close
spellings of the same first letter whose difflib ratio is 0.7 or more, best first."""

from __future__ import annotations

import pytest

from indexer.contract.errors import NotFound
from tests.indexed import Indexed

FILES = {
    # close to `zebra1234`: ratios 0.78, exactly 0.7 and 0.67; and one of another first letter
    "zoo.py": "class zebra12xy:\n    pass\n\n\nclass zebra12wxyz:\n    pass\n\n\nclass zebra1xyz:\n    pass\n\n\n"
              "class Ébra1234:\n    pass\n",
    # a name containing `école` that sorts before the one equal to it but for case
    "schools.py": "class Aécole:\n    pass\n\n\nclass École:\n    pass\n",
    # `widget_factory` (containing `widget`) is in a file two files import, `Widget` in one none does
    "widgets/low.py": "class Widget:\n    pass\n",
    "widgets/high.py": "def widget_factory():\n    return 0\n",
    "use1.py": "from widgets.high import widget_factory\n",
    "use2.py": "from widgets.high import widget_factory\n",
}

NEAR = Indexed(FILES, "rennet-near-names-")


app = NEAR.fixture()


def _near(app, name: str) -> list[str]:
    result = app.call("context.symbol", name=name)
    assert result.data.fuzzy is True and {d.match for d in result.data.definitions} == {"fuzzy"}
    return [d.qualified for d in result.data.definitions]


def test_close_spellings_reach_a_ratio_of_seven_tenths_and_share_the_first_letter(app):
    assert _near(app, "zebra1234") == ["zebra12xy", "zebra12wxyz"]


def test_a_name_equal_but_for_case_comes_first_beyond_ascii(app):
    assert _near(app, "école") == ["École", "Aécole"]


def test_a_name_equal_but_for_case_comes_before_a_better_ranked_file(app):
    assert _near(app, "widget") == ["Widget", "widget_factory"]


def test_no_near_name_is_not_found(app):
    with pytest.raises(NotFound):
        app.call("context.symbol", name="quokka")
