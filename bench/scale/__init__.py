"""The scale bench (issue 48): a corpus made from real sentences at 10k, 100k and 1M passages,
and every operation of the product measured on it (`python -m bench.scale`)."""
