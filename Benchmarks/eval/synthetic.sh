#!/usr/bin/env bash
# `make eval`: how well the shipped model and the rep engines do on synthetic people, the
# measurements that used to sit in unit tests. Each set is drawn from a fixed seed (and kept in
# .build/eval/, so a second run only scores); nothing here trains. Prints one section a set.
#   Benchmarks/eval/synthetic.sh [SPOTTER]      (default .build/release/spotter)
set -euo pipefail
cd "$(dirname "$0")/../.."
SPOTTER=${1:-.build/release/spotter}
DATA=.build/eval/synthetic
mkdir -p "$DATA"

# synth NAME ARGS...: a set drawn once.
synth() {
  local name=$1; shift
  [ -f "$DATA/$name/annotations.json" ] || "$SPOTTER" synth --output "$DATA/$name" "$@" >/dev/null
}
section() { printf '\n== %s\n' "$1"; }

section "Clip accuracy, 40 random workouts from anywhere (seed 91000; clips of 3 s or more)"
synth random91000 --workout random --count 40 --seed 91000
"$SPOTTER" eval --annotations "$DATA/random91000/annotations.json" --min-clip-seconds 3 | head -1
for variation in "missing:--missing 0.3" "no-face:--no-face" "mediapipe33:--layout mediapipe33" \
  "swap-sides:--swap-sides" "fps15:--fps 15" "fps60:--fps 60" \
  "normalize-per-frame:--normalize-per-frame"; do
  name=${variation%%:*}; flags=${variation#*:}
  # shellcheck disable=SC2086
  synth "random91000-$name" --workout random --count 40 --seed 91000 $flags
  printf '%-20s ' "$name"
  "$SPOTTER" eval --annotations "$DATA/random91000-$name/annotations.json" --min-clip-seconds 3 | head -1
done

section "Clip accuracy by camera, 30 random workouts a view (seed 92000; clips of 3 s or more)"
for view in front side oblique back floor elevated; do
  synth "proxy92000-$view" --workout random --count 30 --seed 92000 --camera "$view"
  printf '%-10s ' "$view"
  "$SPOTTER" eval --annotations "$DATA/proxy92000-$view/annotations.json" --min-clip-seconds 3 | head -1
done

# on_time NAME: the sets of a drawn set of workouts on time, counted exactly, and strays.
on_time() {
  "$SPOTTER" eval --annotations "$DATA/$1/annotations.json" --workouts --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("%d of %d on time, %d counted exactly, %d stray sets" % (
    r["on_time"], r["sets"], r["counted_exactly"], r["stray_exercises"]))'
}

section "Squat and lunge sets of 6 from the front (and squats from the floor), rests around them, 30 people each (seed 93000): sets on time"
for set in "squat everyday front" "squat rehab front" "squat everyday floor" \
  "lunge everyday front" "lunge rehab front"; do
  read -r exercise realism view <<<"$set"
  synth "$exercise-$realism-$view-93000" --workout "rest:3, $exercise:6, rest:5" \
    --realism "$realism" --camera "$view" --count 30 --seed 93000
  printf '%-24s ' "$exercise, $realism, $view"
  on_time "$exercise-$realism-$view-93000"
done

section "Sets built to break the runtime, 30 people each (seed 94000): sets on time"
# Slow squats, one every 6-8 s, standing tall between them (6-count squats); deep rehab squats
# from the side; sit-ups and bench presses from the side, which look alike from there; quick
# jumping jacks, 0.45-0.8 s a rep, done the three ways people do them; squats with arm swings
# before and after.
for set in "slow-squats|rest:3, squat:6, rest:4|--realism tempo --seconds-per-rep 6:8 --top-pause 0.6:0.75 --camera front" \
  "deep-squats-side|rest:3, squat:6, rest:4|--realism rehab --camera side" \
  "sit-ups-side|rest:3, sit_up:8, rest:4|--camera side" \
  "bench-presses-side|rest:3, bench_press:8, rest:4|--camera side" \
  "quick-jacks|rest:3, jumping_jack:15, rest:4|--realism tempo --seconds-per-rep 0.45:0.8 --camera front" \
  "swings-around-squats|arm_swings:6, squat:8, arm_swings:6|--camera front"; do
  IFS='|' read -r name plan flags <<<"$set"
  # shellcheck disable=SC2086  # the flags are words
  synth "$name-94000" --workout "$plan" $flags --count 30 --seed 94000
  printf '%-24s ' "$name"
  on_time "$name-94000"
done

section "The whole runtime: 40 demo workouts from the front (seeds 5001-5040)"
synth demo5001 --workout demo --camera front --count 40 --seed 5001
"$SPOTTER" eval --annotations "$DATA/demo5001/annotations.json" --workouts | head -8

for view in front side oblique back floor elevated any; do
  section "The whole runtime: 10 random workouts, camera $view (seed 92000)"
  synth "random92000-$view" --workout random --count 10 --seed 92000 --camera "$view"
  "$SPOTTER" eval --annotations "$DATA/random92000-$view/annotations.json" --workouts | head -8
done

section "The whole runtime at 15 frames a second: 10 random workouts from the front (seed 92000)"
"$SPOTTER" eval --annotations "$DATA/random92000-front/annotations.json" --workouts \
  --frame-rate 15 | head -8

section "Two people side by side, walking in past each other (squats and jumping jacks, front, light noise, seeds 31-40): each exercise one person's, counted whole"
mkdir -p "$DATA/people31"
whole=0
for seed in $(seq 31 40); do
  file="$DATA/people31/group-$(printf %06d "$seed").jsonl"
  [ -f "$file" ] || "$SPOTTER" synth --output "$DATA/people31" --workout "squat:8, rest:3" \
    --workout "jumping_jack:12, rest:3" --camera front --noise light --seed "$seed" >/dev/null
  line=$("$SPOTTER" classify --people 2 --json "$file" | python3 -c '
import json, sys
counts = {}
for line in sys.stdin:
    event = json.loads(line)
    if event.get("type") == "summary":
        counts[event["person"]] = {name: total["reps"] for name, total in event["exercises"].items()
                                   if total["reps"] > 0}
squats = [c["squat"] for c in counts.values() if "squat" in c]
jacks = [c["jumping_jack"] for c in counts.values() if "jumping_jack" in c]
both = any("squat" in c and "jumping_jack" in c for c in counts.values())
whole = squats == [8] and jacks == [12] and not both
print("%s %s" % ("whole" if whole else "wrong", " | ".join(
    "person %d: %s" % (person, ", ".join("%s %d" % item for item in sorted(c.items())) or "nothing")
    for person, c in sorted(counts.items()))))')
  printf 'seed %-3s %s\n' "$seed" "${line#* }"
  [ "${line%% *}" = whole ] && whole=$((whole + 1))
done
echo "$whole of 10 with each exercise one person's, counted whole (8 squats, 12 jumping jacks)"

section "Rests and walks from the front count nothing (20 people, seed 5003): stray exercises"
synth rests5003 --workout "rest:6, walking:8, rest:5" --camera front --count 20 --seed 5003
"$SPOTTER" eval --annotations "$DATA/rests5003/annotations.json" --workouts | grep "where none"

section "Arm swings from the front (40 people, seed 5003): stray exercises"
synth swings5003 --workout "rest:4, arm_swings:6, rest:4" --camera front --count 40 --seed 5003
"$SPOTTER" eval --annotations "$DATA/swings5003/annotations.json" --workouts | grep "where none"

section "Other movement from the front, 10 s each (40 people a kind, seed 5003): stray exercises"
for kind in dancing boxing warm_up_swings phone; do
  synth "$kind-5003" --workout "rest:4, $kind:10, rest:4" --camera front --count 40 --seed 5003
  printf '%-16s ' "$kind"
  "$SPOTTER" eval --annotations "$DATA/$kind-5003/annotations.json" --workouts | grep "where none"
done

for view in front side oblique back floor elevated any; do
  section "Rep engines alone, 200 random workouts, camera $view (seed 110000)"
  synth "reps110000-$view" --workout random --count 200 --seed 110000 --camera "$view"
  "$SPOTTER" eval --annotations "$DATA/reps110000-$view/annotations.json" --reps-only
done

section "Walks from anywhere, then standing (60 people, seed 100): walks in which reps were counted"
synth walks100 --workout "walking:6, standing:4" --count 60 --seed 100
for exercise in squat front_raise shoulder_press side_tilt jumping_jack bicep_curl knee_raise lunge; do
  printf '%-16s ' "$exercise"
  "$SPOTTER" eval --annotations "$DATA/walks100/annotations.json" --reps-only --whole-files \
    --exercise "$exercise" --json | python3 -c '
import json, sys
clips = json.load(sys.stdin)["reps"]["clips"]
print(sum(1 for c in clips if c["counted"] > 0), "of", len(clips))'
done

section "Getting down to the floor is not a push-up; getting up is not a sit-up (48 each)"
for view in front side oblique back; do
  synth "getdown-$view" --workout "walking:4, push_up:5" --camera "$view" --count 12 --seed 600
  synth "getup-$view" --workout "standing:2, sit_up:5, walking:3" --camera "$view" --count 12 --seed 640
  printf '%-8s push-ups: ' "$view"
  "$SPOTTER" eval --annotations "$DATA/getdown-$view/annotations.json" --reps-only --whole-files | tail -1
  printf '%-8s sit-ups:  ' "$view"
  "$SPOTTER" eval --annotations "$DATA/getup-$view/annotations.json" --reps-only --whole-files | tail -1
done

section "Jumping jacks counted as curls (12 sets of 6 from front, side, oblique): curls counted"
for view in front side oblique; do
  synth "jacks-$view" --exercise jumping_jack --reps 6 --camera "$view" --count 4 --seed 700
  printf '%-8s ' "$view"
  "$SPOTTER" eval --annotations "$DATA/jacks-$view/annotations.json" --reps-only --whole-files \
    --exercise bicep_curl --json | python3 -c '
import json, sys
print(sum(c["counted"] for c in json.load(sys.stdin)["reps"]["clips"]))'
done

section "Side tilts at an angle (8 sets of 10, seed 800)"
synth tilts800 --exercise side_tilt --reps 10 --camera oblique --count 8 --seed 800
"$SPOTTER" eval --annotations "$DATA/tilts800/annotations.json" --reps-only | tail -1

section "Sit-ups from high above and to one side (8 sets of 8, 40-60 deg round, 50-60 up, seed 820)"
synth situps820 --exercise sit_up --reps 8 --camera oblique --azimuth 40:60 --elevation 50:60 \
  --count 8 --seed 820
"$SPOTTER" eval --annotations "$DATA/situps820/annotations.json" --reps-only | tail -1

section "Rep engines alone by tempo band, 42 sets a band (--realism tempo, cameras all round)"
# 14 random workouts of 3 sets a band, seeds 130000, 131000, … 134000 up: each band pinned with
# --seconds-per-rep (a set's time ÷ its reps), its workouts drawn from the exercises people do at
# that tempo, from cameras anywhere round the person at standing height with the whole body in
# view (--camera front --azimuth 0:360). The five bands are scored together from one annotation
# file, silent misses from the exact rep bounds.
seed=130000
for band in 0.45:0.8 0.8:1.2 1.2:2 2:3.5 3.5:6; do
  synth "tempo$seed" --workout random --count 14 --seed "$seed" --realism tempo \
    --seconds-per-rep "$band" --camera front --azimuth 0:360
  seed=$((seed + 1000))
done
python3 -c '
import json, sys
merged = []
for folder in sys.argv[2:]:
    for entry in json.load(open(folder + "/annotations.json")):
        entry["file_name"] = folder.rsplit("/", 1)[1] + "/" + entry["file_name"]
        merged.append(entry)
json.dump(merged, open(sys.argv[1], "w"), indent=1)' "$DATA/tempo130000-all.json" \
  "$DATA"/tempo13{0,1,2,3,4}000
"$SPOTTER" eval --annotations "$DATA/tempo130000-all.json" --reps-only --tempo |
  sed -n '/^Rep counting by tempo/,$p'
