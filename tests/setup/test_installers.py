"""Per-tool verdicts (`classify`): what `apt-get`, `pip`, `npm`, `curl`, `git`, `cargo`, `conda`,
`uv`, `dpkg`, `rm` and the Hugging Face tools would install or fetch, and whether this machine
has it. Packages named `hc-notreal-…` exist nowhere; `bash` and `tar` are present everywhere
(a Debian package, or a command of that name)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.sandbox.base import STANDARD_PATH
from hillclimber.setup.decision import Context, Decision
from hillclimber.setup.installers import classify
from hillclimber.setup.presence import pip_version
from hillclimber.shell.words import read_words

from conftest import missing

CTX = Context(env={"PATH": STANDARD_PATH})


def verdict(command: str, ctx: Context = CTX) -> Decision:
    words = read_words(command)
    assert words is not None, command
    return classify(words, ctx)


def needs(command: str, ctx: Context = CTX) -> list[tuple[str | None, str]]:
    found = verdict(command, ctx)
    assert found.action == "need", found
    return found.needs


def test_a_command_of_no_words_runs() -> None:
    assert verdict("") == Decision()


# -- system packages --------------------------------------------------------------------------


def test_apt_get_update_and_cleaning_are_skipped() -> None:
    assert verdict("apt-get update") == Decision.skip("apt-get update (not needed here)")
    assert verdict("apt-get clean").action == "skip"
    assert verdict("apt-get -y autoremove").action == "skip"


def test_installing_present_packages_is_skipped_with_a_note() -> None:
    found = verdict("apt-get install -y --no-install-recommends bash tar")
    assert found == Decision("skip", [], ["apt: bash (installed)", "apt: tar (installed)"])


def test_installing_a_missing_package_needs_only_that_one() -> None:
    assert needs("apt-get install -y bash hc-notreal-lib") == [("apt", "hc-notreal-lib")]


@pytest.mark.parametrize(
    "command",
    [
        "apk add --no-cache bash",
        "yum install -y bash",
        "apt install bash",
        "apt-get -o Dpkg::Options::=--force-confnew install -y bash",
        "sudo DEBIAN_FRONTEND=noninteractive apt-get install -y bash",
    ],
)
def test_other_package_managers_and_options_are_read_the_same(command: str) -> None:
    assert verdict(command).satisfied == ["apt: bash (installed)"]


def test_packages_named_by_a_variable_are_computed_at_build_time() -> None:
    assert needs("apt-get install -y $PACKAGES") == [
        (None, "packages computed at build time ($PACKAGES)")
    ]


def test_a_local_deb_is_a_need() -> None:
    assert needs("apt-get install -y ./tool.deb") == [(None, "install of local package ./tool.deb")]
    assert needs("dpkg -i /tmp/tool.deb") == [(None, "install of local package /tmp/tool.deb")]


def test_apt_get_install_of_nothing_is_skipped() -> None:
    assert verdict("apt-get install -y").action == "skip"


def test_apt_commands_that_install_nothing_run() -> None:
    assert verdict("apt-cache policy bash") == Decision()
    assert verdict("dpkg -l") == Decision()


# -- pip --------------------------------------------------------------------------------------


def present_pip_package() -> str:
    for name in ("pip", "setuptools", "pyyaml", "six"):
        if pip_version(name) is not None:
            return name
    missing("a python3 with pip, setuptools, pyyaml or six")


def test_a_present_pip_package_is_skipped_with_its_version() -> None:
    name = present_pip_package()
    found = verdict(f"python3 -m pip install --no-cache-dir '{name}>=0.1'")
    assert found == Decision("skip", [], [f"pip: {name} {pip_version(name)} (installed)"])


def test_a_missing_pip_package_is_named_without_its_version() -> None:
    assert needs("pip install --no-cache-dir hc-notreal-pkg==1.0") == [("pip", "hc-notreal-pkg")]


def test_uv_add_and_uv_pip_install_are_pip_installs() -> None:
    assert needs("uv add hc-notreal-pkg") == [("pip", "hc-notreal-pkg")]
    assert needs("uv pip install hc-notreal-pkg") == [("pip", "hc-notreal-pkg")]


@pytest.mark.parametrize(
    "spec",
    [".", "git+https://github.com/example/lib.git", "torch @ https://example.com/t.whl"],
)
def test_a_local_project_or_url_is_a_need(spec: str) -> None:
    assert needs(f"pip install '{spec}'") == [("pip", f"{spec} (a local project or URL)")]


def test_pip_packages_named_by_a_variable_are_computed_at_build_time() -> None:
    assert needs("pip install $PKG") == [(None, "pip packages computed at build time ($PKG)")]


def test_pip_uninstall_and_cache_are_skipped_other_pip_commands_run() -> None:
    assert verdict("pip uninstall -y x") == Decision.skip("pip uninstall (not needed here)")
    assert verdict("pip cache purge").action == "skip"
    assert verdict("pip list") == Decision()


def test_a_requirements_file_not_in_the_build_context_is_a_need() -> None:
    assert needs("pip install -r requirements.txt") == [
        (None, "pip requirements file requirements.txt, not in the build context")
    ]


def test_requirements_given_on_stdin_are_a_need() -> None:
    assert needs("pip install -r /dev/stdin") == [
        (None, "pip requirements file /dev/stdin, not in the build context")
    ]


def test_a_requirements_file_is_found_where_the_step_runs_and_read(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text(
        "# deps\n-r base.txt\nhc-notreal-one==2 ; python_version>'3'\n"
    )
    (tmp_path / "base.txt").write_text("hc-notreal-two[extra]>=1\n")
    hosts = {  # where the sandbox paths are on the host, as the planner finds them
        "/app/src/requirements.txt": tmp_path / "requirements.txt",
        "/app/src/base.txt": tmp_path / "base.txt",
    }
    ctx = Context(cwd="/app/src", env={"PATH": STANDARD_PATH}, find_file=hosts.get)
    assert needs("pip install -r requirements.txt", ctx) == [
        ("pip", "hc-notreal-two"),
        ("pip", "hc-notreal-one"),
    ]


def test_uv_pip_sync_reads_its_requirements_file() -> None:
    assert needs("uv pip sync requirements.txt") == [
        (None, "pip requirements file requirements.txt, not in the build context")
    ]


# -- downloads and other installers -----------------------------------------------------------


def test_downloads_are_needs() -> None:
    assert needs("curl -fsSL https://example.com/x.sh -o /tmp/x.sh") == [
        (None, "download https://example.com/x.sh")
    ]
    assert needs("wget -q https://example.com/data.csv") == [
        (None, "download https://example.com/data.csv")
    ]


def test_a_request_to_this_machine_is_no_download() -> None:
    assert verdict("curl -s http://localhost:8000/health") == Decision()


def test_git_clone_and_fetching_are_needs_local_git_runs() -> None:
    assert needs("git clone --depth 1 https://github.com/a/b.git /app/b") == [
        (None, "git clone https://github.com/a/b.git")
    ]
    assert needs("git -C /app/b pull") == [(None, "git pull (network)")]
    assert verdict("git fetch /app/bundle1.bundle").action == "run"
    assert verdict("git -C /app/b pull ../upstream main").action == "run"
    assert needs("git submodule update --init") == [(None, "git submodule update (network)")]
    assert verdict("git config --global user.email a@b.c") == Decision()


def test_npm_project_dependencies_are_a_need_and_a_missing_global_tool_too() -> None:
    assert needs("npm ci") == [("npm", "project dependencies (into /app)")]
    assert needs("yarn add lodash") == [("yarn", "lodash (into /app)")]
    assert needs("npm install -g hc-notreal-cli") == [("npm", "hc-notreal-cli")]
    assert verdict("npm cache clean --force").action == "skip"


def test_a_tool_install_is_present_when_its_command_is() -> None:
    assert needs("cargo install hc-notreal-tool") == [("cargo", "hc-notreal-tool")]
    assert needs("go install example.com/cmd/hc-notreal@latest") == [("go", "hc-notreal")]
    assert needs("go mod download") == [(None, "go mod download (network)")]


def test_conda_and_uv_projects_are_needs() -> None:
    assert needs("conda install -y -c conda-forge numpy") == [("conda", "numpy")]
    assert needs("mamba create -n env") == [("conda", "an environment")]
    assert needs("uv sync") == [(None, "uv sync (project dependencies from the network)")]
    assert needs("uv python install 3.12") == [(None, "uv python install (download)")]


def test_a_hugging_face_download_is_a_need() -> None:
    assert needs("huggingface-cli download bert-base-uncased") == [
        (None, "download from Hugging Face bert-base-uncased")
    ]
    assert needs("hf download gpt2 --local-dir /app/model") == [
        (None, "download from Hugging Face gpt2")
    ]


def test_system_image_changes_are_skipped() -> None:
    for command in ("useradd -m app", "chown -R app:app /app", "update-ca-certificates"):
        assert verdict(command).action == "skip", command


def test_removing_system_caches_is_skipped_but_removing_in_app_runs() -> None:
    assert verdict("rm -rf /var/lib/apt/lists/*") == Decision.skip(
        "rm /var/lib/apt/lists/* (outside /app, nothing to remove)"
    )
    assert verdict("rm -rf /app/tmp") == Decision()
    assert verdict("rm -rf /var/cache/apt /app/x") == Decision()
