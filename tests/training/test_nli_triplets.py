"""NLI pairs -> MNRL triplets and SoftmaxLoss class ids; loss names and the data they accept."""

from __future__ import annotations

import pytest
from datasets import Dataset

from training import TrainingError, get_loss, load_pairs, nli_classes, nli_triplets
from training.losses import check_loss_data


def test_triplets_pair_entailment_with_the_same_premises_contradiction(nli_file):
    triplets = nli_triplets(load_pairs(nli_file).dataset)
    assert triplets.column_names == ["anchor", "positive", "negative"]
    # "A child reads." has no contradiction: no triplet; neutral hypotheses are never used.
    assert triplets.to_list() == [
        {
            "anchor": "A man plays guitar.",
            "positive": "Someone makes music.",
            "negative": "A man is asleep.",
        },
        {
            "anchor": "Two dogs run.",
            "positive": "Animals are moving.",
            "negative": "The dogs sit still.",
        },
    ]


def test_several_contradictions_are_sampled_with_the_seed():
    nli = Dataset.from_dict(
        {
            "premise": ["p"] * 5,
            "hypothesis": ["e1", "e2", "c1", "c2", "c3"],
            "label": ["entailment"] * 2 + ["contradiction"] * 3,
        }
    )
    first = nli_triplets(nli, seed=1)
    assert first["positive"] == ["e1", "e2"]
    assert set(first["negative"]) <= {"c1", "c2", "c3"}
    assert nli_triplets(nli, seed=1)["negative"] == first["negative"]


def test_softmax_rows_use_entailment_neutral_contradiction_ids(nli_file):
    rows = nli_classes(load_pairs(nli_file).dataset)
    assert rows["label"] == [0, 2, 1, 0, 2, 0]


def test_loss_names_and_class_names_resolve():
    assert get_loss("MultipleNegativesRankingLoss").name == "mnrl"
    assert get_loss("CoSENTLoss").name == "cosent"
    with pytest.raises(TrainingError, match="Unknown loss 'triplet'. Valid: cosine, cosent"):
        get_loss("triplet")


def test_each_loss_gets_rows_in_the_shape_it_expects(sts_file, nli_file):
    sts, nli = load_pairs(sts_file), load_pairs(nli_file)
    assert get_loss("cosine").prepare(sts, 0)["score"][0] == pytest.approx(4.8 / 5)
    assert get_loss("cosent").prepare(sts, 0)["score"][0] == 4.8
    assert get_loss("mnrl").prepare(nli, 0).num_rows == 2
    assert get_loss("softmax").prepare(nli, 0).column_names == ["premise", "hypothesis", "label"]
    with pytest.raises(TrainingError, match="trains on binary data, but this file holds scored"):
        check_loss_data(get_loss("contrastive"), sts)
    with pytest.raises(TrainingError, match="holds nli data"):
        check_loss_data(get_loss("cosine"), nli)
