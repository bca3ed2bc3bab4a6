"""The lessons catalogue: every lesson of the Lessons page, as data (ui/lessons/lesson.py says what a lesson holds).
Each lesson's numbers are held to the app by the lesson tests (tests/test_lessons.py and the tests per topic), so a
sentence, setting or claim changed here is checked before it reaches a class."""

from __future__ import annotations

from attention_core.readings.sets import sentence_sets
from ui.i18n import N_
from ui.lessons.lesson import Lesson, MarkedCell

LESSONS: list[Lesson] = [
    Lesson(
        N_("A word meets itself"),
        N_("repetition"),
        "similarity",
        "the cat sat on the mat and the dog sat on the cat",
        N_(
            "With one-hot vectors and no positions, V·Vᵀ is 1 exactly where two words are the same word: raw "
            "similarity knows identity and nothing else. The three rows of *the* are equal, and so are their mixes."
        ),
        {"similarity_embedding": "one-hot", "similarity_position": False},
        look_at=N_(
            "Row *the*, column the second *the*, in the similarities: the same word, so the same value as the diagonal."
        ),
        cell=MarkedCell("the", "the", column_nth=2),
        figures=("similarity_S",),
    ),
    Lesson(
        N_("الكتاب twice: same word, two places"),
        N_("repetition"),
        "similarity",
        "الكتاب على الطاولة والقلم على الكتاب",
        N_(
            "Trained vectors, positions off: the two الكتاب rows are identical. Switch **Add positional encoding** on "
            "and they separate — position is the only thing that tells two copies of a word apart."
        ),
        {"similarity_embedding": "trained model", "similarity_position": False, "similarity_metric": "cosine"},
        look_at=N_("Row الكتاب, column the second الكتاب, in the similarities: the two copies are one vector."),
        cell=MarkedCell("الكتاب", "الكتاب", column_nth=2),
        figures=("similarity_S",),
    ),
    Lesson(
        N_("One word, two meanings: bank"),
        N_("two meanings"),
        "similarity",
        "I sat on the bank of the river then went to the bank to get money",
        N_(
            "Both *bank*s get the same vector, so their rows of V·Vᵀ and their attended mixes are the same: raw "
            "similarity cannot tell a river bank from a money bank. Only learned heads that read the neighbours can "
            "(next lesson, in Arabic)."
        ),
        {"similarity_embedding": "random", "similarity_position": False, "similarity_softmax": True},
        look_at=N_("Row *bank*, column the second *bank*: the two banks are one word to raw similarity."),
        cell=MarkedCell("bank", "bank", column_nth=2),
        figures=("similarity_S", "similarity_A"),
    ),
    Lesson(
        N_("ذهب: 'went' and 'gold'"),
        N_("two meanings"),
        "heads",
        "ذهب الله بنورهم ولهم اساور من ذهب",
        N_(
            "The two ذهب enter the model as one vector; after layer 1 they are already apart, and layer 2 reads them "
            "differently. Layer 2, head 1 reads the word before: the verb ذهب (went) has none and rests on [CLS] "
            "(0.96), the noun ذهب (gold) reads من (0.28). Head 2 reads the word after: the verb reads its subject "
            "الله (0.39)."
        ),
        {"heads_layer": 2, "heads_head": 1},
        look_at=N_("Row ذهب (the second one: gold), column من, in layer 2, head 1."),
        cell=MarkedCell("ذهب", "من", row_nth=2),
        figures=("heads_grid", "heads_picked"),
        panel="L2 H1",
    ),
    Lesson(
        N_("Agreement: the article agrees"),
        N_("agreement"),
        "fill_blank",
        "إنه هو السميع [MASK]",
        N_(
            "After the definite السميع the model guesses the definite العليم. Open the next lesson: after the "
            "indefinite سميع it guesses عليم. The blank learned the agreement by reading the word before it."
        ),
        expected_guess="العليم",
        look_at=N_("Row *layer 1 · head 1*, column السميع: where the blank looked, one head at a time."),
        cell=MarkedCell("layer 1 · head 1", "السميع"),
        figures=("fill_blank_attention",),
    ),
    Lesson(
        N_("Agreement: no article, no article"),
        N_("agreement"),
        "fill_blank",
        "إنه سميع [MASK]",
        N_("The same pair without the article: the guess is the indefinite عليم."),
        expected_guess="عليم",
        look_at=N_("Row *layer 1 · head 1*, column سميع: the word before the blank."),
        cell=MarkedCell("layer 1 · head 1", "سميع"),
        figures=("fill_blank_attention",),
    ),
    Lesson(
        N_("Negation: لا ريب فيه"),
        N_("negation"),
        "fill_blank",
        "ذلك الكتاب لا [MASK] فيه",
        N_(
            "The model completes Qurʾān 2:2 with ريب ('no doubt in it'): the blank reads the negation لا before it "
            "and فيه after it (rows L1 H1: 0.80 on لا, and L1 H2: 0.87 on فيه)."
        ),
        expected_guess="ريب",
        look_at=N_("Row *layer 1 · head 1*, column لا; then the row below it, column فيه."),
        cell=MarkedCell("layer 1 · head 1", "لا"),
        figures=("fill_blank_attention",),
    ),
    Lesson(
        N_("Looked at, or mattered? لا ريب فيه"),
        N_("negation"),
        "fill_blank",
        "ذلك الكتاب لا [MASK] فيه",
        N_(
            "Open *When did the model decide, and what mattered?* under the guesses. ريب is the first guess from "
            "layer 1 on. The blank looks most at الكتاب (0.26 of its attention), yet hiding الكتاب moves ريب only "
            "from 0.96 to 0.86; hiding لا (0.23) takes it to 0.38, hiding فيه (0.26) to 0.43. What a word is looked "
            "at is not what it contributes."
        ),
        expected_guess="ريب",
        look_at=N_("The strip beside the blank's attention: looked at against mattered, word by word."),
    ),
    Lesson(
        N_("Negation: لا إله إلا هو"),
        N_("negation"),
        "fill_blank",
        "لا [MASK] إلا هو",
        N_(
            "Between لا and إلا the model is almost certain: إله. A formula the heads learned from the words around "
            "the blank on both sides."
        ),
        expected_guess="إله",
        look_at=N_("Row *layer 1 · head 1*, column لا; then the row below it, column إلا."),
        cell=MarkedCell("layer 1 · head 1", "لا"),
        figures=("fill_blank_attention",),
    ),
    Lesson(
        N_("A previous-word head and a next-word head"),
        N_("heads"),
        "heads",
        "قل هو الله احد",
        N_(
            "Layer 1, head 1 sends every word to the word before it (0.75–0.97); head 2 to the word after (0.71–0.87). "
            "Switch W1 and W2 off: head 1 still reads the word before (0.91–0.94). In this model the rule lives in the "
            "learned position bias, not in W1 and W2 — MiniLM's previous-word head has no such bias and loses its rule "
            "without its W's (0.07)."
        ),
        {"heads_layer": 1, "heads_head": 1},
        look_at=N_("Row الله, column هو, in layer 1, head 1: each word reads the word before it."),
        cell=MarkedCell("الله", "هو"),
        figures=("heads_grid", "heads_picked"),
        panel="L1 H1",
    ),
    Lesson(
        N_("It: the animal or the street? (1)"),
        N_("pretrained English heads"),
        "heads",
        "The animal didn't cross the street because it was too tired",
        N_(
            "MiniLM, pretrained on English. Layer 4, head 2 sends *it* to *animal* (0.64), and so does layer 6, head "
            "12 (0.65): heads that resolve a pronoun. Switch **trained W1** off and the link is gone (0.04): the rule "
            "lives in the learned query matrix. Then open the next lesson, where only the last word changes."
        ),
        {"heads_layer": 4, "heads_head": 2},
        look_at=N_("Row *it*, column *animal*, in layer 4, head 2."),
        cell=MarkedCell("it", "animal"),
        figures=("heads_grid", "heads_picked"),
        panel="L4 H2",
    ),
    Lesson(
        N_("It: the animal or the street? (2)"),
        N_("pretrained English heads"),
        "heads",
        "The animal didn't cross the street because it was too wide",
        N_(
            "Now it is the street that is too wide. Layer 4, head 2 lets go of *animal* (0.64 → 0.27) while layer 6, "
            "head 12 still says *animal* (0.50): one head reads the meaning, the other does not — real heads are "
            "partial rules, not a grammar book."
        ),
        {"heads_layer": 4, "heads_head": 2},
        look_at=N_("Row *it*, column *animal*, in layer 4, head 2."),
        cell=MarkedCell("it", "animal"),
        figures=("heads_grid", "heads_picked"),
        panel="L4 H2",
    ),
    Lesson(
        N_("A head that reads the word before"),
        N_("pretrained English heads"),
        "heads",
        "the quick brown fox jumps over the lazy dog",
        N_(
            "Layer 1, head 3 of MiniLM sends every word to the word just before it (1.00 on every row). Switch "
            "**trained W1** and **trained W2** off: 0.07. Nothing in raw similarity knows about *before*; the two "
            "learned matrices read it off the position vectors. Layer 2, head 9 does the opposite: the word after "
            "(0.62)."
        ),
        {"heads_layer": 1, "heads_head": 3},
        look_at=N_("Row *fox*, column *brown*, in layer 1, head 3: each word reads the word before it."),
        cell=MarkedCell("fox", "brown"),
        figures=("heads_grid", "heads_picked"),
        panel="L1 H3",
    ),
    Lesson(
        N_("Where attention rests: the [CLS] sink"),
        N_("pretrained English heads"),
        "heads",
        "the quick brown fox jumps over the lazy dog",
        N_(
            "In the grid, most heads of layers 2 to 5 have a dark first column: over half of all attention (53%) goes "
            "to [CLS], 92% in layer 5, head 6. A head with nothing to look for parks its attention there. Switch "
            "**Show [CLS] and [SEP]** off: each row is renormalised over the real words, and what those heads do see "
            "appears."
        ),
        {"heads_layer": 5, "heads_head": 6, "heads_special": True},
        look_at=N_(
            "Row *fox*, column *[CLS]*, in layer 5, head 6: the first column, where the head parks its attention."
        ),
        cell=MarkedCell("fox", "[CLS]"),
        figures=("heads_grid", "heads_picked"),
        panel="L5 H6",
    ),
    Lesson(
        N_("Knock out the word before: agreement is lost"),
        N_("knocking heads out"),
        "fill_blank",
        "إنه سميع [MASK]",
        N_(
            "With every head the blank after the indefinite سميع is the indefinite عليم (0.58). Switch off layer 1, "
            "head 1, the head that reads the word before, and عليم falls to 0.01: the first guesses become السميع "
            "(0.05), الحكيم and العليم, all with the article that سميع lacks. Switch off head 2 (the word after) "
            "instead: عليم stays first (0.55). Press **Rank every head**: L1 H1 matters most."
        ),
        {"fill_blank_knock_out": ["L1 H1"]},
        expected_guess="عليم",
        expected_after="السميع",
        look_at=N_(
            "The table under *Switch heads off*: عليم with every head and without L1 H1; below it, row L1 H1 "
            "of the blank's attention: all on سميع."
        ),
        cell=MarkedCell("L1 H1", "سميع"),
        figures=("fill_blank_knock_out_weights_every",),
    ),
    Lesson(
        N_("Two heads back each other up: لا ريب فيه"),
        N_("knocking heads out"),
        "fill_blank",
        "ذلك الكتاب لا [MASK] فيه",
        N_(
            "ريب (0.96) has a head on each side: layer 1, head 1 reads لا before the blank, head 2 reads فيه after it. "
            "Knock out either one alone and ريب stays first (0.41 without head 1, 0.43 without head 2). Knock out "
            "both, as this link does, and ريب falls to 0.01: the first guess becomes المعلم. One head is not the rule; "
            "the heads share it."
        ),
        {"fill_blank_knock_out": ["L1 H1", "L1 H2"]},
        expected_guess="ريب",
        expected_after="المعلم",
        look_at=N_(
            "The table under *Switch heads off*; below it, row L1 H2 of the blank's attention: on فيه. Then "
            "remove one of the two heads from the list."
        ),
        cell=MarkedCell("L1 H2", "فيه"),
        figures=("fill_blank_knock_out_weights_every",),
    ),
    Lesson(
        N_("A pronoun head the model can do without"),
        N_("knocking heads out"),
        "heads",
        "The animal didn't cross the street because it was too tired",
        N_(
            "MiniLM's layer 4, head 2 sends *it* to *animal* (0.64). Knock it out, as this link does: the later "
            "pronoun head, layer 6, head 12, still sends *it* to *animal* (0.65 → 0.62), and no later head moves more "
            "than 3 % of its attention. Press **Rank every head**: L4 H2 ranks 34th of 72 for the sentence's final "
            "vectors, the top heads are in layer 6. A head that looks meaningful is not always one the model needs."
        ),
        {"heads_view": "Knock heads out", "heads_knock_out": ["L4 H2"], "heads_knock_out_view": "L6 H12"},
        look_at=N_("Row *it*, column *animal*, in the panel *heads knocked out* of L6 H12."),
        cell=MarkedCell("it", "animal"),
        figures=("heads_knock_out_head",),
        panel="heads knocked out",
    ),
    Lesson(
        N_("Knock out one head: tea becomes coffee"),
        N_("knocking heads out"),
        "fill_blank",
        "I drink a cup of [MASK] every morning.",
        N_(
            "MiniLM retrained to guess fills the blank with tea (0.65), coffee second (0.19). From the blank, layer 6, "
            "head 11 reads *cup* (0.57) and *drink* (0.40). Knock it out, as this link does: tea falls to 0.29 and "
            "coffee (0.31) comes first, milk third (0.20). Knock out layer 5, head 12 instead, which reads *cup* alone "
            "(0.93): tea stays first (0.50). Press **Rank every head**: L6 H11 matters most, then L5 H12."
        ),
        {"fill_blank_knock_out": ["L6 H11"]},
        expected_guess="tea",
        expected_after="coffee",
        look_at=N_(
            "The table under *Switch heads off*: tea with every head and without L6 H11; below it, row L6 H11 of "
            "the blank's attention: on cup and drink."
        ),
        cell=MarkedCell("L6 H11", "cup"),
        figures=("fill_blank_knock_out_weights_every",),
    ),
    Lesson(
        N_("When did it decide? Tea only in the last layer"),
        N_("through the layers"),
        "fill_blank",
        "I drink a cup of [MASK] every morning.",
        N_(
            "Open *When did the model decide, and what mattered?* under the guesses. Read through the guessing head "
            "after each layer, the blank says breakfast after layers 2 and 3, coffee after layers 4 and 5, and tea "
            "only after layer 6 (0.65). The blank looks most at *cup* (0.13 of its attention), and hiding *cup* "
            "matters most: it takes 0.33 off tea and the guess becomes water. *drink* is looked at next (0.08), yet "
            "hiding it makes tea likelier (0.74): what a word is looked at is not always what it contributes."
        ),
        expected_guess="tea",
        look_at=N_("The strip beside the blank's attention: looked at against mattered, word by word."),
    ),
    Lesson(
        N_("On the table: one head reads the table"),
        N_("knocking heads out"),
        "fill_blank",
        "The keys are [MASK] the table.",
        N_(
            "The model says on (0.61), then in (0.18). Through the layers, in is the first guess after layers 3, 4 "
            "and 5, and on only after layer 6. From the blank, layer 4, head 2 reads *table* (0.94). Knock it out, as "
            "this link does: in (0.44) comes before on (0.34). Press **Rank every head**: L4 H2 matters most. "
            "Without the one head that reads the noun after the blank, in wins."
        ),
        {"fill_blank_knock_out": ["L4 H2"]},
        expected_guess="on",
        expected_after="in",
        look_at=N_(
            "The table under *Switch heads off*: on with every head and without L4 H2; below it, row L4 H2 of the "
            "blank's attention: on table."
        ),
        cell=MarkedCell("L4 H2", "table"),
        figures=("fill_blank_knock_out_weights_every",),
    ),
    Lesson(
        N_("Through all the layers: what the blank keeps of itself"),
        N_("through the layers"),
        "fill_blank",
        "إنه سميع [MASK]",
        N_(
            "The river below the guesses, switched to *all layers combined* (attention rollout), as this link does. In "
            "each layer alone the blank hardly reads itself (0.01, 0.02, 0.07: switch to *this layer*), yet after "
            "three layers 29 % of what it holds is still its own input, and سميع gives 26 %: rollout counts the "
            "residual path that every layer adds back. Attention is not the whole explanation: the feed-forward layers "
            "move information too, and neither view sees them."
        ),
        {"fill_blank_flow": "all layers combined (rollout)"},
        expected_guess="عليم",
        look_at=N_("The river under *Where the blank's information came from*: row layer 3, column سميع."),
        cell=MarkedCell("layer 3", "سميع"),
        figures=("fill_blank_river",),
    ),
    Lesson(
        N_("Can the blank look ahead? لا ريب فيه without فيه"),
        N_("looking ahead"),
        "fill_blank",
        "ذلك الكتاب لا [MASK] فيه",
        N_(
            "Reading both sides, the model is sure: ريب (0.96). Switch on *Hide the words after the blank*, as this "
            "link does: every word now reads only the words before it, as a text generator reads, and ريب falls to "
            "0.04; the first guess becomes يؤمنون (0.31). The masked-word task let the model use the words after the "
            "blank, and it did."
        ),
        {"fill_blank_causal": True},
        expected_guess="ريب",
        look_at=N_(
            "The table under the switch *Hide the words after the blank*: ريب reading both sides and only the "
            "words before."
        ),
    ),
    Lesson(
        N_("Without positions, order does not matter"),
        N_("word order"),
        "word_order",
        "the dog bit the man",
        N_(
            "Press **Shuffle the words**: with the positional encoding off, the shuffled sentence's similarities are "
            "the same numbers moved around (the largest change is 0.0000). Switch positions on and they change."
        ),
        {"word_order_position": False},
        look_at=N_("The number under the three heatmaps: *Largest change once the shuffle is undone*."),
    ),
    Lesson(
        N_("Who bit whom? Swap dog and man"),
        N_("word order"),
        "word_order",
        "the dog bit the man",
        N_(
            "This link swaps *dog* and *man*: *the man bit the dog*, with seeded random word vectors. With the "
            "positional encoding off, the difference heatmap is white and the largest change is 0.0000: the two "
            "sentences are one bag of words. Switch **Add positional encoding** on: each word now carries its place, "
            "and who bit whom becomes visible."
        ),
        {
            "word_order_embedding": "random",
            "word_order_position": False,
            "word_order_how": "swapping two words",
            "word_order_swap_a": "dog",
            "word_order_swap_b": "man",
        },
        look_at=N_(
            "The heatmap *Put back − as typed* and the number under it: *Largest change once the shuffle is undone*."
        ),
    ),
    Lesson(
        N_("Minimal pair: too tired or too wide"),
        N_("minimal pairs"),
        "pairs",
        "The animal didn't cross the street because it was too tired",
        N_(
            "The same sentence twice, only the last word changed (sentence B: … too wide). Of MiniLM's 72 heads, layer "
            "4, head 2 changes most on the words the two share (0.58). In its row *it*, *animal* gets 0.64 in A and "
            "0.27 in B: the head lets go of the animal once the street can be what is wide. Pick layer 6, head 12: it "
            "still says *animal* (0.65 → 0.50)."
        ),
        {"pairs_sentence_b": "The animal didn't cross the street because it was too wide", "pairs_head": "L4 H2"},
        look_at=N_("Row *it*, column *animal*, in the panel *B − A* of layer 4, head 2: red, less attention in B."),
        cell=MarkedCell("it", "animal"),
        figures=("pairs_picked",),
        panel="B − A",
    ),
    Lesson(
        N_("Minimal pair: عنها or عنه, her or him"),
        N_("minimal pairs"),
        "pairs",
        "عن عائشة رضي الله [MASK]",
        N_(
            "One name changed, a woman's for a man's (sentence B: عن أنس رضي الله [MASK]). After عائشة the blank is "
            "عنها ('with her', 0.74), after أنس it is عنه ('with him', 0.92): the pronoun agrees with the name three "
            "words back. The blank reads the name: layer 1, head 4 gives عائشة 0.74 and أنس 0.66."
        ),
        {"pairs_sentence_b": "عن أنس رضي الله [MASK]", "pairs_head": "L1 H4"},
        expected_guess="عنها",
        look_at=N_(
            "Row [MASK], column عائشة / أنس, in the panel *B − A* of layer 1, head 4; and the guesses above it."
        ),
        cell=MarkedCell("[MASK]", "عائشة / أنس"),
        figures=("pairs_picked",),
        panel="B − A",
    ),
    Lesson(
        N_("Queries and keys: each word next to the word before"),
        N_("query–key map"),
        "heads",
        "the quick brown fox jumps over the lazy dog",
        N_(
            "Open *Queries and keys on one map*. In MiniLM's layer 1, head 3 every word's query (●) lies next to the "
            "key (◇) of the word before it: the nearest key for all 8 words from *quick* to *dog*, which is where the "
            "head looks. W1 and W2 moved the queries one place along from the keys. Switch **trained W1** and "
            "**trained W2** off: the two clouds become one, each query on its own key, and all 11 tokens attend most "
            "to themselves."
        ),
        {"heads_layer": 1, "heads_head": 3},
        look_at=N_("The map *Queries and keys on one map*: the query of *fox* beside the key of *brown*."),
    ),
    Lesson(
        N_("Other words, same meaning: closer after six layers"),
        N_("abstraction"),
        "abstraction",
        "the film was great",
        N_(
            "Two pairs of texts: *the film was great* with *the movie was excellent* (other words, the same meaning) "
            "and with *the film was terrible* (one word changed, the opposite meaning). At the input V the one-word "
            "change is the closer pair (0.92 against 0.90); after MiniLM's six layers the paraphrase is (0.91 against "
            "0.71): the last layers compare what the texts say, not their words."
        ),
        {
            "abstraction_texts_a": "the film was great\nthe film was great",
            "abstraction_texts_b": "the movie was excellent\nthe film was terrible",
        },
        look_at=N_("The chart *Pairs of texts through the layers*: the two solid lines cross."),
    ),
    Lesson(
        N_("A paragraph that never names its topic"),
        N_("abstraction"),
        "abstraction",
        "Borders, visas and refugees dominate the debate",
        N_(
            "*Borders, visas and refugees dominate the debate* never says *immigration*, yet of ten topic words "
            "*immigration* is its nearest at every depth, and MiniLM's layers widen its lead: 0.19 over the next at "
            "the input V (0.47 against *war*'s 0.28), 0.30 after layer 6 (0.57 against *travel*'s 0.27)."
        ),
        {
            "abstraction_texts_a": "Borders, visas and refugees dominate the debate",
            "abstraction_texts_b": "\n".join(sentence_sets("english").topics),  # the ten topic words
        },
        look_at=N_("The chart *One text and each candidate, through the layers*, and the nearest topic at each depth."),
    ),
    Lesson(
        N_("Two banks, through the layers"),
        N_("abstraction"),
        "abstraction",
        "I sat on the bank of the river then went to the bank to get money",
        N_(
            "The river's bank and the money's bank, followed through MiniLM's layers: raw cosine 0.93 at the input V, "
            "0.84 after layer 3, 0.94 after layer 6. Deep layers give every word a share of one common direction, so "
            "the raw cosine climbs back. Switch **Centred cosine** on: 0.92, 0.78, 0.89, the two banks stay further "
            "apart than at the input."
        ),
        {"abstraction_word": "bank ·1", "abstraction_with": ["bank ·2"], "abstraction_depth": 3},
        look_at=N_("Row *bank* (the first), column *bank* (the second), after layer 3; and the chart below."),
        cell=MarkedCell("bank", "bank", 1, 2),
        figures=("abstraction_map",),
    ),
    Lesson(
        N_("ذهب: went and gold, pulled apart by attention"),
        N_("abstraction"),
        "abstraction",
        "ذهب الله بنورهم ولهم اساور من ذهب",
        N_(
            "The verb ذهب (went) and the noun ذهب (gold) are one written word: 0.92 at the input V, where only their "
            "places differ. Through the Arabic model's three layers they move apart: 0.57, 0.53, 0.54 (centred, from "
            "0.64 to 0.15). With every head knocked out they stay together (0.90 after layer 3): what tells them apart "
            "is attention, reading their neighbours."
        ),
        {"abstraction_word": "ذهب ·1", "abstraction_with": ["ذهب ·2"], "abstraction_depth": 3},
        look_at=N_("Row ذهب (the first), column ذهب (the second), in both maps after layer 3."),
        cell=MarkedCell("ذهب", "ذهب", 1, 2),
        figures=("abstraction_map", "abstraction_map_without"),
    ),
    Lesson(
        N_("Same meaning, or the roles swapped"),
        N_("abstraction"),
        "abstraction",
        "ذهب الرجل إلى السوق",
        N_(
            "Two pairs: other words with the same meaning (ذهب الرجل إلى السوق, مضى الرجل إلى السوق) and the same "
            "words with the roles swapped (ضرب زيد عمرا, ضرب عمرو زيدا). At the input V both pairs are close (0.98 "
            "and 0.96); after the Arabic model's three layers the paraphrase stays closer (0.88) than the swapped "
            "roles (0.80), though this model was trained only to fill blanks."
        ),
        {
            "abstraction_texts_a": "ذهب الرجل إلى السوق\nضرب زيد عمرا",
            "abstraction_texts_b": "مضى الرجل إلى السوق\nضرب عمرو زيدا",
        },
        look_at=N_("The chart *Pairs of texts through the layers*: both lines fall, the swapped roles further."),
    ),
]
