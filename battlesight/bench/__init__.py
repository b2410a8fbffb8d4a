"""The rows of `battlesight bench`: each figure beside a reference measured in the same run (raw
Embree on the same rays, the exhaustive method, the flat frame), so that the ratios say more
than the machine does. `timing` holds the shared best-of and fresh-process helpers."""
