"""Reports: terminal, HTML and JSON renderings of an analysis."""
