#!/usr/bin/env python3
"""Clip accuracy by camera view, from `spotter eval --json` and the annotation file it scored.

Each clip's view is its pose file's header `view` (Penn Action: front, back, left, right; in
Penn, `left` means the person faces the image's left); clips without one are `none`. With
FOLD, only clips n with n mod 5 == FOLD are counted (what `spotter eval --fold FOLD/5` scores).

    by_view.py ANNOTATIONS REPORT_JSON [FOLD]
"""
import json
import os
import sys


def main():
    annotations_path, report_path = sys.argv[1:3]
    fold = int(sys.argv[3]) if len(sys.argv) > 3 else None
    report = json.load(open(report_path))
    wrong = {clip["clip"] for clip in report["mislabelled"]}
    views = {}
    folder = os.path.dirname(annotations_path)
    for number, clip in enumerate(json.load(open(annotations_path))):
        if fold is not None and number % 5 != fold:
            continue
        with open(os.path.join(folder, clip["file_name"])) as file:
            view = json.loads(file.readline()).get("view", "none")
        right, total = views.get(view, (0, 0))
        views[view] = (right + (clip["file_name"] not in wrong), total + 1)
    counted = sum(total for _, total in views.values())
    if counted != report["clips"]:
        sys.exit(f"by_view.py: {counted} clips in {annotations_path} against {report['clips']} "
                 "scored; expected one clip a pose file, each scored (as Penn Action's)")
    print("  by view: " + ", ".join(
        f"{view} {100 * right / total:.1f}% ({right}/{total})"
        for view, (right, total) in sorted(views.items())))


if __name__ == "__main__":
    main()
