"""The proofroom's lab: the article's models, figures and audits, standard-library Python for CPython and Pyodide."""
