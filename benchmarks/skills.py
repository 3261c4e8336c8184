"""How well the skill rankers find the skills a person would pick, and how fast.

    python benchmarks/skills.py [--labelled benchmarks/data/skills_labelled.toml] [--verbose]

The labelled set holds task instructions (the built-in suite's and others written like them),
each with the skills a person would show a small model for it. For each ranker over the
shipped library: precision@3 (of the first three, how many are labelled) and recall@5 (of the
labelled, how many are in the first five), averaged over the instructions. Then what the
harness really shows (`skills.select.choose`: BM25, top 3, the threshold): how many shown are
labelled, and how many instructions get none. Last, latency per query on a library of 1,000
skills (the shipped ones and variants of them), target at most 5 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path

from hillclimber.skills.rank import BM25Ranker, HashedRanker, Ranker
from hillclimber.skills.select import choose
from hillclimber.skills.settings import SkillSettings
from hillclimber.skills.skill import Skill, bootstrap

LABELLED = Path(__file__).resolve().parent / "data" / "skills_labelled.toml"
LATENCY_TARGET_MS = 5.0
LIBRARY_SIZE = 1000

Query = tuple[str, str, list[str]]


def load_labelled(path: Path) -> list[Query]:
    data = tomllib.loads(path.read_text())
    return [(q["source"], q["instruction"], list(q["skills"])) for q in data["query"]]


def scores(ranked: Sequence[str], wanted: Sequence[str]) -> tuple[float, float]:
    """(precision@3, recall@5) of one ranking."""
    first3, first5 = set(ranked[:3]), set(ranked[:5])
    return len(first3 & set(wanted)) / 3, len(first5 & set(wanted)) / len(wanted)


def evaluate(
    name: str, rank: Callable[[str], list[str]], queries: Sequence[Query], verbose: bool
) -> tuple[float, float]:
    p3, r5 = [], []
    for source, instruction, wanted in queries:
        ranked = rank(instruction)
        p, r = scores(ranked, wanted)
        p3.append(p)
        r5.append(r)
        if verbose and p < 1 / 3:
            print(f"  {name} misses {source}: got {ranked[:3]}, want {wanted}")
    return statistics.mean(p3), statistics.mean(r5)


def ranking(ranker: Ranker) -> Callable[[str], list[str]]:
    return lambda text: [s.skill.id for s in ranker.search(text, 5)]


def shown(queries: Sequence[Query], verbose: bool) -> tuple[int, int, int]:
    """(skills shown, of them labelled, instructions shown none) with the harness's settings."""
    settings = SkillSettings(show="on")
    total = right = empty = 0
    for source, instruction, wanted in queries:
        ids = [s.skill.id for s in choose(settings, instruction, task_id=None)]
        total += len(ids)
        right += len(set(ids) & set(wanted))
        empty += not ids
        if verbose and set(ids) - set(wanted):
            print(f"  shown for {source}: {ids}, want {wanted}")
    return total, right, empty


def big_library(skills: Sequence[Skill], size: int) -> list[Skill]:
    """The library and variants of its skills (words shuffled) up to `size`."""
    rng = random.Random(7)
    grown = list(skills)
    while len(grown) < size:
        base = skills[len(grown) % len(skills)]
        words = base.when.split() or base.description.split()
        rng.shuffle(words)
        grown.append(
            base.model_copy(update={"id": f"{base.id}-v{len(grown)}", "when": " ".join(words)})
        )
    return grown


def latency(ranker: Ranker, queries: Sequence[Query], repeat: int = 5) -> tuple[float, float]:
    """(median, p95) milliseconds per query."""
    times = []
    for _ in range(repeat):
        for _, instruction, _ in queries:
            start = time.perf_counter()
            ranker.search(instruction, 3)
            times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--labelled", type=Path, default=LABELLED)
    parser.add_argument("--verbose", action="store_true", help="list the misses")
    args = parser.parse_args()
    queries = load_labelled(args.labelled)
    skills = bootstrap()
    ceiling = statistics.mean(min(len(wanted), 3) / 3 for _, _, wanted in queries)
    print(
        f"library: {len(skills)} skills; labelled: {len(queries)} instructions "
        f"(precision@3 can reach {ceiling:.3f}: some have fewer than 3 labels)"
    )
    results = {}
    for ranker in (BM25Ranker(skills), HashedRanker(skills)):
        p3, r5 = evaluate(ranker.name, ranking(ranker), queries, args.verbose)
        results[ranker.name] = p3
        print(f"{ranker.name:>8}: precision@3 {p3:.3f}  recall@5 {r5:.3f}")
    total, right, empty = shown(queries, args.verbose)
    print(
        f"   shown: {total} skills for {len(queries)} instructions, {right} labelled "
        f"({right / max(total, 1):.1%}), {empty} instructions shown none"
    )
    big = big_library(skills, LIBRARY_SIZE)
    for make in (BM25Ranker, HashedRanker):
        start = time.perf_counter()
        ranker = make(big)
        built = (time.perf_counter() - start) * 1000
        median, p95 = latency(ranker, queries)
        print(
            f"{ranker.name:>8} on {len(big)} skills: index {built:.0f} ms, "
            f"query median {median:.2f} ms, p95 {p95:.2f} ms (target <= {LATENCY_TARGET_MS} ms)"
        )
    ratio = results["bm25"] / max(results["hashed"], 1e-9)
    print(
        f"bm25 precision@3 {results['bm25']:.3f} vs hashed baseline {results['hashed']:.3f}: "
        f"{ratio:.2f}x"
    )


if __name__ == "__main__":
    main()
