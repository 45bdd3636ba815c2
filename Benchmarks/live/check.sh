#!/bin/sh
# make live-check: spotter video on a live stream, measured and looked at (README, "Live").
#
#   check.sh SPOTTER VIDEO OUT
#
# VIDEO (OpenCV's vtest.avi) is made a 30 frames/s MPEG transport stream, which Debian's ffmpeg
# serves on loopback at its own pace (-re, HTTP) as a camera would. Then, each on its own run:
#   1. the detector's own rate on the file (spotter video VIDEO);
#   2. the stream live (three times over, for more events): capture -> event p50/p99 and
#      frames dropped (the "Live:" line), with every prediction as an event so that the
#      latency has samples, and the page served (to no browser: on 2 cores, Chromium would
#      take the CPU the detector is measured on);
#   3. the same once with the detector slowed to at most half the stream's rate
#      (SPOTTER_DETECTOR_DELAY, the helper's test knob): latency stays bounded, drops counted;
#   4. screenshots of the live page in headless Chromium during the stream (OUT/camera-*.png:
#      the frame and the pose), and during a footballer's photograph as a stream
#      (OUT/footballer.png);
#   5. synthetic squats through spotter classify --view at their own pace, and a screenshot of
#      the page with the count (OUT/count.png): BlazePose sees no stick figure.
# Nothing is asserted: the figures are printed, with the CPU they were measured on, for the
# README. About four minutes.
set -eu
spotter=$1
video=$2
out=$3
here=$(dirname "$0")
mkdir -p "$out"
stream="$out/vtest30.ts"
[ -s "$stream" ] || ffmpeg -y -hide_banner -loglevel error -r 30 -i "$video" \
  -c:v mpeg2video -q:v 2 -f mpegts "$stream"

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# serve PORT [OPTION...]: the stream (vtest's, unless STREAM says another) over HTTP to the
# first client, at 30 frames a second.
serve() {
  port=$1
  shift
  ffmpeg -hide_banner -loglevel quiet -re "$@" -i "${STREAM:-$stream}" -c copy -f mpegts \
    -listen 1 "http://127.0.0.1:$port" &
  sender=$!
  sleep 0.5
}

# shoot PAGE_PORT NAME MIN_BYTES: a screenshot of the live page as it is now, in the background
# (Chromium takes a second or two to start). Chromium shoots once the page has loaded, and the
# page's first update may come after that: a shot smaller than MIN_BYTES (the page still
# connecting) is taken again, twice at most.
shoot() {
  (
    for _ in 1 2 3; do
      timeout 30 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size=1280,720 --screenshot="$out/$2.png" "http://127.0.0.1:$1/" \
        >/dev/null 2>&1 || true
      [ "$(wc -c <"$out/$2.png" 2>/dev/null || echo 0)" -ge "$3" ] && break
    done
  ) &
}

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"

echo "1. The detector on the file:"
"$spotter" video "$video" 2>&1 >/dev/null | grep 'BlazePose at'

echo "2. The stream live at 30 frames/s, three times over, its page served to nobody:"
port=$(free_port)
serve "$port" -stream_loop 2
"$spotter" video --json --predictions --no-history --view "127.0.0.1:$(free_port)" \
  "http://127.0.0.1:$port" >"$out/live.ndjson" 2>"$out/live.err"
kill "$sender" 2>/dev/null || true
grep '^Live: ' "$out/live.err" | tail -1

echo "3. The same once, the detector slowed to at most half the stream's rate:"
port=$(free_port)
serve "$port"
SPOTTER_DETECTOR_DELAY=0.0667 "$spotter" video --json --predictions --no-history \
  "http://127.0.0.1:$port" >"$out/slow.ndjson" 2>"$out/slow.err"
kill "$sender" 2>/dev/null || true
grep '^Live: ' "$out/slow.err" | tail -1

echo "4. The page during the stream, in Chromium (no figures: the browser shares the CPU):"
# vtest's walkers are small, and BlazePose finds them in about half the frames, so the shots are
# many (every 2.5 s; Chromium takes a second or two to shoot once started); then a footballer
# facing the camera (OpenCV's messi5.jpg as a 10 s stream), whom it finds in every frame.
port=$(free_port)
page=$(free_port)
serve "$port"
"$spotter" video --no-history --view "127.0.0.1:$page" "http://127.0.0.1:$port" \
  >/dev/null 2>"$out/page.err" &
spotter_pid=$!
shot=0
while sleep 2.5 && kill -0 "$spotter_pid" 2>/dev/null && [ "$shot" -lt 9 ]; do
  shot=$((shot + 1))
  shoot "$page" "camera-$shot" 100000
done
wait
footballer="$(dirname "$video")/messi5.jpg"
[ -s "$out/footballer.ts" ] || ffmpeg -y -hide_banner -loglevel error -loop 1 -framerate 30 \
  -i "$footballer" -t 10 -c:v mpeg2video -q:v 2 -f mpegts "$out/footballer.ts"
port=$(free_port)
STREAM="$out/footballer.ts"
serve "$port"
"$spotter" video --no-history --view "127.0.0.1:$page" "http://127.0.0.1:$port" \
  >/dev/null 2>>"$out/page.err" &
sleep 5
shoot "$page" footballer 100000
wait
echo "   $out/camera-*.png, $out/footballer.png"

echo "5. Synthetic squats through classify --view (screenshot: $out/count.png):"
rm -rf "$out/synth"
"$spotter" synth --workout "squat:12, rest:8" --camera front --fps 30 --seed 3 \
  --output "$out/synth" >/dev/null
page=$(free_port)
python3 "$here/pace.py" "$out/synth/synth-000003.jsonl" 3 |
  "$spotter" classify --view "127.0.0.1:$page" - >"$out/count.txt" 2>"$out/count.err" &
sleep 12
shoot "$page" count 25000
wait
grep -c 'rep ' "$out/count.txt" | sed 's/^/   reps printed: /'
echo "Look at $out/camera-*.png (the frame and the pose) and $out/count.png (the count)."
