"""Mirror-ascent boosting (paper 002): MABoost and its variants, MadaBoost, AdaBoost."""
