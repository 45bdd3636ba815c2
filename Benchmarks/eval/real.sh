#!/usr/bin/env bash
# `make eval-real`: how Spotter does on real recordings (../shared/data, never copied here):
#   Countix-Fitness (148 YouTube videos, MediaPipe, rep counts), in two fixed halves by file name
#   (`--split tune` is looked at and tuned on; `--split holdout` is not), and the Penn Action
#   train split (hand-annotated clips, labels only; with fold models also by each clip's `view`).
# Rep counting with the exercise given (spotter count's engines alone; also by tempo band) and
# through the whole runtime (the classifier chooses; reps summed), and clip labels. Clip labels
# of the shipped model are only fair on data it did not train on: with fold models in
# .build/folds (make folds), each clip is also scored by the model that left its fold out. Ends
# with one table of the headline figures.
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

# keep ROW COLUMN < output: passes the output on, and keeps its headline figure for the summary
# (the `all` row of a rep table as MAE / within one, or the clip accuracy).
rows=()
declare -A cells
keep() {
  local output value known=false
  output=$(cat)
  printf '%s\n' "$output"
  value=$(printf '%s\n' "$output" |
    awk '$1 == "all" && NF == 4 { v = $3 " / " $4 } /^Clips:/ { v = $5 } END { print v }')
  for row in "${rows[@]}"; do [ "$row" = "$1" ] && known=true; done
  $known || rows+=("$1")
  cells["$1|$2"]=$value
}

for half in tune holdout; do
  section "Countix $half half: reps, exercise given (spotter count)"
  keep "reps, exercise given" "$half" < <("$SPOTTER" eval --annotations "$COUNTIX" --split "$half" --reps-only)
  section "Countix $half half: reps, exercise given, poses shaken as by a noisier detector (--shake 0.02)"
  keep "reps, exercise given, shaken 0.02" "$half" < <(
    "$SPOTTER" eval --annotations "$COUNTIX" --split "$half" --reps-only --shake 0.02 | tail -1)
  section "Countix $half half: reps, exercise given, joints scored low as by another detector (--scores 0.2:0.45)"
  keep "reps, exercise given, scores 0.2-0.45" "$half" < <(
    "$SPOTTER" eval --annotations "$COUNTIX" --split "$half" --reps-only --scores 0.2:0.45 | tail -1)
  for rate in 25 15; do
    section "Countix $half half: reps, exercise given, as a detector at $rate frames a second gives them (--frame-rate $rate)"
    keep "reps, exercise given, at $rate fps" "$half" < <(
      "$SPOTTER" eval --annotations "$COUNTIX" --split "$half" --reps-only --frame-rate "$rate" | tail -1)
  done
  section "Countix $half half: reps through the whole runtime, shipped model (it trains on all of Countix)"
  keep "reps, whole runtime, shipped model" "$half" < <(
    "$SPOTTER" eval --annotations "$COUNTIX" --split "$half" --workouts | sed -n '/Reps the runtime/,$p')
  section "Countix $half half: clip labels, shipped model (it trains on all of Countix)"
  keep "clip labels, shipped model" "$half" < <(
    "$SPOTTER" eval --annotations "$COUNTIX" --split "$half" | head -1)
done
section "Penn Action: clip labels, shipped model (it trains on all of Penn Action)"
keep "clip labels, shipped model" penn < <("$SPOTTER" eval --annotations "$PENN" | head -1)

folds=(.build/folds/fold-*.spotter)
if [ -f "${folds[0]}" ]; then
  fold_weights=()
  for model in "${folds[@]}"; do fold_weights+=(--fold-weights "$model"); done
  for half in tune holdout; do
    section "Countix $half half: reps through the whole runtime, fold models (${#folds[@]}: each video by the model that left it out)"
    keep "reps, whole runtime, fold models" "$half" < <(
      "$SPOTTER" eval --annotations "$COUNTIX" --split "$half" --workouts "${fold_weights[@]}" |
        sed -n '/Reps the runtime/,$p')
    for detector in "at 25 fps:--frame-rate 25" "at 15 fps:--frame-rate 15" \
      "shaken 0.02:--shake 0.02"; do
      section "Countix $half half: reps through the whole runtime, fold models, ${detector#*:}"
      # shellcheck disable=SC2086  # the option and its value are two words
      keep "reps, whole runtime, folds, ${detector%%:*}" "$half" < <(
        "$SPOTTER" eval --annotations "$COUNTIX" --split "$half" --workouts "${fold_weights[@]}" \
          ${detector#*:} | grep '^all' | tail -1)
    done
    section "Countix $half half: clip labels, fold models"
    keep "clip labels, fold models" "$half" < <(
      "$SPOTTER" eval --annotations "$COUNTIX" --split "$half" "${fold_weights[@]}" |
        sed '/^Rep counting/,$d')  # the reps, exercise given, are above
  done
  section "Penn Action: clip labels, fold models"
  keep "clip labels, fold models" penn < <("$SPOTTER" eval --annotations "$PENN" "${fold_weights[@]}")
  section "Penn Action: clip labels, fold models, each clip passed on as another pipeline passes it (--quirk, --frame-rate)"
  for quirk in "normalised per frame:--quirk normalised-per-frame" "no face:--quirk no-face" \
    "mirrored:--quirk mirrored" "at 15 fps:--frame-rate 15"; do
    # shellcheck disable=SC2086  # the option and its value are two words
    keep "clip labels, folds, ${quirk%%:*}" penn < <(
      "$SPOTTER" eval --annotations "$PENN" "${fold_weights[@]}" ${quirk#*:} | head -1)
  done
  section "Confidence: the fold models' held-out windows calibrated (spotter calibrate; the shipped model's temperatures are these folds' fit: make calibrate)"
  "$SPOTTER" calibrate --annotations "$PENN" --annotations "$COUNTIX" "${fold_weights[@]}"
  section "Penn Action: clip labels, fold models, by the view in each clip's header"
  report=$(mktemp)
  trap 'rm -f "$report"' EXIT
  "$SPOTTER" eval --annotations "$PENN" "${fold_weights[@]}" --json >"$report"
  Benchmarks/eval/by_view.py "$PENN" "$report"
else
  echo
  echo "(No fold models in .build/folds: 'make folds' trains them for cross-validated clip labels.)"
fi

# Rep counting by tempo band (seconds a rep: the video's time ÷ its reps), exercise given. The
# videos are untrimmed, so a band bounds the reps' tempo from above; Countix gives no rep bounds,
# so silent misses are not measured here (make eval measures them on synthetic sets).
for half in tune holdout; do
  section "Countix $half half: reps by tempo, exercise given (spotter eval --tempo)"
  "$SPOTTER" eval --annotations "$COUNTIX" --split "$half" --reps-only --tempo |
    sed -n '/^Rep counting by tempo/,$p'
done

section "Summary: reps as relative MAE / share within one rep; clip labels as clip accuracy"
printf '%-40s %-16s %-16s %s\n' "" "Countix tune" "Countix holdout" "Penn Action"
for row in "${rows[@]}"; do
  printf '%-40s %-16s %-16s %s\n' "$row" "${cells["$row|tune"]:-—}" "${cells["$row|holdout"]:-—}" \
    "${cells["$row|penn"]:-—}"
done
