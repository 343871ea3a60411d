"""The thesis program's strategies exactly as written (appendix B, Nasochec/ProductsGame).

The arena's own strategies (`bots.substitution`) implement the thesis's algorithms
correctly under the rules as written. These are the program's classes move for move,
defects included, so that the thesis's tables can be re-run with the strategies that
made them, under the referee that accepted their moves (``bank_rule:
thesis-program``):

* `simplified` -- the program's `SimplifiedWord`, `Simplifier` and metric code
  (`StrategyUtilitiesClass`), with C#'s floating-point behaviour where Python's differs;
* `strategies` -- `RandomStrategy` and its weighted variants, `StupidShortWordsStrategy`,
  `ShortWordsStrategy`, `SearchStrategy`, `AdaptiveRandomStrategy`, `MixedStrategy`;
* `bots` -- the arena bots (``thesis-random``, ``thesis-search:depth=4``, ...) that hand
  a state to them as the program's `Game` class does.

docs/strategies.md lists what they do differently from the arena's strategies.
"""
