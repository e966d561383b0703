"""The checkout's own tools (not installed): run them from the checkout's root as modules,
`python -m tools.serve`, `python -m tools.nginx`, `python -m tools.line_contrast`,
`python -m tools.same_colours`, so that this
checkout's lab/, sitebuild/ and tools/ come first on sys.path (`python -m` puts the working
directory there) and no script edits sys.path itself."""
