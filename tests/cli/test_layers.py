"""`pe layers` lists the layer types and the learning-rate schedules a config can name, with their
arguments read from the code (issue 18, item 7)."""

from tests.cli.test_helpers import pe


def test_layers_and_schedules_are_listed_and_documented():
    listing = pe("layers")
    assert listing.returncode == 0
    assert "# layer types" in listing.stdout and "# learning-rate schedules" in listing.stdout
    assert "\nconv2d(" in listing.stdout and "\npiecewise_decay(boundaries, values)" in listing.stdout
    one = pe("layers", "exponential_decay")
    assert one.returncode == 0 and one.stdout.startswith("exponential_decay(learning_rate, decay_steps, decay_rate")
    bad = pe("layers", "expnential_decay")
    assert bad.returncode == 2 and "did you mean 'exponential_decay'" in bad.stderr
