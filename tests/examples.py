"""How many examples a Hypothesis test runs. The suite runs the `default` profile, sized for
CI's bound on the whole run; `HYPOTHESIS_PROFILE=deep` runs ten times as many for a thorough
run (docs/testing.md). Registered and loaded when this module is first imported, which
tests/conftest.py does before any test module, so a test's `examples(n)` scales with it."""

from __future__ import annotations

import os

from hypothesis import settings

# deadline=None throughout: a test's examples take what the shared machine gives them, and
# no test may fail on its timing
settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile("deep", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

_BASE = 100  # the default profile's max_examples, the unit `examples` scales


def examples(n: int) -> int:
    """`n` examples under the default profile, as many more under a larger one (ten times
    under `deep`)."""
    return max(1, n * settings().max_examples // _BASE)
