"""mdcore's JSON run report as the peer comparison scripts read it (their python runs with
PYTHONPATH=benchmarks): a run that failed or was not timed stops the comparison."""
import json
import sys


def load_timed_report(path):
    """The report at path; exits naming the problem unless the run was ok and has a step time."""
    d = json.load(open(path))
    if d.get("status") != "ok":
        sys.exit("mdcore report status %r: %s" % (d.get("status"), d.get("error")))
    if not d["ms_per_step"] > 0:
        sys.exit("mdcore report has no ms_per_step")
    return d
