"""Characters to token ids and back: token i is the i-th character of the alphabet."""


def check_alphabet(alphabet):
    if not isinstance(alphabet, str) or not alphabet:
        raise ValueError(f"an alphabet is a non-empty string of distinct characters; found {alphabet!r}")
    repeated = sorted({c for c in alphabet if alphabet.count(c) > 1})
    if repeated:
        raise ValueError(
            f"the alphabet {alphabet!r} repeats {', '.join(map(repr, repeated))}; each character must appear once"
        )
    return alphabet


def tokenize(text, alphabet="ab"):  # "aabaa" -> [0, 0, 1, 0, 0]
    check_alphabet(alphabet)
    if not isinstance(text, str):
        raise TypeError(f"tokenize takes a string of characters from {alphabet!r}; found {type(text).__name__}")
    tokens = []
    for position, char in enumerate(text):
        token = alphabet.find(char)
        if token < 0:
            raise ValueError(
                f"cannot tokenize {char!r} at position {position} of {text!r}: the alphabet is {alphabet!r}"
            )
        tokens.append(token)
    return tokens


def untokenize(tokens, alphabet="ab"):  # [0, 0, 1] -> "aab"
    check_alphabet(alphabet)
    chars = []
    for token in tokens:
        if not 0 <= token < len(alphabet) or int(token) != token:
            raise ValueError(
                f"token {token!r} is not an id of the alphabet {alphabet!r} (ids 0 to {len(alphabet) - 1})"
            )
        chars.append(alphabet[int(token)])
    return "".join(chars)
