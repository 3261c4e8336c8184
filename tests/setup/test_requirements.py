"""What a setup script needs (`analyze_script`) and the script left to run, satisfied commands
replaced by `true` in place; and needs rendered for people (`render_needs`). The basic
replacement, functions and arithmetic, and grouping are in tests/image/test_environment.py;
this file checks scripts as Dockerfiles write them."""

from __future__ import annotations

from hillclimber.sandbox.base import STANDARD_PATH
from hillclimber.setup.decision import Context
from hillclimber.setup.requirements import analyze_script, render_needs


def test_a_continued_dockerfile_run_keeps_its_shape() -> None:
    script = (
        "set -eux; \\\n"
        "    apt-get update; \\\n"
        "    apt-get install -y --no-install-recommends tar; \\\n"
        "    rm -rf /var/lib/apt/lists/*; \\\n"
        "    mkdir -p /app/data"
    )
    analysis = analyze_script(script)
    assert analysis.needs == []
    assert analysis.command == (
        "set -eux; \\\n    true; \\\n    true; \\\n    true; \\\n    mkdir -p /app/data"
    )
    assert analysis.satisfied == [
        "apt-get update (not needed here)",
        "apt: tar (installed)",
        "rm /var/lib/apt/lists/* (outside /app, nothing to remove)",
    ]


def test_a_skipped_command_takes_its_heredoc_body_with_it() -> None:
    script = "apt-get install -y tar <<EOF\ny\nEOF\necho done > /app/ok.txt"
    assert analyze_script(script).command == "true\necho done > /app/ok.txt"


def test_needs_come_in_the_order_of_the_script() -> None:
    script = (
        "curl -fsSL https://example.com/a.tgz | tar xz\n"
        "apt-get install -y hc-notreal-a && pip install hc-notreal-b\n"
    )
    assert analyze_script(script).needs == [
        (None, "download https://example.com/a.tgz"),
        ("apt", "hc-notreal-a"),
        ("pip", "hc-notreal-b"),
    ]


def test_the_commands_inside_substitutions_are_read_and_no_option_is_a_command() -> None:
    """`X=`sed -n …`` sets X from a command: `-n` is no command to look for, and what the
    substitution runs (`$(curl …)`, a tool) is needed as much as any other command."""
    script = (
        "X=`sed -n '2p' seqs.fasta | cut -c 4-21`\n"
        "Y=$(curl -fsSL https://example.com/v.txt)\n"
        'echo "Tm=$(hc-notreal-tool -n 0.8 "$X")"\n'
    )
    assert analyze_script(script).needs == [
        (None, "download https://example.com/v.txt"),
        ("commands", "hc-notreal-tool"),
    ]


def test_the_steps_variables_are_substituted_before_reading() -> None:
    ctx = Context(env={"PATH": STANDARD_PATH, "PKG": "hc-notreal-pkg"})
    analysis = analyze_script("pip install --no-cache-dir $PKG", ctx)
    assert analysis.needs == [("pip", "hc-notreal-pkg")]
    assert analysis.command == "pip install --no-cache-dir $PKG"  # the script itself unchanged


def test_a_variable_the_step_does_not_know_stays_computed() -> None:
    assert analyze_script("pip install $PKG").needs == [
        (None, "pip packages computed at build time ($PKG)")
    ]


def test_a_command_that_cannot_be_read_runs_as_it_is() -> None:
    analysis = analyze_script("echo 'unbalanced")
    assert analysis.needs == [] and analysis.command == "echo 'unbalanced"


def test_an_install_inside_an_if_is_found() -> None:
    script = "if [ ! -f /app/done ]; then apt-get install -y hc-notreal-c; fi"
    assert analyze_script(script).needs == [("apt", "hc-notreal-c")]


def test_an_empty_script_leaves_nothing_to_run() -> None:
    analysis = analyze_script("")
    assert analysis.needs == [] and analysis.command is None


def test_an_architecture_case_needs_nothing() -> None:
    script = (
        'case "$(uname -m)" in x86_64) ARCH=amd64 ;; aarch64) ARCH=arm64 ;; esac && '
        "echo $ARCH > /app/arch.txt"
    )
    assert analyze_script(script).needs == []


# -- render_needs -----------------------------------------------------------------------------


def test_no_needs_render_as_nothing() -> None:
    assert render_needs([]) == []


def test_a_reason_given_twice_is_rendered_once_after_the_groups() -> None:
    needs: list[tuple[str | None, str]] = [
        (None, "download https://example.com/x"),
        ("pip", "b"),
        (None, "download https://example.com/x"),
        ("commands", "go"),
    ]
    assert render_needs(needs) == ["pip: b", "commands: go", "download https://example.com/x"]
