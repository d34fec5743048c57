"""`python -m jvmlab` runs the command line."""

from jvmlab.cli.main import main

if __name__ == "__main__":
    main()
