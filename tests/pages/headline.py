"""The order every results page follows (issue 20): title, the one-line question, the verdict
card, "How to read this" (collapsed), then inputs and settings, then details."""


def flat(at) -> list:
    """Every element and block of the main area in document order."""
    out = []

    def walk(node):
        out.append(node)
        children = getattr(node, "children", None)
        if children:
            for key in sorted(children):
                walk(children[key])

    walk(at.main)
    return out


def assert_headline_first(at, *, first_input: str = "file_uploader") -> None:
    """Title, caption (the question), the card, the collapsed 'How to read this' expander,
    and only then the first ``first_input`` widget."""
    nodes = flat(at)
    kinds = [getattr(n, "type", None) for n in nodes]
    title = kinds.index("title")
    question = kinds.index("caption")
    card = next(i for i, n in enumerate(nodes)
                if getattr(n, "type", None) == "markdown" and "verdict-card" in str(n.value))
    guide = kinds.index("expander")
    first = kinds.index(first_input)
    assert title < question < card < guide < first, (title, question, card, guide, first)
    assert [k for k in kinds[:card] if k not in ("main", "flex_container", None)] == \
        ["title", "caption"], kinds[:card]
