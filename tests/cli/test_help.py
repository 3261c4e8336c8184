"""The help a user reads: a command's docstring wraps to the terminal by paragraph."""

from __future__ import annotations

from typer.testing import CliRunner

from hillclimber.cli import app


def test_a_docstring_paragraph_fills_the_line_instead_of_breaking_where_the_source_did() -> None:
    result = CliRunner().invoke(app, ["show", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    # two source lines of the docstring, one line of help at 200 columns
    assert "gives the totals of both tenths, one column per setting." in result.stdout
    assert "`" not in result.stdout.split("Arguments")[0]  # `code` is shown as code
