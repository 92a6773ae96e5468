import pytest

from dealer.cards import UnknownCardError, all_cards, cards_of_face, faces, get_card


def test_deck_has_48_cards_four_per_month():
    cards = all_cards()
    assert len(cards) == 48
    assert len({c.id for c in cards}) == 48
    for month in range(1, 13):
        assert sum(c.month == month for c in cards) == 4


def test_36_faces_and_chaff_collapse():
    assert len(faces()) == 36
    assert {c.id for c in cards_of_face("paulownia-chaff")} == {
        "paulownia-chaff-1", "paulownia-chaff-2", "paulownia-chaff-3"}


def test_card_attributes():
    crane = get_card("pine-crane")
    assert (crane.month, crane.suit, crane.type, crane.std_points, crane.honbana_points) == (
        1, "pine", "bright", 20, 30)
    assert get_card("maple-blue").ribbon == "blue"
    assert get_card("willow-rainman").nagoya_month == 2
    assert get_card("paulownia-chaff-2").honbana_points is None
    assert not get_card("paulownia-chaff-2").in_nagoya_deck
    assert sum(c.in_nagoya_deck for c in all_cards()) == 45


def test_unknown_card_suggests_nearest():
    with pytest.raises(UnknownCardError) as err:
        get_card("pine-cran")
    assert "pine-crane" in str(err.value)
    assert "unknown card 'pine-cran'" in str(err.value)


def test_the_projects_card_table_agrees_with_the_shared_deck_reference(shared):
    # the project's own table (it runs without ../shared) must name and value every card as the
    # reference does: ids are the one card vocabulary of rules, vision labels, JSON and UI
    import csv
    with (shared / "cards.csv").open(newline="", encoding="utf-8") as f:
        reference = {row["id"]: row for row in csv.DictReader(f)}
    assert [c.id for c in all_cards()] == list(reference)
    for card in all_cards():
        row = reference[card.id]
        assert (card.month, card.suit, card.type, card.ribbon or "", card.face, card.std_points,
                "" if card.honbana_points is None else card.honbana_points, card.nagoya_month) == (
            int(row["month"]), row["suit"], row["type"], row["ribbon"], row["face"], int(row["std_points"]),
            int(row["honbana_points"]) if row["honbana_points"] else "", int(row["nagoya_month"])), card.id
