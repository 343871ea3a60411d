"""Research on the arena: the thesis's experiments, re-run as tournaments.

A layer above the tournaments (`arena.tournament`), which it runs and reports on: the
thesis's tables and figure (`thesis`), the same under the thesis program's bank rule
side by side (`thesis_rules`), the thesis's conclusions judged on them
(`thesis_claims`), and the ``arena experiment`` command (`cli`). Nothing below imports
it: neither the bots, whose strategies it plays by name through the registry, nor the
tournaments (import-linter contracts in pyproject.toml; docs/plugins.md, "Layers").
"""
