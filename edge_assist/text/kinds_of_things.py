"""General words for kinds of things, and what they cover: "vegetables" covers lettuce, "dairy"
covers cheese.

A wearer asks "did I add any vegetables?" of a caption that says "lettuce"; the word
encoder puts the two far apart. Each kind lists its common members (singular), written for
any kitchen or household, not for one recipe; a kind may hold another kind's name
("seasoning" holds "spice"), which counts as all of that kind's members.
"""

from __future__ import annotations


def _kinds(spec: dict[str, str]) -> dict[str, frozenset[str]]:
    return {name: frozenset(members.split()) for name, members in spec.items()}


KINDS = _kinds(
    {
        "vegetable": """lettuce tomato onion garlic carrot potato pepper cucumber spinach cabbage broccoli
            cauliflower celery zucchini courgette eggplant aubergine pea bean corn mushroom kale leek
            radish beet beetroot squash pumpkin asparagus shallot scallion chili chilli jalapeno okra
            arugula rocket sprout greens avocado turnip parsnip yam fennel artichoke chard bok-choy
            sweet-potato watercress endive""",
        "green": "lettuce spinach kale arugula rocket cabbage chard greens herb scallion spring-onion",
        "fruit": """apple banana orange lemon lime strawberry blueberry raspberry berry grape mango pineapple
            peach pear plum cherry kiwi melon watermelon avocado tomato date fig apricot coconut
            pomegranate grapefruit papaya nectarine tangerine clementine mandarin cranberry blackberry
            raisin currant sultana prune lychee guava passionfruit""",
        "dairy": """cheese milk butter cream yogurt yoghurt ghee cheddar mozzarella parmesan feta ricotta curd
            buttermilk kefir""",
        "cheese": """cheddar mozzarella parmesan feta ricotta gouda brie paneer provolone halloumi pecorino
            camembert emmental gruyere""",
        # a scallion is a spring or green onion: "did I chop the onion?" of "I cut up one scallion"
        "onion": "scallion spring-onion green-onion",
        "meat": """chicken beef pork ham bacon sausage turkey lamb mince steak salami pepperoni prosciutto
            chorizo meatball veal duck mutton venison""",
        "fish": "salmon tuna cod shrimp prawn anchovy sardine trout mackerel haddock tilapia halibut",
        "seafood": "fish salmon tuna cod shrimp prawn crab lobster mussel clam",
        "protein": "egg meat chicken beef pork tofu bean lentil fish",
        "spice": """pepper cumin turmeric paprika cinnamon nutmeg chili chilli clove cardamom coriander
            ginger curry masala oregano allspice saffron cayenne anise""",
        "herb": """basil parsley cilantro coriander mint thyme rosemary oregano dill chive sage tarragon
            lemongrass""",
        "seasoning": "salt pepper spice herb sugar",
        "condiment": """ketchup mustard mayonnaise mayo salsa relish sauce vinegar dressing sriracha tabasco
            chutney hoisin worcestershire tahini""",
        "sauce": "salsa ketchup pesto gravy dressing mayonnaise mayo soy sriracha tabasco marinara",
        "sweetener": "sugar honey syrup stevia molasses agave",
        "nut": "almond walnut peanut cashew pecan hazelnut pistachio macadamia",
        "grain": """rice oat wheat quinoa barley couscous pasta noodle flour bulgur millet semolina cornmeal
            polenta spaghetti macaroni""",
        "bread": "muffin toast bagel bun roll tortilla pita baguette loaf naan croissant ciabatta flatbread",
        # butter greases a pan but is no oil: "did I use oil?" over "melting a knob of butter" is a No
        "oil": "olive spray",
        "fat": "oil olive butter ghee lard margarine shortening spray",
        "liquid": "water milk oil stock broth juice vinegar wine cream",
        "utensil": "knife fork spoon whisk spatula ladle tongs peeler grater",
        # What a thing looks like, for things named by it: "the red sauce", "the yellow fruit",
        # "the brown spice", "the white powder", "the little green leaves".
        "red": """tomato strawberry raspberry cherry cranberry pomegranate watermelon chilli chili chile
            pimiento capsicum bell-pepper paprika salsa ketchup marinara tomato-sauce pizza-sauce
            passata sriracha hot-sauce beet beetroot radish""",
        "yellow": """banana lemon corn sweetcorn pineapple mango butter mustard turmeric yolk squash
            cheddar""",
        "brown": """cinnamon nutmeg cumin allspice clove mushroom chocolate cocoa coffee soy gravy walnut
            pecan hazelnut almond peanut""",
        "white": """flour salt sugar milk rice cream yogurt yoghurt mozzarella feta ricotta garlic
            cauliflower coconut tofu mayonnaise mayo""",
        "orange": "carrot orange paprika pumpkin turmeric apricot mango cheddar",
        "black": "pepper peppercorn olive bean sesame",
        "purple": "eggplant aubergine grape plum beet beetroot cabbage",
        "powder": """flour sugar salt baking-powder baking-soda cocoa cinnamon paprika cumin turmeric
            cornstarch cornflour spice""",
        "seed": "sesame cumin poppy chia flax sunflower pumpkin fennel mustard coriander",
        "leaf": "lettuce spinach basil bay mint cabbage kale arugula rocket herb greens",
        "container": "bowl cup jar mug glass plate dish ramekin pot pan tray",
    }
)


# Names of one thing in other words: regional names ("cilantro", "coriander leaves"), short
# forms ("mayo") and spellings ("chilli", "chili"), and the vessels one kitchen calls by two
# names (a captioner says "basin" or "dish" for the bowl). Each group is one thing, singular.
_SAME = [
    frozenset(g.split())
    for g in """mayo mayonnaise|chili chilli chile|cilantro coriander|scallion spring-onion green-onion|
    zucchini courgette|eggplant aubergine|yogurt yoghurt curd|capsicum bell-pepper sweet-pepper|chickpea
    garbanzo|cornstarch cornflour|shrimp prawn|arugula rocket|ketchup catsup|fridge refrigerator|stove hob
    cooktop stovetop|cookie biscuit|faucet tap|trash rubbish garbage|
    plastic-wrap cling-film saran-wrap|foil tin-foil aluminum-foil aluminium-foil|veggie vegetable|
    broth stock bouillon|
    powdered-sugar icing-sugar confectioners-sugar|baking-soda bicarbonate|
    cellphone phone smartphone|plate dish|bowl basin|cup mug|pan skillet frypan frying-pan tawa|
    pot saucepan|stalk stem|frosting icing|beet beetroot|jug pitcher|
    counter worktop countertop work-surface kitchen-surface|
    sieve strainer colander|paper-towel kitchen-roll|oven-mitt oven-glove|
    tomato-sauce marinara passata pizza-sauce|
    hot-sauce sriracha siracha tabasco chilli-sauce chili-sauce|baking-powder|chilli-powder chili-powder|
    curry-powder|garlic-powder|onion-powder|cocoa-powder cocoa|bay-leaf|sesame-seed sesame|avocado avo|
    can tin|microwave micro|spatula turner flipper fish-slice|knife blade|
    mince ground-beef minced-beef ground-meat minced-meat|heavy-cream double-cream whipping-cream|
    parchment parchment-paper baking-paper greaseproof-paper|baking-sheet baking-tray oven-tray sheet-pan|
    tea-towel dish-towel dishcloth dish-cloth|rutabaga swede|snow-pea mangetout|tomato-paste tomato-puree|
    chilli-flakes chili-flakes red-pepper-flakes|molasses treacle|romaine cos|broiler grill|
    man guy fellow gentleman bloke chap|woman lady|item stuff thing object belonging|
    money cash payment""".split("|")
]
_SAME_OF = {name: group for group in _SAME for name in group}


# The kinds above that say what a thing looks like: said before a general word, they narrow it.
LOOKS = frozenset({"red", "yellow", "green", "brown", "white", "orange", "black", "purple"})
# Kinds named by a look alone ("the white powder", "the little seeds"): most of their names are a
# thing of their own ("baking powder", "bay leaf"), so they stand for members only with a look.
BY_LOOK = frozenset({"powder", "seed", "leaf"})


def is_named(name: str) -> bool:
    """Whether the lexicon knows `name` (a two-word name joined by "-") as a thing of its own."""
    return name.lower() in _SAME_OF


def same_thing(a: str, b: str) -> bool:
    """Whether two singular names (a two-word name joined by "-") name one thing."""
    a, b = a.lower(), b.lower()
    return a == b or b in _SAME_OF.get(a, frozenset())


def covers(kind: str, thing: str) -> bool:
    """Whether the general word `kind` (singular) covers `thing` (singular), through at most one
    kind nested in it ("seasoning" -> "spice" -> "cumin")."""
    members = KINDS.get(kind.lower())
    if not members:
        return False
    t = thing.lower()
    return t in members or any(t in KINDS.get(m, frozenset()) for m in members)


# The kinds whose members are eaten or drunk: what a recipe adds.
_FOOD_KINDS = (
    "vegetable fruit dairy cheese meat fish seafood protein spice herb seasoning condiment sauce"
    " sweetener nut grain bread fat liquid"
).split()


def is_food(word: str) -> bool:
    """Whether `word`, in either number, is a food the kinds know or one of their general words:
    "milk", "tomatoes", "berries", "vegetables"; not "umbrella"."""
    w = word.lower()
    forms = (w, w[:-1], w[:-2], w[:-3] + "y") if w.endswith("s") else (w,)
    return any(t == k or covers(k, t) for t in forms for k in _FOOD_KINDS)
