"""Task loaders against the test fixtures: good tasks load with the right fields, bad input
gives one line naming the file and the field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hillclimber.errors import HillclimberError, SuiteNotFound, TaskLoadError
from hillclimber.loaders import (
    builtin_suites,
    load_dataset,
    load_suite,
    load_task,
    select_tasks,
    shard_of,
    task_format,
)
from hillclimber.task import Task, TaskFormat, VerificationKind

from conftest import FIXTURES

TB2 = FIXTURES / "tb2"
TB1 = FIXTURES / "tb1" / "fx-reverse-lines"
MANIFEST = FIXTURES / "json" / "mini-manifest.json"
BAD = FIXTURES / "bad"


def copy(src: Path, dest_parent: Path, name: str | None = None) -> Path:
    dest = dest_parent / (name or src.name)
    if src.is_dir():
        shutil.copytree(src, dest)
    else:
        dest_parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, dest)
    return dest


def write_manifest(path: Path, tasks: list[object], **top: object) -> Path:
    path.write_text(json.dumps({"name": "tmp-suite", **top, "tasks": tasks}))
    return path


def assert_one_line(error: Exception, *parts: object) -> None:
    message = str(error)
    assert "\n" not in message
    for part in parts:
        assert str(part) in message


# --- Terminal-Bench 2 -----------------------------------------------------------------------


def test_tb2_hello_loads_every_field() -> None:
    folder = TB2 / "fx-hello"
    task = load_task(folder)

    assert task.id == "fx-hello"
    assert task.format is TaskFormat.TB2
    assert task.source == folder
    assert (
        task.instruction
        == "Create a file /app/hello.txt whose only line is exactly:\n\nHello, world!"
    )
    assert task.limits.agent_timeout_sec == 120.0
    assert task.limits.verifier_timeout_sec == 60.0
    assert task.limits.setup_timeout_sec == 600.0
    assert task.limits.max_turns is None
    assert task.metadata.tags == ("files", "warmup")
    assert task.metadata.difficulty == "easy"
    assert task.metadata.category == "file-operations"
    assert task.metadata.author == "hillclimber fixtures"
    assert task.environment.dockerfile == folder / "environment" / "Dockerfile"
    assert task.environment.context == folder / "environment"
    assert task.environment.image == "hillclimber-fixtures/fx-hello:1"
    assert task.environment.network is False
    assert task.environment.setup == ()
    assert task.solution == folder / "solution" / "solve.sh"
    assert task.verification.kind is VerificationKind.TB2
    assert task.verification.script == folder / "tests" / "test.sh"
    assert task.verification.tests_dir == folder / "tests"
    assert task.has_solution and task.has_verifier


@pytest.mark.parametrize(
    ("name", "agent", "verifier", "tags", "category", "first_words"),
    [
        ("fx-sales-total", 600.0, 120.0, ("csv", "python"), "data-processing", "The folder"),
        ("fx-fix-script", 600.0, 120.0, ("python", "debugging"), "debugging", "/app/wordfreq"),
    ],
)
def test_tb2_fixtures_load(
    name: str,
    agent: float,
    verifier: float,
    tags: tuple[str, ...],
    category: str,
    first_words: str,
) -> None:
    task = load_task(TB2 / name)
    assert task.id == name
    assert task.instruction.startswith(first_words)
    assert (task.limits.agent_timeout_sec, task.limits.verifier_timeout_sec) == (agent, verifier)
    assert task.metadata.tags == tags
    assert task.metadata.category == category
    assert task.metadata.difficulty == "medium"
    assert task.environment.context == TB2 / name / "environment"
    assert task.solution == TB2 / name / "solution" / "solve.sh"
    assert task.verification.tests_dir == TB2 / name / "tests"


@pytest.mark.parametrize(
    ("setting", "network", "in_image"),
    [
        ("[environment]\nallow_internet = true\n", True, True),
        ("[environment]\nallow_internet = false\n", False, False),
        ('[environment]\nnetwork_mode = "public"\n', True, True),
        ('[environment]\nnetwork_mode = "no-network"\n', False, False),
        ('[agent]\nnetwork_mode = "allowlist"\n', True, True),
        ("", False, True),
    ],
)
def test_tb2_network_follows_task_toml(
    tmp_path: Path, setting: str, network: bool, in_image: bool
) -> None:
    """Unasked, no network in bwrap; in the task's image, Harbor's default for a container
    (public), through a network of the trial's own."""
    folder = copy(TB2 / "fx-hello", tmp_path)
    (folder / "task.toml").write_text(f'version = "1.0"\n{setting}')
    environment = load_task(folder).environment
    assert (environment.network, environment.image_network) == (network, in_image)


def test_tb2_optional_parts_and_defaults(tmp_path: Path) -> None:
    folder = copy(TB2 / "fx-hello", tmp_path, "bare")
    shutil.rmtree(folder / "environment")
    shutil.rmtree(folder / "solution")
    (folder / "task.toml").write_text('version = "1.0"\n')

    task = load_task(folder)
    assert task.id == "bare"
    assert task.environment.dockerfile is None
    assert task.environment.context is None
    assert task.environment.image is None
    assert task.solution is None
    assert not task.has_solution
    assert task.limits.agent_timeout_sec == 600.0  # the Task model's defaults
    assert task.metadata.tags == ()


def test_tb2_newer_harbor_task_section(tmp_path: Path) -> None:
    folder = copy(TB2 / "fx-hello", tmp_path)
    (folder / "task.toml").write_text(
        'schema_version = "1.3"\n[task]\nname = "org/x"\nkeywords = ["a", "b"]\n'
        'authors = [{ name = "Ada", email = "ada@example.invalid" }]\n'
    )
    task = load_task(folder)
    assert task.metadata.tags == ("a", "b")
    assert task.metadata.author == "Ada"


def test_tb2_wrong_type_names_the_toml_field(tmp_path: Path) -> None:
    folder = copy(TB2 / "fx-hello", tmp_path)
    (folder / "task.toml").write_text('[verifier]\ntimeout_sec = "soon"\n')
    with pytest.raises(TaskLoadError) as caught:
        load_task(folder)
    assert caught.value.path == folder / "task.toml"
    assert caught.value.field == "verifier.timeout_sec"
    assert_one_line(caught.value, "valid number", "'soon'")


def test_tb2_empty_or_undecodable_instruction(tmp_path: Path) -> None:
    folder = copy(TB2 / "fx-hello", tmp_path)
    (folder / "instruction.md").write_text("  \n\n")
    with pytest.raises(TaskLoadError) as caught:
        load_task(folder)
    assert caught.value.field == "instruction"
    assert_one_line(caught.value, "is empty")

    (folder / "instruction.md").write_bytes(b"\xff\xfe bad bytes")
    with pytest.raises(TaskLoadError) as caught:
        load_task(folder)
    assert caught.value.field == "instruction"
    assert_one_line(caught.value, "not UTF-8")


# --- Terminal-Bench 1 -----------------------------------------------------------------------


def test_tb1_loads_every_field() -> None:
    task = load_task(TB1)
    assert task.id == "fx-reverse-lines"
    assert task.format is TaskFormat.TB1
    assert task.instruction == (
        "The file /app/input.txt has several lines. Write them in reverse order "
        "(last line first)\nto /app/reversed.txt."
    )
    assert task.limits.agent_timeout_sec == 180.0
    assert task.limits.verifier_timeout_sec == 60.0
    assert task.metadata.tags == ("files",)
    assert task.metadata.difficulty == "easy"
    assert task.metadata.author == "hillclimber fixtures"
    assert task.environment.dockerfile == TB1 / "Dockerfile"
    assert task.environment.context == TB1
    assert task.solution == TB1 / "solution.sh"
    assert task.verification.kind is VerificationKind.TB1
    assert task.verification.script == TB1 / "run-tests.sh"
    assert task.verification.tests_dir == TB1 / "tests"


def test_tb1_simple_solution_yaml_is_kept_inline(tmp_path: Path) -> None:
    folder = copy(TB1, tmp_path)
    (folder / "solution.sh").unlink()
    (folder / "solution.yaml").write_text(
        "- command: cd /app\n- command: tac input.txt > reversed.txt\n  min_timeout_sec: 1\n"
    )
    task = load_task(folder)
    assert task.solution is None
    assert task.solution_inline == "cd /app\ntac input.txt > reversed.txt\n"


def test_tb1_interactive_solution_yaml_is_left_out(tmp_path: Path) -> None:
    folder = copy(TB1, tmp_path)
    (folder / "solution.sh").unlink()
    (folder / "solution.yaml").write_text("- command: vim x\n  block: false\n- command: ':wq'\n")
    task = load_task(folder)
    assert not task.has_solution


def test_tb1_early_descriptions_form(tmp_path: Path) -> None:
    folder = copy(TB1, tmp_path)
    (folder / "task.yaml").write_text(
        "descriptions:\n  - key: base\n    description: Reverse the lines.\n"
    )
    assert load_task(folder).instruction == "Reverse the lines."


def test_tb1_invalid_yaml_gives_line_and_column(tmp_path: Path) -> None:
    folder = copy(TB1, tmp_path)
    (folder / "task.yaml").write_text("instruction: [unclosed\ndifficulty: easy\n")
    with pytest.raises(TaskLoadError) as caught:
        load_task(folder)
    assert caught.value.path == folder / "task.yaml"
    assert_one_line(caught.value, "invalid YAML", "line ", "column ")


@pytest.mark.parametrize(
    ("content", "field"),
    [
        ("difficulty: easy\n", "instruction"),
        ("instruction: x\nmax_agent_timeout_sec: soon\n", "max_agent_timeout_sec"),
        ("instruction: x\ntags: files\n", "tags"),
    ],
)
def test_tb1_bad_task_yaml_names_the_field(tmp_path: Path, content: str, field: str) -> None:
    folder = copy(TB1, tmp_path)
    (folder / "task.yaml").write_text(content)
    with pytest.raises(TaskLoadError) as caught:
        load_task(folder)
    assert caught.value.field == field
    assert_one_line(caught.value, folder / "task.yaml", f"field '{field}'")


def test_tb1_without_run_tests(tmp_path: Path) -> None:
    folder = copy(TB1, tmp_path)
    (folder / "run-tests.sh").unlink()
    with pytest.raises(TaskLoadError) as caught:
        load_task(folder)
    assert caught.value.path == folder / "run-tests.sh"
    assert caught.value.field == "tests"


# --- JSON manifests ---------------------------------------------------------------------------


def test_manifest_fixture_loads() -> None:
    dataset = load_dataset(MANIFEST)
    assert dataset.name == "fixture-manifest"
    assert dataset.source == MANIFEST
    assert dataset.description == "Inline tasks in the original system's JSON suite format."
    assert dataset.hints is None
    assert dataset.errors == []
    assert dataset.ids == ["jx-echo-output", "jx-hello", "jx-word-count"]

    hello = dataset.get("jx-hello")
    assert hello is not None
    assert hello.format is TaskFormat.MANIFEST
    assert hello.source == MANIFEST
    assert hello.instruction == 'Create a file called hello.txt containing exactly "Hello, world!"'
    assert hello.verification.kind is VerificationKind.CUSTOM
    assert hello.verification.command == (
        "test -f hello.txt && [ \"$(cat hello.txt)\" = 'Hello, world!' ]"
    )
    assert hello.limits.agent_timeout_sec == 120.0
    assert hello.limits.max_turns == 20
    assert hello.metadata.tags == ("warmup",)
    assert hello.metadata.category == "file-operations"
    assert hello.environment.setup == ()
    assert not hello.has_solution

    count = dataset.get("jx-word-count")
    assert count is not None
    assert count.environment.setup == (
        "printf 'The quick brown fox jumps over the lazy dog.\\n' > document.txt",
    )

    echo = dataset.get("jx-echo-output")
    assert echo is not None
    assert echo.verification.kind is VerificationKind.OUTPUT
    assert echo.verification.command == "sh greet.sh"
    assert echo.verification.expected == "Hello from script!"


def test_manifest_test_type_solution_and_hints(tmp_path: Path) -> None:
    path = write_manifest(
        tmp_path / "suite.json",
        [
            {
                "id": "t-one",
                "description": "Make the tests pass.",
                "verification": {"type": "test", "command": "python -m pytest -q"},
                "solution": "echo ok > done.txt\n",
                "extra_key": "allowed",
            }
        ],
        hints=True,
        version=2,
    )
    dataset = load_dataset(path)
    assert dataset.hints == "on"
    (task,) = dataset.tasks
    assert task.verification.kind is VerificationKind.TEST
    assert task.verification.command == "python -m pytest -q"
    assert task.solution_inline == "echo ok > done.txt\n"
    assert task.limits.max_turns is None
    assert task.limits.agent_timeout_sec == 600.0


def test_manifest_bad_task_does_not_stop_the_others(tmp_path: Path) -> None:
    good = {"id": "ok", "description": "d", "verification": {"type": "custom", "script": "true"}}
    path = write_manifest(
        tmp_path / "m.json",
        [
            {
                "id": "no-expected",
                "description": "d",
                "verification": {"type": "output", "command": "x"},
            },
            good,
            {**good, "id": "bad turns", "max_turns": 0},
            {**good, "verification": {"type": "custom", "script": "false"}},
        ],
    )
    dataset = load_dataset(path)
    assert dataset.ids == ["ok"]
    assert [error.field for error in dataset.errors] == [
        "tasks[0].verification.expected",
        "tasks[2].id",
        "tasks[3].id",
    ]
    assert "duplicate task id 'ok'" in str(dataset.errors[2])
    for error in dataset.errors:
        assert_one_line(error, path)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"name": "x", "tasks": [', "invalid JSON"),
        ('["not", "an", "object"]', "JSON object"),
        ('{"name": "x"}', "field 'tasks'"),
        ('{"name": "x", "tasks": []}', "lists no tasks"),
    ],
)
def test_unusable_manifest_raises_one_line(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "m.json"
    path.write_text(text)
    with pytest.raises(TaskLoadError) as caught:
        load_dataset(path)
    assert caught.value.path == path
    assert_one_line(caught.value, problem)


# --- malformed fixtures -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "file", "field", "words"),
    [
        ("bad-toml", "task.toml", None, ["invalid TOML", "at line 2, column"]),
        ("missing-tests", "tests/test.sh", "tests", ["file missing"]),
        ("no-instruction", "instruction.md", "instruction", ["file missing"]),
    ],
)
def test_bad_task_fixtures(name: str, file: str, field: str | None, words: list[str]) -> None:
    with pytest.raises(TaskLoadError) as caught:
        load_task(BAD / name)
    error = caught.value
    assert error.path == BAD / name / file
    assert error.field == field
    assert_one_line(error, BAD / name / file, *words)
    if field:
        assert f"field '{field}'" in str(error)


def test_bad_manifest_fixture_names_the_field() -> None:
    path = BAD / "manifest-wrong-type.json"
    dataset = load_dataset(path)
    assert dataset.tasks == []
    (error,) = dataset.errors
    assert error.path == path
    assert error.field == "tasks[0].timeout_seconds"
    assert_one_line(error, path, "field 'tasks[0].timeout_seconds'", "valid number", "'soon'")


# --- datasets -------------------------------------------------------------------------------------


def test_folder_of_tb2_tasks() -> None:
    dataset = load_dataset(TB2)
    assert dataset.name == "tb2"
    assert dataset.source == TB2
    assert dataset.ids == ["fx-fix-script", "fx-hello", "fx-sales-total"]
    assert dataset.errors == []
    assert dataset.hints is None
    assert all(task.format is TaskFormat.TB2 for task in dataset.tasks)


def test_one_task_folder_is_a_dataset() -> None:
    dataset = load_dataset(TB1)
    assert dataset.name == "fx-reverse-lines"
    assert dataset.ids == ["fx-reverse-lines"]
    assert dataset.errors == []


def test_mixed_folder_keeps_good_tasks_and_reports_bad(tmp_path: Path) -> None:
    root = tmp_path / "mixed"
    for folder in TB2.iterdir():
        copy(folder, root)
    copy(TB1, root)
    for name in ("bad-toml", "missing-tests", "no-instruction"):
        copy(BAD / name, root)
    copy(TB2 / "fx-hello", root, ".hidden-task")
    (root / "notes").mkdir()
    (root / "notes" / "readme.txt").write_text("not a task")
    (root / "README.md").write_text("a file, not a task")

    dataset = load_dataset(root)
    assert dataset.ids == ["fx-fix-script", "fx-hello", "fx-reverse-lines", "fx-sales-total"]
    assert sorted(error.path.relative_to(root).as_posix() for error in dataset.errors) == [
        "bad-toml/task.toml",
        "missing-tests/tests/test.sh",
        "no-instruction/instruction.md",
    ]
    assert task_format(root / "fx-reverse-lines") is TaskFormat.TB1
    assert task_format(root / "notes") is None


def test_bad_task_folder_as_dataset_reports_instead_of_raising() -> None:
    dataset = load_dataset(BAD / "missing-tests")
    assert dataset.tasks == []
    assert [error.field for error in dataset.errors] == ["tests"]


def test_unusable_dataset_paths(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "not-a-task").mkdir()
    stray = tmp_path / "stray.txt"
    stray.write_text("x")
    cases = [
        (tmp_path / "missing", "no such dataset"),
        (empty, "no task folders"),
        (stray, "not a dataset"),
    ]
    for path, problem in cases:
        with pytest.raises(TaskLoadError) as caught:
            load_dataset(path)
        assert_one_line(caught.value, path, problem)


def test_load_task_on_a_non_task_folder(tmp_path: Path) -> None:
    with pytest.raises(TaskLoadError) as caught:
        load_task(tmp_path)
    assert_one_line(caught.value, tmp_path, "not a task folder")
    with pytest.raises(TaskLoadError) as caught:
        load_task(tmp_path / "nope")
    assert_one_line(caught.value, "no such task folder")


# --- selection ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tb2_tasks() -> list[Task]:
    return load_dataset(TB2).tasks


@pytest.mark.parametrize(
    ("include", "exclude", "expected"),
    [
        (None, None, ["fx-fix-script", "fx-hello", "fx-sales-total"]),
        ([], [], ["fx-fix-script", "fx-hello", "fx-sales-total"]),
        (["fx-hello"], None, ["fx-hello"]),
        (["fx-s*", "fx-hello"], None, ["fx-hello", "fx-sales-total"]),
        (["fx-hello,fx-fix-script"], None, ["fx-fix-script", "fx-hello"]),
        (None, ["fx-f*"], ["fx-hello", "fx-sales-total"]),
        (["fx-*"], ["fx-hello", "no-such-*"], ["fx-fix-script", "fx-sales-total"]),
        (["tag:python"], None, ["fx-fix-script", "fx-sales-total"]),
        (["tag:debug*", "fx-hello"], ["tag:no-such"], ["fx-fix-script", "fx-hello"]),
    ],
)
def test_select_tasks(
    tb2_tasks: list[Task],
    include: list[str] | None,
    exclude: list[str] | None,
    expected: list[str],
) -> None:
    assert [task.id for task in select_tasks(tb2_tasks, include, exclude)] == expected


def test_select_pattern_matching_nothing_is_an_error(tb2_tasks: list[Task]) -> None:
    with pytest.raises(HillclimberError) as caught:
        select_tasks(tb2_tasks, ["fx-hello", "regex-*"], None)
    assert_one_line(caught.value, "'regex-*'", "fx-hello", "fx-sales-total")
    with pytest.raises(HillclimberError) as caught:
        select_tasks(tb2_tasks, ["tag:no-such-tag"], None)
    assert_one_line(caught.value, "'tag:no-such-tag'")


def test_the_shards_of_a_set_of_tasks_are_disjoint_cover_it_and_are_even() -> None:
    tasks = load_suite("mini").tasks
    shards = [shard_of(list(reversed(tasks)), f"{i}/4") for i in range(1, 5)]
    ids = [[task.id for task in shard] for shard in shards]
    every = sorted(task.id for task in tasks)
    assert sorted(i for shard in ids for i in shard) == every  # each task once
    assert max(map(len, ids)) - min(map(len, ids)) <= 1
    assert ids[0][:2] == every[0:8:4]  # every 4th, in id order
    assert shard_of(tasks, "1/1") == sorted(tasks, key=lambda task: task.id)


@pytest.mark.parametrize("spec", ["0/3", "4/3", "x", "1/", "/2", "-1/2", "1/0"])
def test_a_shard_that_is_not_i_of_n_is_a_one_line_error(spec: str) -> None:
    with pytest.raises(HillclimberError) as caught:
        shard_of(load_suite("mini").tasks, spec)
    assert_one_line(caught.value, f"--shard {spec}", "I/N")


# --- suites ---------------------------------------------------------------------------------------


def test_load_suite_by_path() -> None:
    assert load_suite(str(TB2)).ids == ["fx-fix-script", "fx-hello", "fx-sales-total"]
    assert load_suite(str(MANIFEST)).name == "fixture-manifest"


def test_suite_toml_sets_name_description_and_hints(tmp_path: Path) -> None:
    root = tmp_path / "folder-name"
    copy(TB2 / "fx-hello", root)
    (root / "suite.toml").write_text('name = "warmups"\ndescription = "easy ones"\nhints = "off"\n')
    dataset = load_suite(str(root))
    assert (dataset.name, dataset.description, dataset.hints) == ("warmups", "easy ones", "off")

    (root / "suite.toml").write_text('hints = "sometimes"\n')
    with pytest.raises(TaskLoadError) as caught:
        load_suite(str(root))
    assert caught.value.field == "hints"
    assert_one_line(caught.value, root / "suite.toml", "'sometimes'")


def test_unknown_suite_lists_the_built_in_ones() -> None:
    with pytest.raises(SuiteNotFound) as caught:
        load_suite("no-such-suite")
    assert_one_line(caught.value, "no-such-suite", *builtin_suites())


def test_built_in_suites_load_cleanly() -> None:
    for name in builtin_suites():
        dataset = load_suite(name)
        assert dataset.tasks, name
        assert dataset.errors == [], [str(error) for error in dataset.errors]


# -- Harbor's layouts ------------------------------------------------------------------------

TB2_IDS = ["fx-fix-script", "fx-hello", "fx-sales-total"]


def test_a_folder_harbor_download_made_loads(tmp_path: Path) -> None:
    # `harbor download NAME -o OUT` (export mode) lays a dataset out as OUT/NAME/<task>/
    dataset_dir = tmp_path / "out" / "hc-fixtures"
    for task in TB2_IDS:
        shutil.copytree(FIXTURES / "tb2" / task, dataset_dir / task)
    dataset = load_dataset(dataset_dir)
    assert dataset.ids == TB2_IDS and not dataset.errors


def registry(tmp_path: Path, *datasets: dict[str, object]) -> Path:
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(list(datasets)))
    return path


def local(name: str, version: str, tasks: list[str]) -> dict[str, object]:
    return {
        "name": name,
        "version": version,
        "description": f"{name} for tests",
        "tasks": [{"name": t, "path": str(FIXTURES / "tb2" / t)} for t in tasks],
    }


def test_a_harbor_registry_entry_with_local_task_folders_loads(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "tb2" / "fx-hello", tmp_path / "tasks" / "fx-hello")
    relative = {"name": "rel", "version": "1", "tasks": [{"name": "h", "path": "tasks/fx-hello"}]}
    one = load_dataset(registry(tmp_path, relative))
    assert one.ids == ["fx-hello"] and one.name == "rel@1"  # paths from the registry's folder

    path = registry(tmp_path, local("fixtures", "1.0", TB2_IDS), local("small", "2", ["fx-hello"]))
    assert load_dataset(Path(f"{path}#fixtures")).ids == TB2_IDS
    assert load_dataset(Path(f"{path}#small@2")).ids == ["fx-hello"]
    with pytest.raises(TaskLoadError) as err:
        load_dataset(path)
    assert "several datasets" in str(err.value) and "fixtures@1.0, small@2" in str(err.value)
    with pytest.raises(TaskLoadError, match="no dataset 'big'"):
        load_dataset(Path(f"{path}#big"))


def test_a_registry_task_that_cannot_load_here_is_an_invalid_task(tmp_path: Path) -> None:
    entry = local("mixed", "1", ["fx-hello"])
    entry["tasks"] = [  # type: ignore[index]
        *entry["tasks"],  # type: ignore[misc]
        {"name": "remote", "git_url": "https://example.org/tasks.git", "path": "remote"},
        {"name": "gone", "path": str(tmp_path / "gone")},
    ]
    dataset = load_dataset(registry(tmp_path, entry))
    assert dataset.ids == ["fx-hello"]
    errors = [str(e) for e in dataset.errors]
    assert "field 'tasks[1]'" in errors[0] and "git repository" in errors[0]
    assert "field 'tasks[2]'" in errors[1] and "no task folder" in errors[1]
    bad = registry(tmp_path, {"name": "x", "tasks": [{"name": "no-path"}]})
    with pytest.raises(TaskLoadError) as err:
        load_dataset(bad)
    assert "registry.json" in str(err.value) and "path" in str(err.value)
    assert "\n" not in str(err.value)
