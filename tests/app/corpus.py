"""A dozen small documents for the app's test index: English, Chinese, and hostile text."""


def doc(id_: str, title: str, text: str, category: str, year: int) -> dict:
    return {"id": id_, "title": title, "text": text,
            "metadata": {"category": category, "year": year}}


DOCS = [
    doc("oil-1", "Oil prices climb",
        "Crude oil prices rose sharply as OPEC cut production and demand for fuel grew.",
        "business", 2004),
    doc("oil-2", "Petrol costs",
        "Drivers face higher petrol costs at the pump after the rise in the price of crude.",
        "business", 2005),
    doc("bank-1", "Interest rates",
        "The central bank raised interest rates to curb inflation in the economy.",
        "business", 2005),
    doc("football-1", "Cup final",
        "The striker scored twice as the team won the cup final in extra time.", "sport", 2004),
    doc("tennis-1", "Wimbledon",
        "The champion served aces and won the Wimbledon tennis title on grass.", "sport", 2005),
    doc("phone-1", "New iPhone",
        "Apple released a new iPhone with a faster chip and a better camera.", "tech", 2005),
    doc("fruit-1", "Orchard harvest",
        "She baked an apple pie with cinnamon and sweet fruit picked in the orchard.",
        "food", 2004),
    doc("web-1", "Broadband",
        "Broadband internet access spread quickly to homes across the country.", "tech", 2004),
    doc("film-1", "Oscars",
        "The film won best picture at the Oscars after a strong year at the box office.",
        "entertainment", 2005),
    doc("vote-1", "Election",
        "Voters went to the polls in a general election called by the prime minister.",
        "politics", 2005),
    doc("zh-1", "苹果发布会", "苹果发布了新手机，iPhone更好用。", "tech", 2005),
    doc("hostile-1", "<b>Markup</b> **test**",
        "<script>alert('xss')</script> **not bold** and # not a heading: a document about "
        "script injection in web pages.", "tech", 2004),
]
