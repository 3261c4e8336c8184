"""Reading the instruction (`harness/instruction.py`): one resolver for the paths it names,
in whatever folder the task works."""

from __future__ import annotations

import pytest

from hillclimber.harness.instruction import (
    named_folders,
    named_paths,
    outside_places,
    protected_files,
    read_inputs,
    relocated,
)


@pytest.mark.parametrize("workdir", ["/app", "/workspace", "/home/agent"])
def test_a_relative_path_is_in_the_tasks_own_folder(workdir: str) -> None:
    text = "Read data/input.csv and write out.txt. Do not change data/input.csv."
    assert named_paths(text, workdir) == [f"{workdir}/data/input.csv", f"{workdir}/out.txt"]
    assert protected_files(text, workdir) == {f"{workdir}/data/input.csv"}


def test_absolute_paths_stay_as_written() -> None:
    text = "Save /tmp/result.json. Never modify /etc/app.conf."
    assert named_paths(text, "/workspace") == ["/tmp/result.json", "/etc/app.conf"]
    assert protected_files(text, "/workspace") == {"/etc/app.conf"}


def test_a_trailing_full_stop_is_not_part_of_the_name() -> None:
    assert named_paths("Write the count to count.txt.") == ["/app/count.txt"]


def test_numbers_versions_and_abbreviations_are_no_file_names() -> None:
    text = "Set it, e.g. ratio=1.40 (i.e. v2.0.1 of the spec) in policy.json; see /usr/lib/x.so.6."
    assert named_paths(text) == ["/app/policy.json", "/usr/lib/x.so.6"]
    series = "The cluster runs Elasticsearch 7.x (and Kafka 5.9.x); its log is in es.x."
    assert named_paths(series) == ["/app/es.x"]


@pytest.mark.parametrize(
    ("text", "protected"),
    [
        (
            "/app/shop.db is a SQLite database. Write the top customers to /app/answer.txt."
            " Do not modify the database.",
            {"/app/shop.db"},
        ),
        (
            "Summarise access.log into report.txt; never touch the access log itself.",
            {"/app/access.log"},
        ),
        (
            "Merge a.conf and b.ini into merged.txt. Don't edit the config files.",
            {"/app/a.conf", "/app/b.ini"},
        ),
        (
            "Count the rows of data/sales.csv into count.txt. You must not alter the\n"
            "input CSV in any way.",
            {"/app/data/sales.csv"},
        ),
    ],
)
def test_a_file_named_by_its_kind_is_the_one_of_that_kind(text: str, protected: set[str]) -> None:
    assert protected_files(text) == protected


@pytest.mark.parametrize(
    "text",
    [
        # two databases and "the database": which one is not said
        "Copy rows from old.db to new.db. Do not modify the database.",
        # no file of the kind is named
        "Fix the login page in index.html. Do not change the config.",
        # a kind word, but no sentence forbids a change
        "Update the database shop.db with the new prices, then write done.txt.",
        # "log" inside another word
        "Write the catalog to out.txt from items.log. Do not change the catalog format.",
    ],
)
def test_a_kind_without_one_file_of_it_protects_nothing(text: str) -> None:
    assert protected_files(text) == set()


def test_the_work_goes_where_the_instruction_names_a_new_file() -> None:
    text = (
        "Find the password of /workspace/crackme and save it to /solution/password.txt. "
        "Read its settings from /etc/app.conf."
    )
    named = named_paths(text, "/workspace")
    existing = {"/etc/app.conf", "/workspace/crackme"}
    assert outside_places(named, "/workspace", existing.__contains__) == {
        "/solution/password.txt",
        "/solution",  # not there yet: the work makes it
        "/etc/app.conf",  # there: itself only, not /etc
    }


READS = [
    # the input named where it lies, the answer in a file to make
    (
        "The session logs are at /app/logs/sessions.json. Save your findings to /app/out.txt.",
        {"/app/logs/sessions.json"},
    ),
    # a database to analyse, the report elsewhere
    (
        "A SQLite database at `/var/data/inventory.db` is corrupted.\n\nWrite the number of "
        "readable tables to `/root/report.txt`.",
        {"/var/data/inventory.db"},
    ),
    # a CSV read in pieces, two outputs
    (
        "Read /app/sales.csv. Write the total to /app/total.txt and the top seller to "
        "/app/top.txt.",
        {"/app/sales.csv"},
    ),
    # "set" the noun, in the sentence after the input's: no change of it
    (
        "The ads are at /app/sales.csv. Each campaign has ad groups, and each ad set has a data"
        " set of its own. Write the flattened rows to /app/flat.json.",
        {"/app/sales.csv"},
    ),
    # operations the data holds, in capitals or code, and a path holding a verb
    (
        "The script must:\n- Read operations from `/app/sales.csv`\n- Process all UPDATE and "
        "DELETE operations in order\n- Write results to `/app/restored/out.txt`",
        {"/app/sales.csv"},
    ),
    (
        "Each line of /app/sales.csv is `UPDATE id value`. Extract /app/sales.csv to `/app/"
        "restore/`. Write the count to /app/n.txt.",
        {"/app/sales.csv"},
    ),
    # a participle describes what it comes before
    (
        "- /app/sales.csv - the sales\n- /app/logs/sessions.json - List of deleted files held"
        " open\n\nWrite the total to /app/total.txt.",
        {"/app/sales.csv", "/app/logs/sessions.json"},
    ),
    # a participle of a state: what is so now, no change asked for
    (
        "The daemon's settings are in /app/daemon.json. Name the driver currently configured"
        " in /app/daemon.json: write it to /app/driver.txt.",
        {"/app/daemon.json"},
    ),
]
NOT_READ_ONLY = [
    "The limits are in /app/data.json. Set the port there to 80 and write it to /app/port.txt.",
    "The ports are in /app/data.json. The fix sets each to 80; write the count to /app/n.txt.",
    # a file to change: its sentence says so, or the next one
    "Fix the broken rows in /app/sales.csv and write the count to /app/count.txt.",
    "The file /app/data.json has a wrong port. Update it, then write the port to /app/port.txt.",
    # no file to make: the work is the change of the named one
    "The log /app/app.log is too large. Keep only its last 100 lines.",
    "The driver in /app/daemon.json is wrong. It is configured there: fix it; log to /app/x.txt.",
    # code and configuration are changed by fix tasks in words far from their name
    "The script is at /app/run.py and the config at /app/app.conf. Write the output to "
    "/app/out.txt.",
]


@pytest.mark.parametrize(("instruction", "inputs"), READS)
def test_data_the_task_only_reads(instruction: str, inputs: set[str]) -> None:
    there = {
        "/app/logs/sessions.json",
        "/var/data/inventory.db",
        "/app/sales.csv",
        "/app/daemon.json",
    }
    assert read_inputs(instruction, "/app", there.__contains__) == inputs


@pytest.mark.parametrize("instruction", NOT_READ_ONLY)
def test_data_the_task_may_change(instruction: str) -> None:
    there = {
        "/app/sales.csv",
        "/app/data.json",
        "/app/app.log",
        "/app/run.py",
        "/app/app.conf",
        "/app/daemon.json",
    }
    assert read_inputs(instruction, "/app", there.__contains__) == frozenset()


@pytest.mark.parametrize(
    ("text", "folders"),
    [
        ("You have two BED files in `/data/genomics/`:", ["/data/genomics"]),
        ("The logs live in /var/log, one file per day.", ["/var/log"]),
        ("Put the results under /srv/out.", ["/srv/out"]),
        ("The release is unpacked in '/opt/tool/v1.2/' already.", ["/opt/tool/v1.2"]),
    ],
)
def test_a_folder_is_named_by_its_absolute_path(text: str, folders: list[str]) -> None:
    assert named_folders(text) == folders


@pytest.mark.parametrize(
    "text",
    [
        "Save the result to /tmp/out.json.",  # a file
        "See https://example.org/docs/guide for the format.",  # a URL's path
        "Discard it to /dev/null; read /proc/meminfo.",  # the kernel's
        "A ratio of 1/2, and either a/b or c/d.",  # no absolute path
        "Write it to /.",  # the root
    ],
)
def test_no_folder_is_read_where_none_is_named(text: str) -> None:
    assert named_folders(text) == []


DISK = (
    "Diagnostic data files in `/root/disk_data/` contain:\n- `df_output.txt` - the df report\n"
    "- `lsof_open.txt` - files held open\n\nDo not modify `lsof_open.txt`. Write "
    "`/root/solution.json` from them."
)
FILES = {"/root/disk_data/df_output.txt", "/root/disk_data/lsof_open.txt", "/root/notes/x.md"}


def in_folders(root: str, name: str) -> list[str]:
    return sorted(p for p in FILES if p.startswith(root + "/") and p.endswith("/" + name))


def test_a_bare_name_listed_under_a_named_folder_is_the_file_there() -> None:
    """A data file named by its bare name, in a folder the instruction names, is that file —
    for every reader of the paths: the named ones, the inputs, the protected ones."""
    where = relocated(DISK, "/root", FILES.__contains__, in_folders)
    assert where == {
        "/root/df_output.txt": "/root/disk_data/df_output.txt",
        "/root/lsof_open.txt": "/root/disk_data/lsof_open.txt",
    }
    assert named_paths(DISK, "/root", where) == [*where.values(), "/root/solution.json"]
    inputs = read_inputs(DISK, "/root", FILES.__contains__, where)
    assert inputs == {"/root/disk_data/df_output.txt"}  # the other is said not to be modified
    assert protected_files(DISK, "/root", where) == {"/root/disk_data/lsof_open.txt"}


def test_a_bare_name_stays_where_it_is_there_is_none_or_many() -> None:
    files = FILES | {"/root/df_output.txt"}  # there in the working folder: that one
    assert relocated(DISK, "/root", files.__contains__, in_folders).keys() == {
        "/root/lsof_open.txt"
    }
    twice = {"/root/disk_data/df_output.txt", "/root/disk_data/old/df_output.txt"}
    found = relocated(DISK, "/root", twice.__contains__, lambda root, name: sorted(twice))
    assert found == {}  # which one is not known: the name stays in the working folder


SCANS = ["/data/scans/a.json", "/data/scans/sub/b.csv", "/data/scans/tool.py"]


@pytest.mark.parametrize(
    ("instruction", "inputs"),
    [
        (  # a folder of data named to read: its data files
            "The scans are in `/data/scans/`. Write the summary to /app/summary.json.",
            {"/data/scans/a.json", "/data/scans/sub/b.csv"},
        ),
        (  # a folder to change
            "Clean the records in /data/scans/ and write the count to /app/n.txt.",
            set(),
        ),
        (  # a file of it to change, the rest read
            "The scans are in /data/scans/. Count them. Fix /data/scans/a.json; write /app/n.txt.",
            {"/data/scans/sub/b.csv"},
        ),
        (  # the working folder is where the work goes, not an input
            "Your files are in /app/. Write the summary to /app/summary.json.",
            set(),
        ),
        (  # a system folder named is a place, not the data ("the /var partition")
            "The df report for /var is in /data/scans/a.json. Write /app/summary.json.",
            {"/data/scans/a.json"},
        ),
    ],
)
def test_the_data_of_a_folder_the_task_only_reads(instruction: str, inputs: set[str]) -> None:
    def files_in(folder: str) -> list[str]:
        return [p for p in sorted(there) if p.startswith(folder.rstrip("/") + "/")]

    there = {*SCANS, "/app/old.json", "/var/cache/apt/pkgcache.bin", "/var/log/dpkg.log"}
    assert read_inputs(instruction, "/app", there.__contains__, files_in=files_in) == inputs
