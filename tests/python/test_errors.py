"""Every user mistake is one ScenarioError line: file:line: field: message,
from the API (a ValueError) and from the CLI (exit 2, one line on stderr)."""

import textwrap

import pytest

import airtcp
from conftest import run_cli

LINK = """\
[simulation]
duration = "10s"

[[link]]
a = "A"
b = "B"
rate = "10Mbps"
delay = "10ms"
"""
FLOW = """
[[flow]]
from = "A"
to = "B"
app = { kind = "bulk" }
"""
GOOD = LINK + FLOW

# name: (scenario text, line, field, words expected in the message)
CASES = {
    "unknown_key": (
        GOOD.replace('to = "B"\n', 'to = "B"\ncolour = "red"\n'),
        13, "flow[0].colour", ["unknown field", "colour"],
    ),
    "missing_unit": (GOOD.replace('delay = "10ms"', 'delay = "30"'), 8, "link[0].delay", ["no unit", "30"]),
    "wrong_unit": (GOOD.replace('delay = "10ms"', 'delay = "30Mbps"'), 8, "link[0].delay", ["unit", "Mbps"]),
    "wrong_unit_rate": (GOOD.replace('rate = "10Mbps"', 'rate = "10ms"'), 7, "link[0].rate", ["unit", "ms"]),
    "unknown_node": (GOOD.replace('to = "B"', 'to = "C"'), 12, "flow[0].to", ["unknown node", '"C"']),
    "no_route": (
        LINK + textwrap.dedent("""
            [[link]]
            a = "C"
            b = "D"
            rate = "1Mbps"
            delay = "1ms"

            [[flow]]
            from = "A"
            to = "D"
            app = { kind = "bulk" }
            """),
        18, "flow[0].to", ["no route", '"A"', '"D"'],
    ),
    "zero_rate": (GOOD.replace('rate = "10Mbps"', 'rate = "0Mbps"'), 7, "link[0].rate", ["must be positive"]),
    "negative_rate": (GOOD.replace('rate = "10Mbps"', 'rate = "-5Mbps"'), 7, "link[0].rate", ["must be positive"]),
    "probability": (
        GOOD.replace('delay = "10ms"\n', 'delay = "10ms"\nerror = { kind = "bernoulli", per = 1.5 }\n'),
        9, "link[0].error.per", ["1.5", "[0, 1]"],
    ),
    "probability_table": (
        GOOD.replace('delay = "10ms"\n', 'delay = "10ms"\n[link.error]\nkind = "bernoulli"\nper = 1.5\n'),
        11, "link[0].error.per", ["1.5", "[0, 1]"],
    ),
    "unknown_variant": (
        GOOD.replace("app = ", 'tcp = { variant = "cubic" }\napp = '),
        13, "flow[0].tcp.variant", ["unknown variant", "cubic"],
    ),
    "before_rtt_sample": (
        GOOD.replace(
            "app = ",
            'tcp = { variant = "reno", classifier = { kind = "rtt_threshold", ticks_above_base = 2, '
            'before_rtt_sample = "wireless" } }\napp = ',
        ),
        13, "flow[0].tcp.classifier.before_rtt_sample", ["unknown variant", "wireless", "corruption", "congestion"],
    ),
    "toml_syntax": (GOOD.replace('rate = "10Mbps"', 'rate = "10Mbps'), 7, "link[0].rate", ["string"]),
}


@pytest.fixture(params=sorted(CASES))
def bad(request, tmp_path):
    text, line, field, words = CASES[request.param]
    path = tmp_path / f"{request.param}.toml"
    path.write_text(text)
    return path, line, field, words


def test_good_scenario_is_fine(tmp_path):
    p = tmp_path / "good.toml"
    p.write_text(GOOD)
    assert airtcp.load(p).flows == 1


def test_api_error(bad):
    path, line, field, words = bad
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.load(path)
    e = ei.value
    assert isinstance(e, ValueError)
    msg = str(e)
    assert "\n" not in msg
    assert e.file == str(path)
    assert msg.startswith(str(path) + ":")
    if line is not None:
        assert e.line == line
        assert msg.startswith(f"{path}:{line}: ")
    else:
        assert isinstance(e.line, int)
    assert e.field == field
    if field:
        assert f": {field}: " in msg
    assert e.message and msg.endswith(e.message)
    for w in words:
        assert w in e.message
    # run() reports the same error.
    with pytest.raises(airtcp.ScenarioError, match=None) as ei2:
        airtcp.run(path)
    assert str(ei2.value) == msg


def test_cli_error(bad):
    path, line, field, words = bad
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.load(path)
    for cmd in ("validate", "run"):
        p = run_cli(cmd, path)
        assert p.returncode == 2, p.stderr
        assert p.stdout == ""
        assert p.stderr.splitlines() == [str(ei.value)]
        assert p.stderr.endswith("\n") and p.stderr.count("\n") == 1


def test_missing_file(tmp_path):
    path = tmp_path / "nope.toml"
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.load(path)
    e = ei.value
    assert isinstance(e, ValueError)
    assert e.file == str(path) and e.line is None and e.field == ""
    assert str(e) == f"{path}: cannot read file: No such file or directory"
    with pytest.raises(airtcp.ScenarioError):
        airtcp.run(str(path))
    for cmd in ("validate", "run"):
        p = run_cli(cmd, path)
        assert p.returncode == 2
        assert p.stderr.splitlines() == [str(e)]


def test_directory_and_binary_file(tmp_path):
    with pytest.raises(airtcp.ScenarioError, match="cannot read file"):
        airtcp.load(tmp_path)
    p = tmp_path / "bin.toml"
    p.write_bytes(b'[simulation]\nduration = "\xff"\n')
    with pytest.raises(airtcp.ScenarioError, match=r"bin.toml:2: file is not valid UTF-8"):
        airtcp.load(p)


def test_dict_errors_are_named_dict():
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.load({"simulation": {"duration": "10s"}, "link": [{"a": "A", "b": "B", "rate": "10", "delay": "1ms"}]})
    assert ei.value.file == "<dict>"
    assert str(ei.value).startswith("<dict>:")
    assert ei.value.field == "link[0].rate"
    with pytest.raises(airtcp.ScenarioError, match="<dict>: cannot write"):
        airtcp.load({"simulation": {"duration": None}})
