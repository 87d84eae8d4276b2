"""The demos: the seed article's examples plus English counterparts."""

from __future__ import annotations

from dataclasses import dataclass

from encoder.sense_contexts import APPLE, BANK, PINGGUO


@dataclass(frozen=True)
class SentencePreset:
    text: str
    text_pair: str | None = None
    model: str = "minilm"  # the bundled model that reads this language


ATTENTION_PRESETS: dict[str, SentencePreset] = {
    "English: the bank of the river": SentencePreset("She sat on the bank of the river."),
    "English pair: [CLS] A [SEP] B [SEP]": SentencePreset(
        "The apple pie was delicious.", "Apple released a new iPhone."),
    "中文: 苹果好吃，iPhone更好用。": SentencePreset(
        "苹果好吃，iPhone更好用。", model="e5-multilingual"),
    "中文句子对: 苹果很好吃。/ 我喜欢吃苹果。": SentencePreset(
        "苹果很好吃。", "我喜欢吃苹果。", model="e5-multilingual"),
}


@dataclass(frozen=True)
class WordPreset:
    word: str
    contexts: tuple[str, ...]
    model: str = "minilm"


# "sense | text" lines: the page measures how well the layers separate the senses
DISAMBIGUATION_PRESETS: dict[str, WordPreset] = {
    "English: apple (fruit vs company)": WordPreset("apple", APPLE.lines()),
    "English: bank (river vs money)": WordPreset("bank", BANK.lines()),
    "中文: 苹果 (水果 vs 公司)": WordPreset("苹果", PINGGUO.lines(), model="e5-multilingual"),
}


@dataclass(frozen=True)
class PretrainingPreset:
    sentence: str  # the 80/10/10 draw
    masked: str  # fill-mask, with [MASK]
    nsp_a: str
    nsp_b: str
    model: str = "minilm"


PRETRAINING_PRESETS: dict[str, PretrainingPreset] = {
    "English": PretrainingPreset(
        "The film was so moving that half the audience was in tears by the end.",
        "The capital of France is [MASK].",
        "I went to see the doctor yesterday.", "He said I was just tired and should rest."),
    "中文 (seed article)": PretrainingPreset(
        "苹果好吃，iPhone更好用。他因为没拿到奖金很开心，毕竟他早就是亿万富翁了。",
        "他因为没拿到奖金[MASK]了。",
        "我昨天去看了医生。", "他说我只是太累了，多休息就好。", model="e5-multilingual"),
    "中文: NSP's easy negative (seed)": PretrainingPreset(
        "我爱吃火锅。最近美国大选的民调显示特朗普领先。",
        "我[MASK]你。",
        "我爱吃火锅。", "最近美国大选的民调显示特朗普领先。", model="e5-multilingual"),
}
