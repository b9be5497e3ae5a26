"""`eurekaclaw bench`: run problem sets with ground truth many times per configuration, locally
or on Ray, and report proved / refuted / false-proved rates (docs/bench.md)."""
