/// `--html`: one self-contained page: the SVG inline, a short key to what hovering shows, and
/// a script of its own (no network, no external scripts, styles or fonts) that shows the
/// details of what is under the pointer: a fix's time, hacc and speed (the nearest vertex of a
/// trace within 12 px), an event's p and distance, a visit's times, a fence, a reject.
enum HTMLPage {
    static func write(_ result: PlotRenderer.Result, title: String?, into out: inout [UInt8]) {
        out.append(contentsOf: "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n".utf8)
        out.append(contentsOf: "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n".utf8)
        out.append(contentsOf: "<meta name=\"generator\" content=\"fixplot (FixKit) \(fixKitVersion)\">\n<title>".utf8)
        SVGWriter.escape(title ?? "fixplot", into: &out)
        out.append(contentsOf: "</title>\n<style>\n".utf8)
        out.append(contentsOf: style.utf8)
        out.append(contentsOf: "</style>\n</head>\n<body>\n<main>\n".utf8)
        out.append(contentsOf: result.svg)
        out.append(contentsOf: "<p class=\"key\">".utf8)
        out.append(contentsOf: key.utf8)
        out.append(contentsOf: "</p>\n</main>\n<div id=\"details\" hidden></div>\n".utf8)
        out.append(contentsOf: "<script type=\"application/json\" id=\"fixplot-data\">".utf8)
        // JSON cannot hold a '<' outside a string; inside one, \u003c keeps "</script>" out.
        for c in result.hover {
            if c == UInt8(ascii: "<") {
                out.append(contentsOf: "\\u003c".utf8)
            } else {
                out.append(c)
            }
        }
        out.append(contentsOf: "</script>\n<script>\n".utf8)
        out.append(contentsOf: script.utf8)
        out.append(contentsOf: "</script>\n</body>\n</html>\n".utf8)
    }

    static let key =
        "Hover over a trace for a fix's time, accuracy and speed; over an event, a visit, a fence, a rejected fix or a stay for its details. Times are UTC."

    static let style = """
        body { margin: 0; background: #FFFFFF; color: #000000; font: 13px "DejaVu Sans", Verdana, sans-serif; }
        main { padding: 8px; }
        svg { display: block; }
        .key { color: #444444; max-width: 60em; }
        #details { position: fixed; pointer-events: none; background: #FFFFFF; border: 1px solid #888888;
          padding: 4px 6px; font-size: 12px; white-space: pre; box-shadow: 1px 1px 3px rgba(0,0,0,.25); }
        .trace path:hover, .event:hover, .visit:hover, .stay:hover, .reject:hover { filter: brightness(1.15); }

        """

    static let script = """
        "use strict";
        (function () {
          var svg = document.querySelector("svg");
          var box = document.getElementById("details");
          var data = JSON.parse(document.getElementById("fixplot-data").textContent);
          // Trace vertices in cells of 16 px, for the nearest one to the pointer.
          var cell = 16, grid = new Map();
          data.forEach(function (t) {
            t.v.forEach(function (v) {
              var key = Math.floor(v[0] / 10 / cell) + "," + Math.floor(v[1] / 10 / cell);
              if (!grid.has(key)) grid.set(key, []);
              grid.get(key).push([t.trace, v]);
            });
          });
          function iso(ms) { return new Date(ms).toISOString().replace(".000Z", "Z"); }
          function nearest(x, y) {
            var best = null, bestD = 12 * 12;
            var cx = Math.floor(x / cell), cy = Math.floor(y / cell);
            for (var i = cx - 1; i <= cx + 1; i++) {
              for (var j = cy - 1; j <= cy + 1; j++) {
                (grid.get(i + "," + j) || []).forEach(function (e) {
                  var dx = e[1][0] / 10 - x, dy = e[1][1] / 10 - y, d = dx * dx + dy * dy;
                  if (d < bestD) { bestD = d; best = e; }
                });
              }
            }
            return best;
          }
          var names = {
            "data-fence": "fence", "data-event": "event", "data-time": "time", "data-p": "P(inside)",
            "data-distance": "distance (m)", "data-duration": "duration (s)", "data-radius": "radius (m)",
            "data-trace": "trace", "data-arrival": "arrival", "data-departure": "departure", "data-hacc": "hacc (m)",
            "data-fixes": "fixes", "data-reason": "rejected for", "data-n": "visit", "data-fences": "watched",
            "data-lat": "lat", "data-lon": "lon"
          };
          function describe(el) {
            var lines = [];
            Object.keys(names).forEach(function (a) {
              if (el.hasAttribute(a)) {
                var v = el.getAttribute(a);
                if ((a === "data-arrival" || a === "data-departure") && v === "") v = "unknown";
                lines.push(names[a] + ": " + v);
              }
            });
            return lines.join("\\n");
          }
          function show(text, ev) {
            if (!text) { box.hidden = true; return; }
            box.textContent = text;
            box.hidden = false;
            box.style.left = Math.min(ev.clientX + 14, window.innerWidth - box.offsetWidth - 4) + "px";
            box.style.top = Math.min(ev.clientY + 14, window.innerHeight - box.offsetHeight - 4) + "px";
          }
          svg.addEventListener("mousemove", function (ev) {
            var el = ev.target.closest(".event, .visit, .stay, .reject, .fence");
            if (el) { show(describe(el), ev); return; }
            var m = svg.getScreenCTM();
            if (!m) return;
            var p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
            var hit = nearest(p.x, p.y);
            if (!hit) { show("", ev); return; }
            var v = hit[1], lines = ["trace: " + (hit[0] === "" ? "(none)" : hit[0])];
            if (v[2] !== null) lines.push("time: " + iso(v[2]));
            if (v[3] !== null) lines.push("hacc: " + v[3] + " m");
            if (v[4] !== null) lines.push("speed: " + v[4] + " m/s");
            show(lines.join("\\n"), ev);
          });
          svg.addEventListener("mouseleave", function () { box.hidden = true; });
        })();

        """
}
