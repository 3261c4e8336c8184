"""What a task's Python programs fetch while they run, read without running them: the calls
that fetch a URL, the models and datasets loaded from the Hugging Face hub by name; a URL only
written down fetches nothing."""

from __future__ import annotations

import pytest

from hillclimber.setup.fetches import fetches, programs, script_fetches


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('import requests\nrequests.get("https://api.example.invalid/v1", timeout=5)\n',
         ["download https://api.example.invalid/v1"]),
        ('import urllib.request\nurl = "https://h.invalid/a.zip"\n'
         'urllib.request.urlretrieve(url, "/tmp/a.zip")\n', ["download https://h.invalid/a.zip"]),
        ('import requests\nBASE = "https://h.invalid/rest"\n'
         'def f(i):\n    return requests.get(f"{BASE}/item/{i}")\n',
         ["download https://h.invalid/rest/item/"]),
        ('import httpx\nhttpx.get(url="http://h.invalid:8080/x")\n',
         ["download http://h.invalid:8080/x"]),
        ('from transformers import AutoModel\nAutoModel.from_pretrained("org/model-1")\n',
         ["download from Hugging Face: org/model-1 (from_pretrained)"]),
        ('from transformers import AutoTokenizer\nname = "bert-base-uncased"\n'
         "AutoTokenizer.from_pretrained(name)\n",
         ["download from Hugging Face: bert-base-uncased (from_pretrained)"]),
        ('from datasets import load_dataset\nload_dataset("org/data", split="train")\n',
         ["download from Hugging Face: org/data (load_dataset)"]),
        ('from transformers import pipeline\npipeline("summarization", model="org/sum")\n',
         ["download from Hugging Face: org/sum (pipeline)"]),
    ],
)  # fmt: skip
def test_what_a_program_fetches_is_read_from_its_calls(source: str, found: list[str]) -> None:
    assert fetches(source) == found


@pytest.mark.parametrize(
    "source",
    [
        'def test_links():\n    assert parse("x") == ["https://h.invalid/page"]\n',
        '"""Data from https://h.invalid/docs."""\nimport json\n',
        'import requests\nrequests.get("http://localhost:5000/sentiment")\n',
        'import requests\nrequests.get("http://127.0.0.1:8080/")\n',
        'from datasets import load_dataset\nload_dataset("csv", data_files="/app/a.csv")\n',
        'from transformers import pipeline\npipeline("summarization")\n',
        'from transformers import AutoModel\nAutoModel.from_pretrained("/app/model_cache/m")\n',
        'U = "https://a.invalid"\nU = "https://b.invalid"\nimport requests\nrequests.get(U)\n',
        "this is not python (\n",
    ],
)
def test_a_url_only_written_down_a_local_server_or_a_local_model_fetches_nothing(
    source: str,
) -> None:
    assert fetches(source) == []


def test_the_python_a_script_runs_is_read_wherever_it_is_written() -> None:
    script = (
        "#!/bin/bash\nmkdir -p out\n"
        "cat > /app/get.py <<'EOF'\nimport requests\nrequests.get('https://a.invalid/x')\nEOF\n"
        "python3 -c \"\nfrom datasets import load_dataset\nload_dataset('org/d')\n\"\n"
        "python3 - <<EOF\nimport urllib.request\nurllib.request.urlopen('https://b.invalid/')\nEOF\n"
    )
    assert len(programs(script)) == 3
    assert script_fetches(script) == [
        "download https://a.invalid/x",
        "download https://b.invalid/",
        "download from Hugging Face: org/d (load_dataset)",
    ]
