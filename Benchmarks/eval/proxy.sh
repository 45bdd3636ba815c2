#!/usr/bin/env bash
# `make proxy`: a quick stand-in for `make folds` + `make eval-real`, for trying recipe ideas.
# Trains one cross-validation fold (clip n of each annotation file is in fold n mod 5, as
# `make folds` splits them) with RECIPE, then scores the clips that fold left out:
#   - Penn Action: clip accuracy, overall and by each clip's `view` header (front, back, left,
#     right; in Penn, `left` means the person faces the image's left);
#   - Countix-Fitness: clip accuracy (both halves' videos of the fold);
#   - synthetic clip accuracy by camera: 30 random workouts a view (seed 92000, drawn once into
#     .build/eval/synthetic), clips of 3 s or more.
# Without RECIPE it trains nothing and scores MODEL as it is (for example a full fold of
# `make folds`, .build/folds/fold-0.spotter, to set the proxy's figures beside the full run's).
#   Benchmarks/eval/proxy.sh SPOTTER DATA FOLD MODEL [RECIPE...]
set -euo pipefail
cd "$(dirname "$0")/../.."
SPOTTER=$1 DATA=$2 FOLD=$3 MODEL=$4
shift 4
PENN=$DATA/penn-action-train/annotations.json
COUNTIX=$DATA/countix-fitness-test/annotations.json
if [ ! -f "$COUNTIX" ] || [ ! -f "$PENN" ]; then
  echo "No real recordings at $DATA (countix-fitness-test, penn-action-train): nothing to measure."
  exit 1
fi
started=$(date +%s)
if [ $# -gt 0 ]; then
  mkdir -p "$(dirname "$MODEL")"
  echo "Training fold $FOLD/5: spotter train $* (stderr: $MODEL.log)"
  "$SPOTTER" train "$@" --fold "$FOLD/5" --annotations "$PENN" --annotations "$COUNTIX" \
    --output "$MODEL" 2>"$MODEL.log"
fi
trained=$(date +%s)

penn=$("$SPOTTER" eval --annotations "$PENN" --fold "$FOLD/5" --weights "$MODEL" --json)
countix=$("$SPOTTER" eval --annotations "$COUNTIX" --fold "$FOLD/5" --weights "$MODEL" --json)
synthetic=()
for view in front side oblique back; do
  set_dir=.build/eval/synthetic/proxy92000-$view
  [ -f "$set_dir/annotations.json" ] ||
    "$SPOTTER" synth --output "$set_dir" --workout random --count 30 --seed 92000 \
      --camera "$view" >/dev/null
  synthetic+=("$view" "$("$SPOTTER" eval --annotations "$set_dir/annotations.json" \
    --weights "$MODEL" --min-clip-seconds 3 --json)")
done
finished=$(date +%s)

python3 - "$PENN" "$FOLD" "$penn" "$countix" "${synthetic[@]}" <<'EOF'
import json, os, sys
penn_path, fold, penn, countix = sys.argv[1], int(sys.argv[2]), *map(json.loads, sys.argv[3:5])
synthetic = dict(zip(sys.argv[5::2], map(json.loads, sys.argv[6::2])))
wrong = {clip["clip"] for clip in penn["mislabelled"]}
views = {}
for number, clip in enumerate(json.load(open(penn_path))):
    if number % 5 != fold:
        continue
    with open(os.path.join(os.path.dirname(penn_path), clip["file_name"])) as file:
        view = json.loads(file.readline()).get("view", "none")
    right, total = views.get(view, (0, 0))
    views[view] = (right + (clip["file_name"] not in wrong), total + 1)
def share(report):
    right = round(report["clip_accuracy"] * report["clips"])
    return f"{100 * report['clip_accuracy']:.1f}% ({right}/{report['clips']})"
print(f"Penn Action, fold {fold}: {share(penn)} of clips, "
      f"{100 * penn['window_accuracy']:.1f}% of windows")
print("  by view: " + ", ".join(
    f"{view} {100 * right / total:.1f}% ({right}/{total})"
    for view, (right, total) in sorted(views.items())))
print(f"Countix, fold {fold}: {share(countix)} of videos, "
      f"{100 * countix['window_accuracy']:.1f}% of windows")
print("Synthetic clips by camera (30 random workouts each, seed 92000): " + ", ".join(
    f"{view} {share(report)}" for view, report in synthetic.items()))
EOF
echo "Time: training $((trained - started)) s, scoring $((finished - trained)) s, on $(
  lscpu | sed -n 's/^Model name: *//p')."
