"""What the benchmark scripts share: `benchkit` (results, their stamp, data location), `encodekit`
(encoding measurements in a fresh process), `vectorkit` (real and grown vectors), `scifact` (cached
SciFact indexes and runs), `serving` (the service under load), `fusion_cv` (weights chosen by
cross-validation), `explain_curves` (deletion curves), `timing_stats` (two samples of times
compared), `docwriters` (real PDF, web, Word and Markdown files). Import the module you
need: `from bench.kit.benchkit import write_results`."""
