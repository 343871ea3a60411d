"""bots package."""

from arena import compiled as _compiled  # noqa: F401  (first: no stale extension loads below)
