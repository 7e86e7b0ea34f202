"""Benchmarks/compare as a package: Hoard and its peers measured in the same run, one table of ratios.

runner    folders, the log, running commands, the Context a section gets, the Section record
tools     installing the peers, building hoard, HoardMeasure and the compiled peers
inputs    the photo corpus (peers/prepare_images.py)
report    rows, sides, ratios and table.md;  machine: the machine and versions;  chart: chart.png
memory, disk, listing, codec, thumbnails, peak, redis, scaling: one module per area, each with the
          measure functions and SECTIONS (its --only names)
cli       the command line: Benchmarks/compare calls cli.main()
"""
