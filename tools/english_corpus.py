"""Builds the licensed English training text for the English masked-word model from installed Debian packages:
WordNet 3.0 glosses and example sentences (`wordnet-base`, WordNet licence) and Ambrose Bierce's The Devil's
Dictionary (`dict-devil`, public domain). Writes one cleaned sentence or gloss per line, plus the NOTICE that the
WordNet licence asks to travel with every copy and a README with the counts.

    apt-get install -y wordnet-base dict-devil
    python -m tools.english_corpus

`fortunes` is left out: its copyright file licenses the program (BSD), not the quotations it collects, whose
authors keep their own rights.
"""

from __future__ import annotations

import argparse
import gzip
import random
import re
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

WORDNET = Path("/usr/share/wordnet")
DEVIL = Path("/usr/share/dictd/devil.dict.dz")
DEVIL_INDEX = Path("/usr/share/dictd/devil.index")
OUT = Path(__file__).resolve().parent.parent / "attention_core" / "training" / "english_licensed"
MIN_WORDS = 4
BIG_BYTES = 25_000_000  # above this the brief asks us to say so (and perhaps compress)

# dictd stores offsets and lengths in base64 digits, most significant first.
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
# "ABASEMENT, n.", "HIBERNATE, v.i.", "TZETZE (or TSETSE) FLY, n.", "INFANT or BABY, n.", "R.I.P.": the headword
# and part of speech that open an entry's first line.
HEADWORD = r"[A-Z][A-Z'\-. ]*(?:\([^)]*\)[A-Z'\- ]*)?(?:(?:,\s*|\s+or\s+)[A-Z][A-Z'\-.]*)*"
POS = r"(?:,\s*|\s+)(?:n|adj|v|adv|pron|pro|pp|p\.p|x)\.(?:[a-z]{1,2}\.)*(?:\s+and\s+n\.)?"
ENTRY_HEAD = re.compile(rf"^{HEADWORD}(?:{POS}|[.?](?=\s*$|\s\s))")
# A period after these does not end a sentence.
ABBREVIATIONS = {"mr", "mrs", "dr", "st", "m", "prof", "rev", "gen", "col", "capt", "vs", "etc", "ibid", "viz", "lib"}
SENTENCE_END = re.compile(r"[.!?][\"')_]*\s{2,}")


def tidy(text: str) -> str:
    """Whitespace normalised, first letter capitalised, a final period where no final punctuation is."""
    text = " ".join(text.split())
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    if text and not re.search(r"[.!?][\"')\]]*$", text):
        text += "."
    return text


def keep(lines: Iterable[str]) -> list[str]:
    """Tidied lines of at least MIN_WORDS words, first occurrence only, in their first order."""
    return list(dict.fromkeys(x for x in map(tidy, lines) if len(x.split()) >= MIN_WORDS))


def wordnet_gloss(gloss: str) -> Iterator[str]:
    """(1) The definition, (2) each quoted example, unquoted and without its '- Author' attribution."""
    gloss = re.sub(r"`(?=[\w%-])", "'", gloss)  # WordNet quotes terms as `term'
    examples = re.findall(r'"([^"]*)"', gloss)
    definition = re.sub(r'"[^"]*"(?:\s*-\s*[^;"]*)?', "", gloss)
    parts = [p.strip(" ;:,") for p in definition.replace('"', "").split(";")]
    yield "; ".join(p for p in parts if p)
    yield from (e.strip(" ;,") for e in examples)


def wordnet_lines(folder: Path) -> list[str]:
    """Glosses and examples of data.noun/verb/adj/adv; licence lines (two spaces first) and offsets dropped."""
    found: list[str] = []
    for part in ("noun", "verb", "adj", "adv"):
        for line in (folder / f"data.{part}").read_text(encoding="utf-8").splitlines():
            if line.startswith("  ") or " | " not in line:
                continue
            found += wordnet_gloss(line.split(" | ", 1)[1])
    return keep(found)


def devil_entries(dictionary: Path, index: Path) -> Iterator[str]:
    """Each entry's text, sliced from the decompressed .dict.dz by the index; the 00database headers skipped."""
    raw = gzip.decompress(dictionary.read_bytes())
    for row in index.read_text(encoding="utf-8").splitlines():
        word, offset, length = row.split("\t")
        if word.startswith("00database"):
            continue
        start, size = (sum(B64.index(c) * 64**i for i, c in enumerate(reversed(n))) for n in (offset, length))
        yield raw[start : start + size].decode("utf-8")


def ends_sentence(line: str) -> bool:
    """Whether a line ends a sentence (a final . ! ? not after an abbreviation or an initial such as 'M.')."""
    match = re.search(r"(\w+)?[.!?][\"')_]*$", line.rstrip())
    if not match:
        return False
    word = (match.group(1) or "").lower()
    roman = re.fullmatch(r"[IVXLC]+", match.group(1) or "")  # "Lib. II." cites a book; the sentence goes on
    return word not in ABBREVIATIONS and not (len(word) == 1 and word.isalpha()) and not roman


def devil_sentences(entry: str) -> Iterator[str]:
    """The prose sentences of one entry: headword gone, verse and signatures (paragraphs all indented) dropped.

    Bierce's text puts two spaces after a sentence and one after an abbreviation; a line break counts as two
    when the line ends a sentence.
    """
    # [sic] and _italics_ are the edition's marks, "[from {ACADEME}]" dictfmt's cross-reference.
    entry = re.sub(r"\[sic\]|_|\[from \{[^}]*\}\]\s*", "", entry).replace("{", "").replace("}", "")
    for paragraph in re.split(r"\n\s*\n", entry.strip("\n")):
        lines = paragraph.split("\n")
        if all(x.startswith(" ") for x in lines):
            continue
        lines[0] = re.sub(r"^\[\w+\]\s*", "", ENTRY_HEAD.sub("", lines[0]).strip())  # and a "[Latin]" label
        text = "".join(x.strip() + ("  " if ends_sentence(x) else " ") for x in lines)
        start = 0
        for match in SENTENCE_END.finditer(text):
            yield text[start : match.end()]
            start = match.end()
        yield text[start:]


def devil_lines(dictionary: Path, index: Path) -> list[str]:
    return keep(s for entry in devil_entries(dictionary, index) for s in devil_sentences(entry))


def package(name: str) -> tuple[str, str]:
    """(version, homepage) as dpkg records them for an installed package."""
    fields = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}\t${Homepage}", name], check=True, capture_output=True, text=True
    ).stdout.split("\t")
    return fields[0], fields[1] or "-"


def licence_block(copyright_file: Path, name: str) -> str:
    """The text of the 'License: <name>' paragraph of a machine-readable Debian copyright file, unindented."""
    text = copyright_file.read_text(encoding="utf-8")
    body = re.search(rf"^License: {re.escape(name)}\n((?: .*\n?)+)", text, re.MULTILINE)
    if body is None:
        raise SystemExit(f"no 'License: {name}' in {copyright_file}: read it before shipping anything")
    return "\n".join("" if x.strip() == "." else x[1:] for x in body.group(1).rstrip().split("\n"))


def devil_statement(copyright_file: Path) -> str:
    """The public-domain statement of the dict-devil copyright file (from 'Copyright:' on)."""
    text = copyright_file.read_text(encoding="utf-8")
    if "public domain" not in text:
        raise SystemExit(f"{copyright_file} no longer says public domain: read it before shipping anything")
    return "\n".join(x.rstrip() for x in text[text.index("Copyright:") :].strip().split("\n"))


def notice() -> str:
    wordnet_version, wordnet_home = package("wordnet-base")
    devil_version, _ = package("dict-devil")
    doc = Path("/usr/share/doc")
    return f"""Licensed English training text: sources and licences
=====================================================

wordnet.txt
-----------
Debian package: wordnet-base {wordnet_version} (source package wordnet)
Upstream: WordNet 3.0, Princeton University, {wordnet_home}
Licence: WordNet 3.0 licence (permits use, copying, modification and distribution provided the copyright notice,
statements and disclaimer below appear on all copies, including modifications). The file holds the glosses and
example sentences of data.noun, data.verb, data.adj and data.adv, cleaned (a modification).

{licence_block(doc / "wordnet-base" / "copyright", "WordNet3.0")}

devil.txt
---------
Debian package: dict-devil {devil_version}
Upstream: The Devil's Dictionary by Ambrose Bierce (1881-1906), Internet Wiretap 1st Online Edition (1993),
http://wiretap.area.com/Gopher/Library/Classic/devils.txt
Licence: public domain. The Debian copyright file says:

{devil_statement(doc / "dict-devil" / "copyright")}

How the files were made
-----------------------
Both files were made by `python -m tools.english_corpus` from the Debian packages wordnet-base and dict-devil
named above.
"""


def readme(counts: dict[str, tuple[int, int]]) -> str:
    rows = "\n".join(f"| `{name}` | {lines:,} | {words:,} |" for name, (lines, words) in counts.items())
    return f"""# Licensed English text for the English masked-word model

One cleaned sentence or gloss per line (UTF-8), at least {MIN_WORDS} words, each line once, a lower-case first letter
capitalised, a period added where a line had no final punctuation.

| file | lines | words |
|---|---:|---:|
{rows}

- `wordnet.txt`: WordNet 3.0 definitions (glosses) and, as lines of their own, their quoted example sentences
  (unquoted, attributions dropped), from `data.noun`, `data.verb`, `data.adj` and `data.adv`, in file order.
  Definitions are noun phrases and verb phrases more often than sentences.
- `devil.txt`: the prose of Ambrose Bierce's The Devil's Dictionary, headwords and parts of speech removed,
  entries split into sentences, verse and signatures dropped, `_italic_` marks and `[sic]` removed.

Made with

    apt-get install -y wordnet-base dict-devil
    python -m tools.english_corpus

Licences and the WordNet notice that must travel with these files are in `NOTICE`. `fortunes` is not used: its
copyright file licenses the program, not the quotations it collects.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="folder to write wordnet.txt, devil.txt, NOTICE into")
    parser.add_argument("--wordnet", type=Path, default=WORDNET, help="folder of WordNet's data.* files")
    parser.add_argument("--show", type=int, default=10, help="random lines of each file to print as a check")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    texts = {"wordnet.txt": wordnet_lines(args.wordnet), "devil.txt": devil_lines(DEVIL, DEVIL_INDEX)}
    counts: dict[str, tuple[int, int]] = {}
    for name, lines in texts.items():
        (args.out / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        counts[name] = (len(lines), sum(len(x.split()) for x in lines))
        print(f"{name}: {counts[name][0]:,} lines, {counts[name][1]:,} words")
        for line in random.Random(0).sample(lines, min(args.show, len(lines))):
            print("  ", line)
    (args.out / "NOTICE").write_text(notice(), encoding="utf-8")
    (args.out / "README.md").write_text(readme(counts), encoding="utf-8")
    size = sum((args.out / name).stat().st_size for name in texts)
    print(f"{size:,} bytes of text" + (" (over 25 MB uncompressed; kept as is)" if size > BIG_BYTES else ""))


if __name__ == "__main__":
    main()
