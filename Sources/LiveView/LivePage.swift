import Poses
import Reporting

/// The live page: one HTML file with its CSS and a little JavaScript inline, nothing fetched
/// from anywhere but the server it came from, no build step.
///
/// It is made to be read from across a room: the count fills half the screen's height, the
/// exercise above it, the last cue below in large type, white on black; the camera's picture
/// with the pose drawn over it beside them (a screen wider than tall) or above (a phone held
/// upright), and the sets so far at the foot. It keeps one `EventSource` open to `/events`:
/// `state` events redraw the words, `frame` events the picture and the pose. The pose is
/// drawn on a canvas over the picture with the report's bones and colours (the person's left
/// in blue, right in orange); for a source without pictures, fitted to the canvas. Stream
/// time is shown so a frozen stream is seen as one.
enum LivePage {
  /// The bones as joint index pairs with their colour, for the script: the report's
  /// `StickFigure.bones`, so both pages draw a person alike.
  static let bones: String = {
    let pairs = StickFigure.bones.map { from, to, side in
      "[\(from.rawValue),\(to.rawValue),\"\(side.colour)\"]"
    }
    return "[" + pairs.joined(separator: ",") + "]"
  }()

  static let html = """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Spotter live</title>
    <style>
    :root { color-scheme: dark; }
    * { box-sizing: border-box; }
    html, body { margin: 0; height: 100%; background: #000; color: #fff;
      font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; }
    body { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
      grid-template-rows: minmax(0, 1fr) auto; height: 100vh; }
    #camera { position: relative; display: flex; align-items: center; justify-content: center;
      background: #111; min-height: 0; }
    #camera img, #camera canvas { position: absolute; max-width: 100%; max-height: 100%; }
    #camera img { object-fit: contain; width: 100%; height: 100%; }
    #camera img:not([src]) { display: none; }
    #camera canvas { width: 100%; height: 100%; }
    #waiting { color: #888; font-size: 3vh; z-index: 1; }
    #numbers { display: flex; flex-direction: column; justify-content: center;
      align-items: center; text-align: center; padding: 2vh 2vw; min-height: 0; }
    #exercise { font-size: 8vh; font-weight: 700; text-transform: uppercase;
      letter-spacing: 0.05em; color: #ffd24d; min-height: 1.2em; }
    #count { font-size: 45vh; line-height: 1; font-weight: 800;
      font-variant-numeric: tabular-nums; }
    #count.idle { color: #555; }
    #cue { font-size: 5vh; min-height: 2.4em; color: #8fd3ff; max-width: 95%; }
    #footer { grid-column: 1 / -1; display: flex; gap: 2vw; align-items: baseline;
      padding: 1.5vh 2vw; background: #161616; font-size: 3.2vh; min-height: 7vh; }
    #sets { flex: 1; display: flex; flex-wrap: wrap; gap: 1.2vw; list-style: none;
      margin: 0; padding: 0; }
    #sets li { background: #262626; border-radius: 0.4em; padding: 0.1em 0.6em; }
    #sets li.open { background: #ffd24d; color: #000; }
    #status { color: #aaa; font-size: 2.4vh; text-align: right; }
    #status.failed { color: #ff6b6b; }
    @media (max-aspect-ratio: 1/1) {
      body { grid-template-columns: 1fr; grid-template-rows: 38vh minmax(0, 1fr) auto; }
      #count { font-size: 30vh; }
    }
    </style>
    </head>
    <body>
    <div id="camera"><span id="waiting">Waiting for the session…</span><img id="picture" alt="">
    <canvas id="pose"></canvas></div>
    <div id="numbers">
    <div id="exercise"></div>
    <div id="count" class="idle">0</div>
    <div id="cue"></div>
    </div>
    <div id="footer"><ul id="sets"></ul><div id="status">connecting…</div></div>
    <script>
    "use strict";
    const BONES = \(bones);
    const $ = (id) => document.getElementById(id);
    const token = new URLSearchParams(location.search).get("token");
    let frame = null, state = null, ended = false;

    function clock(t) {
      const m = Math.floor(t / 60), s = (t - 60 * m).toFixed(1);
      return m + ":" + (s < 10 ? "0" : "") + s;
    }

    function showState(s) {
      state = s;
      const open = s.exercise !== null;
      const shown = open ? s.exercise : (s.last_set ? s.last_set.exercise : "");
      $("exercise").textContent = shown.replace(/_/g, " ");
      $("count").textContent = open ? s.count : (s.last_set ? s.last_set.reps : 0);
      $("count").className = open ? "" : "idle";
      $("cue").textContent = s.cue || (s.present ? "" : "Nobody in view");
      $("sets").replaceChildren(...s.sets.map((set) => {
        const item = document.createElement("li");
        item.textContent = set.exercise.replace(/_/g, " ") + " " + set.reps;
        if (set.open) item.className = "open";
        return item;
      }));
      showStatus();
      ended = s.status !== "live";
    }

    // The source, the stream's time (the newest frame's, or event's), and how it is going.
    function showStatus() {
      if (!state) return;
      const s = state;
      let status = s.source + " · " + clock(Math.max(s.t, frame ? frame.t : 0));
      if (s.status === "ended") status += " · session ended";
      if (s.status === "failed") status += " · failed: " + s.message;
      if (s.status === "live" && s.seeing) {
        status += " · seeing " + s.seeing.label.replace(/_/g, " ") + " "
          + Math.round(100 * s.seeing.confidence) + "%";
      }
      $("status").textContent = status;
      $("status").className = s.status === "failed" ? "failed" : "";
    }

    function drawPose() {
      const canvas = $("pose"), picture = $("picture");
      const box = canvas.getBoundingClientRect();
      canvas.width = Math.max(1, Math.round(box.width));
      canvas.height = Math.max(1, Math.round(box.height));
      const g = canvas.getContext("2d");
      g.clearRect(0, 0, canvas.width, canvas.height);
      if (!frame) return;
      // The picture's place in the canvas (object-fit: contain), or the people's own box.
      let width, height, left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
      if (frame.size) {
        [width, height] = frame.size;
        left = 0; top = 0;
      } else {
        for (const person of frame.people) for (const p of person) if (p) {
          left = Math.min(left, p[0]); right = Math.max(right, p[0]);
          top = Math.min(top, p[1]); bottom = Math.max(bottom, p[1]);
        }
        if (!isFinite(left)) return;
        const margin = 0.15 * Math.max(right - left, bottom - top, 1e-6);
        left -= margin; top -= margin;
        width = right - left + margin; height = bottom - top + margin;
      }
      const scale = Math.min(canvas.width / width, canvas.height / height);
      const dx = (canvas.width - scale * width) / 2, dy = (canvas.height - scale * height) / 2;
      const at = (p) => [dx + scale * (p[0] - left), dy + scale * (p[1] - top)];
      g.lineCap = "round";
      for (const person of frame.people) {
        // Lines as thick as a limb looks: thin on a small figure far away, never a blot.
        const ys = person.filter((p) => p).map((p) => at(p)[1]);
        const tall = Math.max(...ys) - Math.min(...ys);
        g.lineWidth = Math.max(1.5, Math.min(tall / 40, canvas.height / 90));
        for (const [from, to, colour] of BONES) {
          if (!person[from] || !person[to]) continue;
          const [x0, y0] = at(person[from]), [x1, y1] = at(person[to]);
          g.strokeStyle = colour;
          g.beginPath(); g.moveTo(x0, y0); g.lineTo(x1, y1); g.stroke();
        }
        g.fillStyle = "#fff";
        for (const p of person) if (p) {
          const [x, y] = at(p);
          g.beginPath(); g.arc(x, y, g.lineWidth * 0.7, 0, 2 * Math.PI); g.fill();
        }
      }
    }

    function showFrame(f) {
      frame = f;
      $("waiting").hidden = true;
      showStatus();
      if (f.jpeg) {
        const picture = $("picture");
        picture.onload = drawPose;
        picture.src = "data:image/jpeg;base64," + f.jpeg;
      } else {
        drawPose();
      }
    }

    const events = new EventSource("events" + (token ? "?token=" + encodeURIComponent(token) : ""));
    events.addEventListener("state", (e) => {
      showState(JSON.parse(e.data));
      if (ended) events.close();
    });
    events.addEventListener("frame", (e) => showFrame(JSON.parse(e.data)));
    events.onerror = () => {
      if (!ended) $("status").textContent = "connection lost; trying again…";
    };
    window.addEventListener("resize", drawPose);
    </script>
    </body>
    </html>
    """
}
