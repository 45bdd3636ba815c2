#!/usr/bin/env bash
# `make proxy`: a quick stand-in for `make folds` + `make eval-real`, for trying recipe ideas.
# Trains one cross-validation fold (clip n of each annotation file is in fold n mod 5, as
# `make folds` splits them) with RECIPE, then scores the clips that fold left out:
#   - Penn Action: clip accuracy, overall and by each clip's `view` header (front, back, left,
#     right; in Penn, `left` means the person faces the image's left);
#   - the same Penn Action clips mirrored (x flipped about the image, sides swapped: the person
#     filmed from their other side; written once into .build/proxy/penn-mirrored), by the view
#     each then shows (a `left` clip mirrored faces right);
#   - Countix-Fitness: clip accuracy (both halves' videos of the fold);
#   - synthetic clip accuracy by camera: 30 random workouts a view (seed 92000, drawn once into
#     .build/eval/synthetic), clips of 3 s or more;
#   - other movement from the front (arm swings, dancing, boxing, warm-up swings, a phone in
#     hand; 40 people a kind, seed 5003): the recordings in which an exercise started where
#     none was, and how many such starts.
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

MIRRORED=.build/proxy/penn-mirrored
if [ ! -f "$MIRRORED/annotations.json" ]; then
  rm -rf "$MIRRORED.partial"
  python3 - "$PENN" "$MIRRORED" <<'FLIP'
import json, os, shutil, sys
source, target = sys.argv[1:3]
# COCO-17's joints with their other side's: nose, eyes, ears, shoulders … ankles.
other = [0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15]
views = {"left": "right", "right": "left"}
for clip in json.load(open(source)):
    lines = open(os.path.join(os.path.dirname(source), clip["file_name"])).read().splitlines()
    header = json.loads(lines[0])
    assert header["layout"] == "coco17" and header["units"] == "pixels", clip["file_name"]
    width = header["image"]["width"]
    header["view"] = views.get(header.get("view"), header.get("view"))
    out = [json.dumps(header)]
    for line in lines[1:]:
        frame = json.loads(line)
        pose = frame.get("pose")
        if pose:
            frame["pose"] = [None if pose[j] is None else [width - pose[j][0], *pose[j][1:]]
                             for j in other]
        out.append(json.dumps(frame))
    path = os.path.join(target + ".partial", clip["file_name"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write("\n".join(out) + "\n")
shutil.copy(source, target + ".partial/annotations.json")
os.rename(target + ".partial", target)
FLIP
fi
penn=$("$SPOTTER" eval --annotations "$PENN" --fold "$FOLD/5" --weights "$MODEL" --json)
mirrored=$("$SPOTTER" eval --annotations "$MIRRORED/annotations.json" --fold "$FOLD/5" \
  --weights "$MODEL" --json)
countix=$("$SPOTTER" eval --annotations "$COUNTIX" --fold "$FOLD/5" --weights "$MODEL" --json)
synthetic=()
for view in front side oblique back floor elevated; do
  set_dir=.build/eval/synthetic/proxy92000-$view
  [ -f "$set_dir/annotations.json" ] ||
    "$SPOTTER" synth --output "$set_dir" --workout random --count 30 --seed 92000 \
      --camera "$view" >/dev/null
  synthetic+=("$view" "$("$SPOTTER" eval --annotations "$set_dir/annotations.json" \
    --weights "$MODEL" --min-clip-seconds 3 --json)")
done
strays=()
for kind in arm_swings dancing boxing warm_up_swings phone; do
  set_dir=.build/eval/synthetic/$kind-5003
  [ -f "$set_dir/annotations.json" ] ||
    "$SPOTTER" synth --output "$set_dir" --workout "rest:4, $kind:10, rest:4" --camera front \
      --count 40 --seed 5003 >/dev/null
  strays+=("$kind $("$SPOTTER" eval --annotations "$set_dir/annotations.json" --weights "$MODEL" \
    --workouts --json | python3 -c 'import json, sys; report = json.load(sys.stdin)
print("%d (%d starts)" % (report["stray_recordings"], report["stray_exercises"]))')")
done
finished=$(date +%s)

report=$(mktemp)
trap 'rm -f "$report"' EXIT
share() { python3 -c 'import json, sys; r = json.loads(sys.argv[1]); right = round(r["clip_accuracy"] * r["clips"])
print("%.1f%% (%d/%d) of clips, %.1f%% of windows" % (100 * r["clip_accuracy"], right, r["clips"], 100 * r["window_accuracy"]))' "$1"; }
for name in penn mirrored; do
  if [ $name = penn ]; then json=$penn annotations=$PENN title="Penn Action"
  else json=$mirrored annotations=$MIRRORED/annotations.json title="Penn Action mirrored"; fi
  echo "$title, fold $FOLD: $(share "$json")"
  printf '%s' "$json" >"$report"
  Benchmarks/eval/by_view.py "$annotations" "$report" "$FOLD"
done
echo "Countix, fold $FOLD: $(share "$countix" | sed 's/of clips/of videos/')"
line="Synthetic clips by camera (30 random workouts each, seed 92000):"
set -- "${synthetic[@]}"
while [ $# -gt 0 ]; do line="$line $1 $(share "$2" | sed 's/ of clips.*//'),"; shift 2; done
echo "${line%,}"
echo "Other movement from the front, 40 people a kind (seed 5003), recordings in which an exercise started: $(
  IFS=,; echo "${strays[*]}" | sed 's/,/, /g')"
echo "Time: training $((trained - started)) s, scoring $((finished - trained)) s, on $(
  lscpu | sed -n 's/^Model name: *//p')."
