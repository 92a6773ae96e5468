"""Scoring and the choice of the uncertainty threshold."""
import pytest

from vision.evaluate import (LabelledCard, MISS_CAUSES, miss_causes, pick_threshold, quad_iou, score_frame,
                             threshold_outcomes)
from vision.types import Detection

SQUARE = ((0, 0), (54, 0), (54, 87), (0, 87))


def shifted(quad, dx, dy=0):
    return tuple((x + dx, y + dy) for x, y in quad)


def det(face, quad, confidence=0.99, uncertain=False):
    return Detection(card=None, face=face, quad=quad, confidence=confidence, uncertain=uncertain)


def test_iou():
    assert quad_iou(SQUARE, SQUARE) == pytest.approx(1.0)
    assert quad_iou(SQUARE, shifted(SQUARE, 27)) == pytest.approx(1 / 3, abs=1e-3)
    assert quad_iou(SQUARE, shifted(SQUARE, 100)) == 0.0
    assert quad_iou(SQUARE, SQUARE[::-1]) == pytest.approx(1.0)  # winding does not matter


def test_score_frame_counts_hits_misses_wrong_faces_and_false_alarms():
    cards = [LabelledCard("pine-crane", SQUARE, True), LabelledCard("back", shifted(SQUARE, 100), True),
             LabelledCard("iris-bridge", shifted(SQUARE, 200), True),
             LabelledCard("maple-deer", shifted(SQUARE, 300), False)]  # mostly hidden: optional
    detections = [det("pine-crane", SQUARE), det("pine-poetry", shifted(SQUARE, 102)),
                  det("maple-deer", shifted(SQUARE, 300)), det("plum-warbler", shifted(SQUARE, 500), 0.4, True)]
    s = score_frame(detections, cards).summary()
    assert s["cards"] == 3 and s["missed"] == 1
    assert s["detection_recall"] == pytest.approx(2 / 3, abs=1e-4)
    assert s["face_accuracy"] == 0.5 and s["confident_wrong"] == 1
    assert s["false_alarms"] == 1 and s["confident_false_alarms"] == 0
    assert s["detection_precision"] == pytest.approx(2 / 3, abs=1e-4)  # the optional card's match is not judged
    assert s["confusions"] == {"back->pine-poetry": 1}


def test_orientation_is_judged_by_the_starting_corner():
    cards = [LabelledCard("pine-crane", SQUARE, True)]
    turned = SQUARE[2:] + SQUARE[:2]
    assert score_frame([det("pine-crane", SQUARE)], cards).summary()["orientation_accuracy"] == 1.0
    assert score_frame([det("pine-crane", turned)], cards).summary()["orientation_accuracy"] == 0.0


def test_threshold_keeps_confident_answers_within_the_wrong_rate():
    outcomes = [(0.999, True)] * 5000 + [(0.97, False)] + [(0.95, True)] * 100 + [(0.6, False)] * 10
    threshold, stats = pick_threshold(outcomes, max_wrong_rate=1 / 10000)
    assert 0.97 < threshold <= 0.999
    assert stats["threshold_wrong_confident"] == 0
    threshold, stats = pick_threshold(outcomes, max_wrong_rate=1 / 2000)
    assert 0.6 < threshold <= 0.95  # one confident mistake in 5,111 answers is allowed
    assert stats["threshold_wrong_confident"] == 1


def test_confident_false_alarms_that_name_a_face_are_counted_apart_from_backs():
    cards = [LabelledCard("pine-crane", SQUARE, True)]
    detections = [det("pine-crane", SQUARE), det("back", shifted(SQUARE, 300)), det("iris-bridge", shifted(SQUARE, 500)),
                  det("plum-warbler", shifted(SQUARE, 700), 0.4, True)]
    s = score_frame(detections, cards).summary()
    assert s["false_alarms"] == 3 and s["confident_false_alarms"] == 2
    assert s["confident_false_alarms_naming_a_face"] == 1


def test_the_threshold_is_chosen_on_answers_naming_a_face_or_misreading_a_card():
    cards = [LabelledCard("pine-crane", SQUARE, True), LabelledCard("back", shifted(SQUARE, 100), True),
             LabelledCard("iris-bridge", shifted(SQUARE, 200), True)]
    detections = [det("pine-crane", SQUARE, 0.97), det("back", shifted(SQUARE, 100), 1.0),
                  det("back", shifted(SQUARE, 200), 0.99),           # a face-up card read as a back: wrong
                  det("back", shifted(SQUARE, 400), 1.0),             # two backs merged: left out
                  det("maple-deer", shifted(SQUARE, 600), 0.8)]       # a face where there is no card: wrong
    outcomes = threshold_outcomes(score_frame(detections, cards))
    assert sorted(outcomes) == [(0.8, False), (0.97, True), (0.99, False)]


def test_an_answer_flagged_uncertain_above_the_threshold_is_never_a_confident_one():
    # a card read on an extension that reaches over another card is flagged whatever its confidence
    cards = [LabelledCard("pine-crane", SQUARE, True), LabelledCard("iris-bridge", shifted(SQUARE, 200), True)]
    detections = [det("pine-crane", SQUARE, 0.99),
                  det("iris-chaff", shifted(SQUARE, 200), 0.997, uncertain=True),   # flagged above 0.99: wrong
                  det("maple-deer", shifted(SQUARE, 400), 0.995, uncertain=True),   # a flagged false alarm
                  det("plum-warbler", shifted(SQUARE, 600), 0.95, uncertain=True)]  # below the threshold
    tally = score_frame(detections, cards)
    assert sorted(threshold_outcomes(tally, 0.99)) == [(0.0, False), (0.0, False), (0.95, False), (0.99, True)]
    # without the threshold they ran at, every answer counts by its confidence, as before
    assert sorted(threshold_outcomes(tally)) == [(0.95, False), (0.99, True), (0.995, False), (0.997, False)]
    # so the flagged wrong answers do not push the threshold up past every answer
    threshold, stats = pick_threshold(threshold_outcomes(tally, 0.99), max_wrong_rate=0.0)
    assert threshold == pytest.approx(0.99) and stats["threshold_wrong_confident"] == 0
    assert pick_threshold(threshold_outcomes(tally), max_wrong_rate=0.0)[0] > 0.997


def test_a_face_named_in_a_quad_a_little_off_its_card_is_a_right_answer_for_the_threshold():
    cards = [LabelledCard("pine-crane", SQUARE, True), LabelledCard("iris-bridge", shifted(SQUARE, 200), True),
             LabelledCard("maple-deer", shifted(SQUARE, 400), True)]
    detections = [det("pine-crane", shifted(SQUARE, 25), 0.995),       # IoU 0.37 with its card, found by nothing else
                  det("iris-bridge", shifted(SQUARE, 200), 0.999),
                  det("iris-bridge", shifted(SQUARE, 225), 0.996),     # a second answer for a card already found
                  det("plum-warbler", shifted(SQUARE, 425), 0.997),    # on a card of another face
                  det("back", shifted(SQUARE, 25), 0.998)]            # a back names no card: left out
    tally = score_frame(detections, cards)
    s = tally.summary()
    # the benchmark's counts do not change: none of the four matches a card at IoU 0.5
    assert s["false_alarms"] == 4 and s["confident_false_alarms_naming_a_face"] == 3
    assert s["confident_false_alarms_on_their_card"] == 1
    assert s["detection_recall"] == pytest.approx(1 / 3, abs=1e-4)
    assert sorted(threshold_outcomes(tally)) == [(0.995, True), (0.996, False), (0.997, False), (0.999, True)]


def test_a_face_named_in_a_quad_a_little_off_a_card_hidden_too_much_to_count_is_a_right_answer_too():
    # cards under others: less than half of each shows, so none counts for recall
    cards = [LabelledCard("pine-crane", SQUARE, False, visible=0.4),
             LabelledCard("iris-bridge", shifted(SQUARE, 200), False, visible=0.3),
             LabelledCard("maple-deer", shifted(SQUARE, 400), True)]
    detections = [det("pine-crane", shifted(SQUARE, 25), 0.995),       # IoU 0.37 with the hidden pine
                  det("pine-crane", shifted(SQUARE, -25), 0.99),       # a second answer for it: wrong
                  det("plum-warbler", shifted(SQUARE, 225), 0.997),    # on the hidden iris, another face
                  det("maple-deer", shifted(SQUARE, 400), 0.999)]
    tally = score_frame(detections, cards)
    s = tally.summary()
    assert s["false_alarms"] == 3 and s["confident_false_alarms_on_their_card"] == 1
    assert sorted(threshold_outcomes(tally)) == [(0.99, False), (0.995, True), (0.997, False), (0.999, True)]
    # a counting card of that face comes first: the quad between it and the hidden pine is its answer,
    # and the hidden one is still there for a quad on it alone
    cards.append(LabelledCard("pine-crane", shifted(SQUARE, 50), True))
    tally = score_frame([det("pine-crane", shifted(SQUARE, 25), 0.995),
                         det("pine-crane", shifted(SQUARE, -25), 0.99)], cards)
    assert tally.on_its_card == [True, True]


def test_tallies_added_keep_each_false_alarm_with_its_judgement():
    cards = [LabelledCard("pine-crane", SQUARE, True)]
    a = score_frame([det("pine-crane", shifted(SQUARE, 25), 0.99)], cards)
    b = score_frame([det("iris-bridge", shifted(SQUARE, 25), 0.98)], cards)
    a.add(b)
    assert threshold_outcomes(a) == [(0.99, True), (0.98, False)]


def test_two_loose_quads_on_one_card_are_one_right_answer_and_one_wrong():
    cards = [LabelledCard("pine-crane", SQUARE, True)]
    detections = [det("pine-crane", shifted(SQUARE, 25), 0.99), det("pine-crane", shifted(SQUARE, -25), 0.995)]
    assert sorted(threshold_outcomes(score_frame(detections, cards))) == [(0.99, False), (0.995, True)]


def test_each_missed_card_is_given_the_cause_the_candidate_quads_show():
    cards = [LabelledCard("pine-crane", SQUARE, True), LabelledCard("back", shifted(SQUARE, 100), True),
             LabelledCard("iris-bridge", shifted(SQUARE, 200), True),
             LabelledCard("maple-deer", shifted(SQUARE, 300), True)]
    quads = [shifted(SQUARE, 127),  # on the back, but half a card off (IoU 1/3)
             shifted(SQUARE, 203), shifted(SQUARE, 197),  # on the iris, both read as no card
             shifted(SQUARE, 302), shifted(SQUARE, 296)]  # on the maple, one named
    named = [True, False, False, False, True]
    assert miss_causes(cards, quads, named) == ["no_quad", "quad_off", "read_as_no_card", "read_but_not_reported"]
    assert miss_causes(cards[:1], [], []) == ["no_quad"]


def test_miss_causes_refuses_readings_that_do_not_match_the_quads():
    with pytest.raises(ValueError, match="2 quads but 1 readings"):
        miss_causes([], [SQUARE, SQUARE], [True])


def test_the_summary_counts_missed_cards_by_cause_and_those_in_the_open_apart():
    cards = [LabelledCard("pine-crane", SQUARE, True, visible=1.0),
             LabelledCard("back", shifted(SQUARE, 100), True, visible=0.6),
             LabelledCard("iris-bridge", shifted(SQUARE, 200), True, visible=0.95)]
    tally = score_frame([det("pine-crane", SQUARE)], cards)
    assert [c.face for c in tally.missed_labels] == ["back", "iris-bridge"]
    assert "missed_by_cause" not in tally.summary()  # nobody asked why
    tally.missed_causes = [("quad_off", 0.6), ("quad_off", 0.95)]
    s = tally.summary()
    assert s["missed_by_cause"] == dict.fromkeys(MISS_CAUSES, 0) | {"quad_off": 2}
    assert s["missed_in_the_open_by_cause"] == dict.fromkeys(MISS_CAUSES, 0) | {"quad_off": 1}
    other = score_frame([], cards[:1])
    other.missed_causes = [("no_quad", 1.0)]
    tally.add(other)
    assert tally.summary()["missed_by_cause"]["no_quad"] == 1 and len(tally.missed_labels) == 3


def test_the_summary_says_how_much_of_the_doubt_is_face_up_cards_and_how_much_backs():
    cards = [LabelledCard("pine-crane", SQUARE, True), LabelledCard("iris-bridge", shifted(SQUARE, 100), True),
             LabelledCard("back", shifted(SQUARE, 200), True), LabelledCard("back", shifted(SQUARE, 300), True)]
    found = [det("pine-crane", SQUARE, 0.6, uncertain=True), det("iris-bridge", shifted(SQUARE, 100)),
             det("back", shifted(SQUARE, 200), 0.9, uncertain=True), det("back", shifted(SQUARE, 300))]
    s = score_frame(found, cards).summary()
    assert s["uncertain_share"] == 0.5
    assert s["uncertain_share_face_up"] == 0.5 and s["uncertain_backs"] == 1
    # a face-up card read as a back and flagged is a face-up card in doubt, not a back
    s = score_frame([det("back", SQUARE, 0.9, uncertain=True)], cards[:1]).summary()
    assert s["uncertain_share_face_up"] == 1.0 and s["uncertain_backs"] == 0


def test_confident_errors_count_the_confident_false_alarms_per_card_that_counts():
    cards = [LabelledCard("pine-crane", SQUARE, True), LabelledCard("iris-bridge", shifted(SQUARE, 100), True),
             LabelledCard("back", shifted(SQUARE, 200), True), LabelledCard("plum-warbler", shifted(SQUARE, 300), True)]
    detections = [det("pine-crane", SQUARE), det("iris-bridge", shifted(SQUARE, 100)),
                  det("maple-deer", shifted(SQUARE, 200)),                   # a back misread, confidently
                  det("back", shifted(SQUARE, 500)),                         # a confident "back" on nothing
                  det("susuki-moon", shifted(SQUARE, 700)),                  # a confident card on nothing
                  det("cherry-curtain", shifted(SQUARE, 900), 0.5, True)]    # in doubt: not an error
    s = score_frame(detections, cards).summary()
    assert s["confident_wrong"] == 1 and s["confident_false_alarms"] == 2
    assert s["confident_errors"] == 3 and s["confident_errors_rate"] == 0.75
    assert s["confident_errors_naming_a_card"] == 2 and s["confident_errors_naming_a_card_rate"] == 0.5


def test_face_accuracy_of_face_up_cards_leaves_the_backs_out():
    cards = [LabelledCard("pine-crane", SQUARE, True), LabelledCard("back", shifted(SQUARE, 100), True),
             LabelledCard("back", shifted(SQUARE, 200), True)]
    s = score_frame([det("pine-poetry", SQUARE), det("back", shifted(SQUARE, 100)),
                     det("back", shifted(SQUARE, 200))], cards).summary()
    assert s["face_accuracy"] == pytest.approx(2 / 3, abs=1e-4) and s["face_accuracy_face_up"] == 0.0


def test_the_top_card_of_a_pile_is_found_though_its_detection_fits_a_card_under_it_better():
    # a face-down deck: the top card in full view, the cards under it a little off and hidden; the
    # detection fits the second card best, yet it is the top card that is seen and found
    top = LabelledCard("back", SQUARE, True, visible=1.0)
    under = [LabelledCard("back", shifted(SQUARE, 2, 1), False, visible=0.05),
             LabelledCard("back", shifted(SQUARE, 3, 3), False, visible=0.02)]
    s = score_frame([det("back", shifted(SQUARE, 2, 1))], [top, *under]).summary()
    assert s["cards"] == 1 and s["missed"] == 0 and s["detection_precision"] == 1.0
    # two detections on the pile: one is the top card, the other a hidden card's (not judged)
    s = score_frame([det("back", shifted(SQUARE, 2, 1)), det("back", SQUARE)], [top, *under]).summary()
    assert s["missed"] == 0 and s["false_alarms"] == 0


def test_a_quad_over_two_overlapping_cards_is_matched_to_the_card_whose_face_it_names():
    # a face-down card half under a face-up one, and one quad over both (IoU >= 0.5 with each, a
    # little better with the card under): it names the card on top, which is there and found
    under = LabelledCard("back", SQUARE, True, visible=0.5)
    top = LabelledCard("pine-chaff", shifted(SQUARE, 27), True)
    over_both = ((-2, 0), (79, 0), (79, 87), (-2, 87))
    assert quad_iou(over_both, under.quad) > quad_iou(over_both, top.quad) >= 0.5
    s = score_frame([det("pine-chaff", over_both)], [under, top]).summary()
    assert s["missed"] == 1 and s["face_accuracy"] == 1.0 and s["confident_wrong"] == 0
    assert score_frame([det("pine-chaff", over_both)], [under, top]).missed_labels == [under]
    # a face that is neither card's is still a misread card, the one the quad fits best
    s = score_frame([det("iris-bridge", over_both)], [under, top]).summary()
    assert s["confident_wrong"] == 1 and s["confusions"] == {"back->iris-bridge": 1}
    # the card on top found by a quad of its own: the quad over both is a second answer of its
    # face, over the card under it, and wrong
    s = score_frame([det("pine-chaff", top.quad), det("pine-chaff", over_both)], [under, top]).summary()
    assert s["missed"] == 0 and s["confident_wrong"] == 1 and s["confusions"] == {"back->pine-chaff": 1}
