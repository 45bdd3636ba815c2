#!/usr/bin/env bash
# `make eval-real`: how Spotter does on real recordings (../shared/data, never copied here):
#   Countix-Fitness (148 YouTube videos, MediaPipe, rep counts), in two fixed halves by file name
#   (`--split tune` is looked at and tuned on; `--split holdout` is not), and the Penn Action
#   train split (hand-annotated clips, labels only).
# Rep counting with the exercise given (spotter count's engines alone) and through the whole
# runtime (the classifier chooses; reps summed), and clip labels. Clip labels of the shipped
# model are only fair on data it did not train on: with fold models in .build/folds (make
# folds), each clip is also scored by the model that left its fold out.
#   Benchmarks/eval/real.sh [SPOTTER] [DATA]
set -euo pipefail
cd "$(dirname "$0")/../.."
SPOTTER=${1:-.build/release/spotter}
DATA=${2:-../shared/data}
COUNTIX=$DATA/countix-fitness-test/annotations.json
PENN=$DATA/penn-action-train/annotations.json
if [ ! -f "$COUNTIX" ] || [ ! -f "$PENN" ]; then
  echo "No real recordings at $DATA (countix-fitness-test, penn-action-train): nothing to measure."
  exit 0
fi
section() { printf '\n== %s\n' "$1"; }

for half in tune holdout; do
  section "Countix $half half: reps, exercise given (spotter count)"
  "$SPOTTER" eval --annotations "$COUNTIX" --split "$half" --reps-only
  section "Countix $half half: reps through the whole runtime (the classifier chooses)"
  "$SPOTTER" eval --annotations "$COUNTIX" --split "$half" --workouts | sed -n '/Reps the runtime/,$p'
  section "Countix $half half: clip labels, shipped model (it trains on all of Countix)"
  "$SPOTTER" eval --annotations "$COUNTIX" --split "$half" | head -1
done
section "Penn Action: clip labels, shipped model (it trains on all of Penn Action)"
"$SPOTTER" eval --annotations "$PENN" | head -1

if ls .build/folds/fold-*.spotter >/dev/null 2>&1; then
  folds=$(ls .build/folds/fold-*.spotter | wc -l)
  for set in countix penn; do
    file=$COUNTIX; [ "$set" = penn ] && file=$PENN
    section "Clip labels of $set from the fold models ($folds folds: each clip by the model that did not see it)"
    for i in $(seq 0 $((folds - 1))); do
      "$SPOTTER" eval --annotations "$file" --weights ".build/folds/fold-$i.spotter" \
        --fold "$i/$folds" --json
      echo
    done | python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
labels = rows[0]["labels"]
confusion = [[sum(r["confusion"][i][j] for r in rows) for j in range(len(labels))] for i in range(len(labels))]
total = sum(map(sum, confusion)); right = sum(confusion[i][i] for i in range(len(labels)))
print("clips %d, clip accuracy %.1f%%" % (total, 100 * right / total))
for i, label in enumerate(labels):
    n = sum(confusion[i])
    if n:
        misses = sorted(((confusion[i][j], labels[j]) for j in range(len(labels)) if j != i and confusion[i][j]), reverse=True)
        print("  %-14s %4d clips  recall %5.1f%%  %s" % (label, n, 100 * confusion[i][i] / n, ", ".join("%s %d" % (l, c) for c, l in misses[:3])))'
  done
else
  echo
  echo "(No fold models in .build/folds: 'make folds' trains them for cross-validated clip labels.)"
fi
