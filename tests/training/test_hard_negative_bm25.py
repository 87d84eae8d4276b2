"""Hard-negative mining ranks with the indexer's BM25 (`common.lexical`), one tokenisation for
both: Chinese is read as jieba words, English is stemmed with stop words out."""

from __future__ import annotations

from common.lexical import tokenize
from training.beir_triplets import Bm25

CORPUS = {
    "fruit": {"title": "", "text": "我今天吃了一个苹果"},
    "phone": {"title": "新闻", "text": "苹果发布了新款手机"},
    "runs": {"title": "", "text": "The runners were running"},
    "other": {"title": "", "text": "天气很好"},
}


def test_chinese_words_match_inside_a_sentence():
    hits = dict(Bm25(CORPUS).search(["苹果"], k=4)[0])
    assert set(hits) == {"fruit", "phone"}  # 苹果 is one jieba word of each sentence


def test_english_is_stemmed_as_the_index_does():
    (hit,) = Bm25(CORPUS).search(["run"], k=4)[0]
    assert hit[0] == "runs"
    assert tokenize("running") == tokenize("run") == ["run"]
    assert "the" not in tokenize("The runners")
