#!/usr/bin/env python3
"""The figures `spotter synth --realism tempo` is calibrated on, from the real recordings in
../shared/data (read in place, never copied): how fast real reps go and how deep quick ones are.

  Benchmarks/eval/tempo-calibration.py [DATA]      (default ../shared/data; needs numpy)

Each clip is read as a joint-angle signal: the angle at the joint its exercise bends most
(knee for squats and lunges, elbow for push-ups, presses and pull-ups, hip for sit-ups,
shoulder for raises and jumping jacks; the two sides' mean, gaps filled, a median of 5 frames).
Countix-Fitness: clip time / reps by band (what `spotter eval --tempo` reads), the dominant
period (the strongest early autocorrelation peak, 0.3-8 s) and how much rep times vary within a
video (turning points of the signal). Penn Action: clips of 1-3 reps, too short for a period,
so twice the time between turning points (one way down or up), and each swing in degrees.
"""
import collections
import json
import math
import sys
import warnings

import numpy as np

MEDIAPIPE = dict(ls=11, rs=12, le=13, re=14, lw=15, rw=16, lh=23, rh=24, lk=25, rk=26, la=27, ra=28)
COCO = dict(ls=5, rs=6, le=7, re=8, lw=9, rw=10, lh=11, rh=12, lk=13, rk=14, la=15, ra=16)
ELBOW = [("ls", "le", "lw"), ("rs", "re", "rw")]
KNEE = [("lh", "lk", "la"), ("rh", "rk", "ra")]
SHOULDER = [("lh", "ls", "lw"), ("rh", "rs", "rw")]
ANGLES = {
    "squat": KNEE, "lunge": KNEE, "push_up": ELBOW, "bench_press": ELBOW, "pull_up": ELBOW,
    "other": ELBOW, "sit_up": [("ls", "lh", "lk"), ("rs", "rh", "rk")],
    "front_raise": SHOULDER, "jumping_jack": SHOULDER,
}
BANDS = [(0, 0.8), (0.8, 1.2), (1.2, 2), (2, 3.5), (3.5, math.inf)]


def signal(path, label):
    """The clip's angle signal (degrees, a frame each) and its frame rate; None if unseen."""
    with open(path) as lines:
        header = json.loads(lines.readline())
        frames = []
        for line in lines:
            frame = json.loads(line)
            people = frame.get("people", [frame["pose"]] if "pose" in frame else [])
            frames.append(people[0] if people else None)
    index = MEDIAPIPE if header["layout"] == "mediapipe33" else COCO

    def angle(pose, a, b, c):
        if pose is None or any(pose[index[j]] is None for j in (a, b, c)):
            return np.nan
        pa, pb, pc = (np.array(pose[index[j]][:2], float) for j in (a, b, c))
        u, v = pa - pb, pc - pb
        return math.degrees(math.atan2(abs(u[0] * v[1] - u[1] * v[0]), u.dot(v)))

    sides = np.array([[angle(p, *joints) for p in frames] for joints in ANGLES[label]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # frames with neither side seen
        values = np.nanmean(sides, axis=0)
    seen = ~np.isnan(values)
    if seen.sum() < 10:
        return None, 0
    n = np.arange(len(values))
    values = np.interp(n, n[seen], values[seen])
    values = np.array([np.median(values[max(0, i - 2):i + 3]) for i in n])
    return values, header.get("fps", 30)


def period(values, fps):
    """The strongest early autocorrelation peak between 0.3 and 8 s (None without one)."""
    x = values - values.mean()
    if x.std() < 1e-6:
        return None
    ac = np.correlate(x, x, "full")[len(x) - 1:] / (x * x).sum()
    low, high = int(0.3 * fps), min(int(8 * fps), len(x) // 2)
    best = None
    for i in range(low + 1, high - 1):
        if ac[i] >= ac[i - 1] and ac[i] >= ac[i + 1] and ac[i] > 0.2:
            if best is None or ac[i] > ac[best] + 0.1:
                best = i
            if ac[best] > 0.5:
                break
    return best / fps if best else None


def turning_points(values):
    """Alternating maxima and minima, each a third of the signal's 5-95% range from the last."""
    swing = (np.percentile(values, 95) - np.percentile(values, 5)) / 3
    points, kind, high, low = [], None, 0, 0
    for i in range(1, len(values)):
        high = i if values[i] > values[high] else high
        low = i if values[i] < values[low] else low
        last = points[-1] if points else 0
        if kind != "max" and values[high] - values[i] > swing and high >= last:
            points.append(high)
            kind, low = "max", i
        elif kind != "min" and values[i] - values[low] > swing and low >= last:
            points.append(low)
            kind, high = "min", i
    return points


def percentiles(values, ps=(10, 25, 50, 75, 90)):
    return " ".join(f"p{p} {np.percentile(values, p):.2f}" for p in ps)


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else "../shared/data"
    countix = json.load(open(f"{data}/countix-fitness-test/annotations.json"))
    print("Countix-Fitness (148 videos, whole and untrimmed):")
    per_rep = [(c["end_time"] - c["start_time"]) / c["reps"] for c in countix if c.get("reps")]
    print("  clip time / reps, videos a band: " + ", ".join(
        f"{lo}-{hi}: {sum(lo <= s < hi for s in per_rep)}" for lo, hi in BANDS))
    periods, spreads, active = [], [], []
    for clip in countix:
        if not clip.get("reps") or clip["label"] not in ANGLES:
            continue
        values, fps = signal(f"{data}/countix-fitness-test/{clip['file_name']}", clip["label"])
        found = period(values, fps) if values is not None else None
        if not found:
            continue
        periods.append(found)
        active.append(found * clip["reps"] / (clip["end_time"] - clip["start_time"]))
        points = turning_points(values)
        times = [(b - a) / fps for a, b in zip(points[::2], points[2::2])]
        times += [(b - a) / fps for a, b in zip(points[1::2], points[3::2])]
        times = [t for t in times if 0.3 * found < t < 3 * found]
        if len(times) >= 6:
            spreads.append(np.std(times) / np.mean(times))
    print(f"  dominant period, {len(periods)} videos with one (s): {percentiles(periods)}")
    print("  videos a band by period: " + ", ".join(
        f"{lo}-{hi}: {sum(lo <= s < hi for s in periods)}" for lo, hi in BANDS))
    print(f"  share of the video spent in reps (period x reps / time): {percentiles(active)}")
    print(f"  rep times within a video, deviation / mean ({len(spreads)} videos): "
          f"{percentiles(spreads)}")
    penn = json.load(open(f"{data}/penn-action-train/annotations.json"))
    print("Penn Action (train split, hand-annotated, clips of 1-3 reps):")
    halves = collections.defaultdict(list)
    for clip in penn:
        if clip["label"] == "other" or clip["label"] not in ANGLES:
            continue
        values, fps = signal(f"{data}/penn-action-train/{clip['file_name']}", clip["label"])
        if values is None:
            continue
        points = turning_points(values)
        for a, b in zip(points, points[1:]):
            halves[clip["label"]].append((2 * (b - a) / fps, abs(values[b] - values[a])))
    for label in sorted(halves):
        seconds = [s for s, _ in halves[label]]
        swings = [d for _, d in halves[label]]
        print(f"  {label:13} {len(seconds):4} half reps; s a rep {percentiles(seconds)}; "
              f"swing deg {percentiles(swings, (10, 25, 50, 90))}")


if __name__ == "__main__":
    main()
