"""Ranking skills for an instruction: BM25 (`bm25s`, English stop words and Snowball stems)
and, as the baseline, the original design's stand-in: hashed bag-of-words vectors compared by
cosine. `benchmarks/skills.py` measures both against a labelled set."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import bm25s
import numpy as np
import Stemmer

from hillclimber.skills.skill import Skill


@dataclass(frozen=True)
class Scored:
    skill: Skill
    score: float


class Ranker(Protocol):
    name: str

    def search(self, query: str, k: int) -> list[Scored]:
        """The best `k` skills for `query`, best first, only those scoring above zero."""
        ...


_STEMMER = Stemmer.Stemmer("english")


def tokens(texts: Sequence[str]) -> list[list[str]]:
    """Lower-cased word stems without English stop words (the same for skills and queries)."""
    found = bm25s.tokenize(
        list(texts), stopwords="en", stemmer=_STEMMER, return_ids=False, show_progress=False
    )
    assert isinstance(found, list)
    return found


def _top(skills: Sequence[Skill], scores: np.ndarray, k: int) -> list[Scored]:
    k = min(k, len(skills))
    if k <= 0:
        return []
    best = np.argpartition(-scores, k - 1)[:k]
    best = best[np.argsort(-scores[best], kind="stable")]
    return [Scored(skills[i], float(scores[i])) for i in best if scores[i] > 0]


class BM25Ranker:
    name = "bm25"

    def __init__(self, skills: Sequence[Skill]) -> None:
        self.skills = list(skills)
        self.index = bm25s.BM25()
        if self.skills:
            self.index.index(tokens([s.text() for s in self.skills]), show_progress=False)

    def search(self, query: str, k: int) -> list[Scored]:
        words = tokens([query])[0]
        if not self.skills or not words:
            return []
        scores = np.asarray(self.index.get_scores(words), dtype=float)
        return _top(self.skills, scores, k)


WORD = re.compile(r"[a-z0-9]+")


class HashedRanker:
    """Bag-of-words hashed into `dims` buckets, cosine similarity: what the original design
    used in place of embeddings."""

    name = "hashed"

    def __init__(self, skills: Sequence[Skill], dims: int = 256) -> None:
        self.skills, self.dims = list(skills), dims
        matrix = np.array([self._vector(s.text()) for s in self.skills]).reshape(-1, dims)
        self.matrix = matrix

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dims)
        for word in WORD.findall(text.lower()):
            vector[zlib.crc32(word.encode()) % self.dims] += 1.0
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def search(self, query: str, k: int) -> list[Scored]:
        if not self.skills:
            return []
        return _top(self.skills, self.matrix @ self._vector(query), k)
