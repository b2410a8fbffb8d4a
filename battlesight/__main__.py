"""`python -m battlesight`: the same command line as the `battlesight` script."""

import sys

from battlesight.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
