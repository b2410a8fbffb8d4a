"""The JSON reports the command line prints and the bench measures, built from the API's
verdicts: `los` (one entry per observer/target pair) and the two-process split that batches of
many pairs use, and the published schemas of the reports and the scene format, completed from
the registry of systems (`schemas`). A report is data; the command line only formats or prints
it."""
