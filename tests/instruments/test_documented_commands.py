"""Every command the Markdown documents (tests/documented_commands.py) parses, and asks for things that exist: ops,
dtypes, variants, shapes, exercises, topics, result files. Device call TTTTTTTTT ran them all on the H200
(results/h200-documented-commands-session31.log); this keeps them from rotting without a GPU."""

import pytest
import torch

from learning import check, explain
from learning.checking import catalog
from tests.documented_commands import ROOT, documented_commands
from tilelab.bench import cli as bench
from tilelab.inspect import cli as inspect

COMMANDS = documented_commands()


def test_the_markdown_documents_commands_of_every_tool():
    modules = {command.module for command in COMMANDS}
    assert {"tilelab.bench", "tilelab.inspect", "learning.check", "learning.explain"} <= modules
    assert len(COMMANDS) > 60


@pytest.mark.parametrize("command", COMMANDS, ids=[c.where() for c in COMMANDS])
def test_documented_command_is_valid(command):
    args = list(command.args)
    if command.module == "tilelab.bench":
        if args and args[0] in bench.SUBCOMMANDS:
            if args[0] == "report":
                files = [a for a in args[1:] if a.endswith(".json")]
                made_by_the_doc = [f for f in files if f.startswith("results/local/")]  # an earlier line writes it
                assert all((ROOT / f).exists() for f in set(files) - set(made_by_the_doc)), files
            return
        parsed = bench.run_parser().parse_args(args)
        bench.plan_run(parsed, torch.device("cpu"), small=False)  # raises UsageError, naming the argument
    elif command.module == "tilelab.inspect":
        inspect.parser().parse_args(args)
    elif command.module == "learning.check":
        parsed = check.build_parser().parse_args(args)
        assert all(name == "all" or catalog.find(name) for name in parsed.names), parsed.names
    elif command.module == "learning.explain":
        assert args and args[0] in explain.TOPICS, args
    else:
        pytest.fail(f"no check for {command.module}")


def test_a_wrong_variant_is_a_usage_error():
    parsed = bench.run_parser().parse_args(["--op", "matmul", "--variants", "torch,tilelab-nonesuch"])
    with pytest.raises(bench.UsageError, match="tilelab-nonesuch"):
        bench.plan_run(parsed, torch.device("cpu"), small=False)
