"""``python -m handmade``: complete, predict and score with the blog's model or your own weights.

Bad input (a character outside the alphabet, a broken weights file, a negative -n) ends with
exit status 2 and one line on stderr, never a traceback.
"""

import argparse
import sys

import numpy as np

from .blog import ALPHABET, blog_model
from .files import load_weights, save_weights
from .inference import accuracy, complete, predict


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse prints the usage too; one line is enough
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser():
    parser = _Parser(prog="python -m handmade", description=__doc__.split("\n")[0])
    weights = argparse.ArgumentParser(add_help=False)
    weights.add_argument("--weights", metavar="FILE.json", help="weights saved as JSON (default: the blog's model)")
    weights.add_argument("--alphabet", help=f"the characters, token 0 first (default: the model's own, or {ALPHABET})")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub = commands.add_parser("complete", parents=[weights], help="continue TEXT greedily: TEXT :: CONTINUATION")
    sub.add_argument("text", metavar="TEXT")
    sub.add_argument("-n", type=int, default=10, metavar="N", help="how many tokens to add (default: 10)")
    sub = commands.add_parser("predict", parents=[weights], help="the prediction at every position of TEXT")
    sub.add_argument("text", metavar="TEXT")
    commands.add_parser("accuracy", parents=[weights], help='score the (aab)* task on "aab" * 10')
    sub = commands.add_parser("export", help="write the blog's weights to a JSON file, to edit by hand")
    sub.add_argument("path", metavar="FILE.json")
    return parser


def run(args):
    if args.command == "export":
        return save_weights(blog_model(), args.path)
    params = None if args.weights is None else load_weights(args.weights)
    if args.command == "complete":
        return complete(args.text, args.n, params, alphabet=args.alphabet)
    if args.command == "predict":
        return str(predict(args.text, params, alphabet=args.alphabet))
    score = accuracy(params, alphabet=args.alphabet)
    misses = [f"  missed: {ex.context} -> expected {ex.expected}, got {got}" for ex, got in score.failures]
    return "\n".join([str(score), *misses])


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "n", 0) < 0:
        parser.error(f"argument -n: must be 0 or more; found {args.n}")
    try:
        with np.errstate(all="ignore"):  # overflow is reported as an error below, not as warnings
            print(run(args))
    except (ValueError, FloatingPointError, OSError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    return 0
