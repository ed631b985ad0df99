/* Saphira live view: the client window (digest section 11) drawn from the frames the server sends.
 * No build step, no external code. Coordinates in frames are global mm and degrees. */
"use strict";

const ART = { POS: 1, WALL: 2, CORRIDOR: 3, LANE: 4, DOOR: 5, JUNCTION: 6 };
const LASER_COLOR = "#1f77b4";  /* the laser ring's points: smaller than, and apart from, the sonar's */
const GOAL_COLOR = "#2e8b57";  /* a world's named goals, in the world layer */
const INFO_FIELDS = ["St", "Tr", "Rot", "X", "Y", "Th", "MPac", "SPac", "VPac", "Bat", "CPU", "Scrn", "Vset", "Hset"];
/* what the counts count (docs/colbert.md, robot struct): SPac is sonar readings, not the manual's packets */
const INFO_TITLES = {
  MPac: "SIPs received in the last second (10 on a Pioneer)",
  SPac: "sonar readings in the last second, one per transducer firing (the manual's Pioneer 1 counted ~25 sonar packets/s)",
  VPac: "FTVS vision packets in the last second (0: no vision)",
};
const HOOK_KEY = /^(.|F([1-9]|1[0-2])|Escape|Enter|Backspace|Delete|Insert|Home|End|PageUp|PageDown)$/u;
const DRIVE_KEYS = new Set(["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", " ", "c", "C", "s", "S"]);

const $ = (id) => document.getElementById(id);
const canvas = $("lps");
const ctx = canvas.getContext("2d");

/* state visible to tests and to the console: frames received, the last frame, the connection */
const saphira = window.saphira = {
  hello: null, frame: null, frames: 0, connected: false, grid: null, gridFrames: [],
  view: { scale: 0.08, cx: 0, cy: 0, rotation: 0, follow: true, local: false },
};
let socket = null;
let selectedBehavior = null;
let history = [];
let historyAt = 0;
let lastTasksKey = "";
let lastBehaviorsKey = "";

/* ------------------------------------------------------------------ connection */
/* The printed URL's token was exchanged for a session when the server sent this page: a credential
 * that lives in this variable only (never in storage, a cookie or a URL) and opens the WebSocket as a
 * subprotocol entry (a header). The token then leaves the address bar; no later request names it.
 * A reload has neither, and gets the 403 page: open the printed URL again. */
const SESSION = takeSession();

function takeSession() {
  const meta = document.querySelector('meta[name="saphira-session"]');
  const session = meta ? meta.content : "";
  if (meta) meta.remove();
  const params = new URLSearchParams(location.search);
  params.delete("token");
  const rest = params.toString();
  window.history.replaceState(window.history.state, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
  return session;
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${proto}//${location.host}/ws`, ["saphira", "saphira-session." + SESSION]);
  socket.onopen = () => setConnected(true);
  socket.onclose = () => { setConnected(false); setTimeout(connect, 2000); };
  socket.onerror = () => {};
  socket.onmessage = (event) => receive(JSON.parse(event.data));
}

function setConnected(on) {
  saphira.connected = on;
  const el = $("conn");
  const replaying = saphira.hello !== null && Boolean(saphira.hello.replay);
  el.textContent = on ? (replaying ? "replay" : "live") : "disconnected";
  el.className = "conn " + (on ? "on" : "off");
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function receive(msg) {
  if (msg.type === "hello") {
    saphira.hello = msg;
    document.body.classList.toggle("sim", msg.mode === "sim");
    document.body.classList.toggle("replay", Boolean(msg.replay));
    if (msg.replay) renderReplay(msg.replay);
    setConnected(true);  // the badge says "replay" for a recording played back
    applyDisplay(msg.display);
    $("output").textContent = "";
    appendLines(msg.history || []);
    if (msg.bounds) {
      saphira.view.cx = (msg.bounds[0] + msg.bounds[2]) / 2;
      saphira.view.cy = (msg.bounds[1] + msg.bounds[3]) / 2;
    }
    $("flat-panel").hidden = !msg.frame || !msg.frame.flat;
    if (msg.frame) receive(msg.frame);  /* a Flat server may be stopped: no frame would come */
  } else if (msg.type === "frame") {
    saphira.frame = msg;
    saphira.frames += 1;
    if (msg.occgrid) receiveGrid(msg);
    if (msg.walls) { saphira.hello.walls = msg.walls; saphira.hello.bounds = msg.bounds; saphira.hello.goals = msg.goals; }  /* a new world */
    if (msg.palette) saphira.hello.palette = msg.palette;  /* a colour variable changed */
    if (msg.display && msg.display.version !== (saphira.hello.display || {}).version) {
      saphira.hello.display = msg.display;
      applyDisplay(msg.display);
    }
    if (saphira.hello.mode === "sim") renderSimInfo(msg); else renderPanels(msg);
    if (msg.replay) renderReplay(msg.replay);
    draw();
  } else if (msg.type === "messages") {
    appendLines(msg.lines);
    if (msg.lines.length) $("sim-log").textContent = msg.lines[msg.lines.length - 1];  /* the sim view's line */
  } else if (msg.type === "error") {
    appendLines(["error: " + msg.text]);
    $("sim-error").textContent = "error: " + msg.text;  /* the sim view has no interaction area */
  }
}

/* ------------------------------------------------------------------ display state (menus) */
function applyDisplay(d) {
  if (!d) return;
  $("period").value = String(d.period);
  if ($("period").value !== String(d.period)) {
    const opt = document.createElement("option");
    opt.value = opt.textContent = String(d.period);
    $("period").appendChild(opt);
    $("period").value = String(d.period);
  }
  $("local").checked = !d.global;
  $("wake").checked = d.wake;
  $("step").checked = d.step;
  $("occgrid").checked = d.occgrid;
  const local = !d.global && saphira.hello.mode !== "sim";
  if (local !== saphira.view.local) { saphira.view.local = local; reportView(); }
}

function setDisplay(menu, state) { send({ type: "display", menu, state }); }

$("period").addEventListener("change", (e) => setDisplay(0, Number(e.target.value)));
$("local").addEventListener("change", (e) => {
  saphira.view.local = e.target.checked; reportView();  /* before the setting, whose echo says both are in */
  setDisplay(1, e.target.checked ? 0 : 1); draw();
});
$("wake").addEventListener("change", (e) => setDisplay(2, e.target.checked ? 1 : 0));
$("step").addEventListener("change", (e) => setDisplay(3, e.target.checked ? 1 : 0));
$("occgrid").addEventListener("change", (e) => setDisplay(4, e.target.checked ? 1 : 0));
$("clear-sonar").addEventListener("click", () => send({ type: "clear_sonar" }));
$("grow").addEventListener("click", () => zoom(1.25));
$("shrink").addEventListener("click", () => zoom(0.8));
$("recenter").addEventListener("click", () => { recenter(); draw(); });
$("follow").addEventListener("change", (e) => { saphira.view.follow = e.target.checked; if (e.target.checked) recenter(); draw(); });
for (const name of ["behaviors", "processes", "activities"]) {
  $("show-" + name).addEventListener("change", (e) => { $(name + "-window").hidden = !e.target.checked; });
}

/* ------------------------------------------------------------------ the view transform */
function viewAngle() {
  const f = saphira.frame;
  return saphira.view.local && f && f.pose ? (90 - f.pose[2]) * Math.PI / 180 : 0;
}

function centre() {
  const f = saphira.frame;
  if (saphira.view.local && f && f.pose) return [f.pose[0], f.pose[1]];
  return [saphira.view.cx, saphira.view.cy];
}

function toScreen(x, y) {
  const v = saphira.view, a = viewAngle(), [cx, cy] = centre();
  const c = Math.cos(a), s = Math.sin(a), dx = x - cx, dy = y - cy;
  return [canvas.width / 2 + v.scale * (c * dx - s * dy), canvas.height / 2 - v.scale * (s * dx + c * dy)];
}

function toWorld(px, py) {
  const v = saphira.view, a = viewAngle(), [cx, cy] = centre();
  const dx = (px - canvas.width / 2) / v.scale, dy = -(py - canvas.height / 2) / v.scale;
  const c = Math.cos(-a), s = Math.sin(-a);
  return [cx + c * dx - s * dy, cy + s * dx + c * dy];
}

function robotPose() {
  const f = saphira.frame;
  if (!f) return null;
  if (f.pose) return f.pose;
  return f.robots && f.robots.length ? f.robots[0].slice(1, 4) : null;
}

function recenter() {
  const p = robotPose();
  if (p) { saphira.view.cx = p[0]; saphira.view.cy = p[1]; reportView(); }
}

function followRobot() {
  const p = robotPose();
  if (!p || !saphira.view.follow || saphira.view.local) return;
  const [sx, sy] = toScreen(p[0], p[1]);
  const mx = canvas.width * 0.2, my = canvas.height * 0.2;
  if (sx < mx || sx > canvas.width - mx || sy < my || sy > canvas.height - my) recenter();
}

function zoom(factor) {
  saphira.view.scale = Math.min(2, Math.max(0.005, saphira.view.scale * factor));
  reportView();
  draw();
}

function reportView() {
  /* local: the server follows the robot itself (the centre and rotation change every frame) */
  send({ type: "view", scale: saphira.view.scale, cx: centre()[0], cy: centre()[1],
         rotation: -viewAngle() * 180 / Math.PI, width: canvas.width, height: canvas.height,
         local: saphira.view.local && saphira.hello && saphira.hello.mode !== "sim" ? 1 : 0 });
}

/* ------------------------------------------------------------------ drawing primitives (screen space) */
function line(x1, y1, x2, y2, color, width = 1, dashed = false) {
  const [a, b] = toScreen(x1, y1), [c, d] = toScreen(x2, y2);
  ctx.strokeStyle = color; ctx.lineWidth = width; ctx.setLineDash(dashed ? [6, 4] : []);
  ctx.beginPath(); ctx.moveTo(a, b); ctx.lineTo(c, d); ctx.stroke();
}

function polygon(points, stroke, fill = null, width = 1) {
  ctx.setLineDash([]);
  ctx.beginPath();
  points.forEach(([x, y], i) => { const [sx, sy] = toScreen(x, y); if (i) ctx.lineTo(sx, sy); else ctx.moveTo(sx, sy); });
  ctx.closePath();
  if (fill) { ctx.fillStyle = fill; ctx.fill(); }
  ctx.strokeStyle = stroke; ctx.lineWidth = width; ctx.stroke();
}

function square(x, y, size, color) {
  const [sx, sy] = toScreen(x, y);
  ctx.strokeStyle = color; ctx.lineWidth = 1; ctx.setLineDash([]);
  ctx.strokeRect(sx - size / 2, sy - size / 2, size, size);
}

function label(x, y, text, color) {
  const [sx, sy] = toScreen(x, y);
  ctx.fillStyle = color; ctx.font = "11px system-ui, sans-serif"; ctx.fillText(text, sx + 4, sy - 4);
}

/* a world's named goal [x, y, name]: a ring with its name below (the goal point's id label sits above) */
function drawGoal(g) {
  const [sx, sy] = toScreen(g[0], g[1]);
  ctx.strokeStyle = GOAL_COLOR; ctx.lineWidth = 2; ctx.setLineDash([]);
  ctx.beginPath(); ctx.arc(sx, sy, 7, 0, 2 * Math.PI); ctx.stroke();
  ctx.fillStyle = GOAL_COLOR; ctx.font = "bold 12px system-ui, sans-serif"; ctx.fillText(g[2], sx + 9, sy + 14);
}

/* points of a body frame (forward, left in mm) at pose (x, y, th deg) */
function bodyPoints(pose, pts) {
  const r = pose[2] * Math.PI / 180, c = Math.cos(r), s = Math.sin(r);
  return pts.map(([f, l]) => [pose[0] + c * f - s * l, pose[1] + s * f + c * l]);
}

/* ------------------------------------------------------------------ the LPS */
function draw() {
  const rect = canvas.getBoundingClientRect();
  if (canvas.width !== Math.round(rect.width) || canvas.height !== Math.round(rect.height)) {
    canvas.width = Math.round(rect.width); canvas.height = Math.round(rect.height);
    reportView();
  }
  followRobot();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = "#ffffff"; ctx.fillRect(0, 0, canvas.width, canvas.height);
  const hello = saphira.hello, f = saphira.frame;
  if (!hello) return;
  drawGrid();
  if (hello.display && hello.display.occgrid) drawOccGrid();
  for (const w of hello.walls) line(w[0], w[1], w[2], w[3], "#222", 2);
  for (const g of hello.goals || []) drawGoal(g);
  if (!f) return;
  const pal = hello.palette || {};
  if (hello.mode === "sim") { drawSim(f, pal); return; }
  if ($("wake").checked && f.wake.length > 1) {
    for (let i = 1; i < f.wake.length; i++) line(f.wake[i - 1][0], f.wake[i - 1][1], f.wake[i][0], f.wake[i][1], pal.wake, 2);
  }
  for (const a of f.artifacts) drawArtifact(a, pal.artifact);
  for (const p of f.buffers) square(p[0], p[1], 3, pal.sonar);
  for (const p of f.laser || []) square(p[0], p[1], 2, LASER_COLOR);
  for (const s of f.sonar) square(s[0], s[1], s[2] ? 7 : 6, pal.sonar);
  for (const t of f.truth) drawTruth(t);
  if (f.localization) drawLocalization(f.localization);
  drawRobot(f, pal.robot);
  for (const d of f.drawing) drawPrimitive(d);
}

function drawGrid() {
  /* a light 1 m grid, so scale and motion are readable */
  const step = saphira.view.scale > 0.02 ? 1000 : 5000;
  const corners = [toWorld(0, 0), toWorld(canvas.width, 0), toWorld(0, canvas.height), toWorld(canvas.width, canvas.height)];
  const xs = corners.map((p) => p[0]), ys = corners.map((p) => p[1]);
  const x0 = Math.floor(Math.min(...xs) / step) * step, x1 = Math.max(...xs);
  const y0 = Math.floor(Math.min(...ys) / step) * step, y1 = Math.max(...ys);
  if ((x1 - x0) / step > 400 || (y1 - y0) / step > 400) return;
  for (let x = x0; x <= x1; x += step) line(x, y0, x, y1, "#eeeeee");
  for (let y = y0; y <= y1; y += step) line(x0, y, x1, y, "#eeeeee");
}

/* ------------------------------------------------------------------ the occupancy grid (sfOCCGRID) */
const OCC_RGB = [72, 61, 139];  /* occupied cells: dark slate blue; free and unknown cells stay clear */

function receiveGrid(f) {
  /* a frame carries the grid's image only when it changed (and at most every few frames): keep it */
  const g = f.occgrid;
  saphira.gridFrames.push(f.cycle);
  if (saphira.gridFrames.length > 100) saphira.gridFrames.shift();
  if (!g.rows || !g.cols) { saphira.grid = null; return; }
  const bytes = atob(g.cells), image = new ImageData(g.cols, g.rows);
  for (let i = 0; i < g.rows; i++) {
    for (let j = 0; j < g.cols; j++) {
      const p = bytes.charCodeAt(i * g.cols + j), at = ((g.rows - 1 - i) * g.cols + j) * 4;  /* row 0 is south */
      image.data[at] = OCC_RGB[0]; image.data[at + 1] = OCC_RGB[1]; image.data[at + 2] = OCC_RGB[2];
      image.data[at + 3] = p >= 192 ? 255 : p > 140 ? 90 : 0;
    }
  }
  const off = document.createElement("canvas");
  off.width = g.cols; off.height = g.rows;
  off.getContext("2d").putImageData(image, 0, 0);
  saphira.grid = { origin: g.origin, resolution: g.resolution, rows: g.rows, cols: g.cols, canvas: off, cycle: f.cycle };
}

function drawOccGrid() {
  const g = saphira.grid;
  if (!g) return;
  const top = g.origin[1] + g.rows * g.resolution;
  const [ax, ay] = toScreen(g.origin[0], top);
  const [bx, by] = toScreen(g.origin[0] + g.resolution, top);
  const [cx, cy] = toScreen(g.origin[0], top - g.resolution);
  ctx.save();
  ctx.imageSmoothingEnabled = false;
  ctx.setTransform(bx - ax, by - ay, cx - ax, cy - ay, ax, ay);
  ctx.drawImage(g.canvas, 0, 0);
  ctx.restore();
}

function drawRobot(f, color) {
  const r = saphira.hello.robot, pose = f.pose, rad = r.radius;
  let body;
  if (r.holonomic) {
    const d = Math.max(0, Math.min(r.diagonal || rad * 0.4, rad));
    body = [[rad, d], [d, rad], [-d, rad], [-rad, d], [-rad, -d], [-d, -rad], [d, -rad], [rad, -d]];
  } else {
    const w = r.width / 2;
    body = [[r.front, w], [-r.rear, w], [-r.rear, -w], [r.front, -w]];
  }
  polygon(bodyPoints(pose, body), "#102030", color, 1.5);
  const nose = bodyPoints(pose, [[0, 0], [rad, 0]]);
  line(nose[0][0], nose[0][1], nose[1][0], nose[1][1], "#ffffff", 2);
  /* control point: where the server steers, an elongated box ahead of the robot */
  const ctrl = f.info.Ctrl * Math.PI / 180, reach = rad + 250;
  const cp = [pose[0] + reach * Math.cos(pose[2] * Math.PI / 180 + ctrl), pose[1] + reach * Math.sin(pose[2] * Math.PI / 180 + ctrl), pose[2] + f.info.Ctrl];
  polygon(bodyPoints(cp, [[60, 15], [-60, 15], [-60, -15], [60, -15]]), "#555");
  /* velocity vectors: translational along the heading, rotational to the side (1 s of motion) */
  const v = bodyPoints(pose, [[0, 0], [f.info.Tr, 0], [0, f.info.Rot * 10]]);
  line(v[0][0], v[0][1], v[1][0], v[1][1], "#2ca02c", 2);
  line(v[0][0], v[0][1], v[2][0], v[2][1], "#ff4500", 2);
}

function drawTruth(t) {
  /* the simulator's true pose, dashed: the gap to the icon is the odometry error */
  const rad = saphira.hello.robot ? saphira.hello.robot.radius : 250;
  const [sx, sy] = toScreen(t[1], t[2]);
  ctx.setLineDash([3, 3]); ctx.strokeStyle = "#888"; ctx.lineWidth = 1;
  ctx.beginPath(); ctx.arc(sx, sy, rad * saphira.view.scale, 0, 2 * Math.PI); ctx.stroke(); ctx.setLineDash([]);
}

function drawLocalization(loc) {
  /* Monte Carlo localization: each sample a short tick along its heading, the estimate a circle
     with its heading (solid once localized, dashed while still searching) */
  const ticks = 120;
  for (const [x, y, th] of loc.samples) {
    const r = th * Math.PI / 180;
    line(x, y, x + ticks * Math.cos(r), y + ticks * Math.sin(r), "#c07000", 1);
  }
  if (!loc.estimate) return;
  const [x, y, th] = loc.estimate, r = th * Math.PI / 180;
  const [sx, sy] = toScreen(x, y);
  if (!loc.localized) ctx.setLineDash([4, 3]);
  ctx.strokeStyle = "#c07000"; ctx.lineWidth = 2;
  ctx.beginPath(); ctx.arc(sx, sy, 150 * saphira.view.scale, 0, 2 * Math.PI); ctx.stroke(); ctx.setLineDash([]);
  line(x, y, x + 400 * Math.cos(r), y + 400 * Math.sin(r), "#c07000", 2);
}

function drawArtifact(a, color) {
  const [type, id, x, y, th, width, length] = a;
  const pose = [x, y, th];
  const tag = id ? ` ${id}` : "";
  if (type === ART.WALL) {
    const p = bodyPoints(pose, [[-length / 2, 0], [length / 2, 0]]);
    line(p[0][0], p[0][1], p[1][0], p[1][1], color, 3);
    label(x, y, "wall" + tag, color);
  } else if (type === ART.CORRIDOR || type === ART.LANE) {
    const p = bodyPoints(pose, [[-length / 2, width / 2], [length / 2, width / 2], [-length / 2, -width / 2], [length / 2, -width / 2]]);
    const dashed = type === ART.CORRIDOR;
    line(p[0][0], p[0][1], p[1][0], p[1][1], color, 2, dashed);
    line(p[2][0], p[2][1], p[3][0], p[3][1], color, 2, dashed);
    if (type === ART.LANE) {
      const arrow = bodyPoints(pose, [[0, 0], [200, 0], [150, 40], [150, -40]]);
      line(arrow[0][0], arrow[0][1], arrow[1][0], arrow[1][1], color, 1);
      line(arrow[1][0], arrow[1][1], arrow[2][0], arrow[2][1], color, 1);
      line(arrow[1][0], arrow[1][1], arrow[3][0], arrow[3][1], color, 1);
    }
    const at = type === ART.LANE ? bodyPoints(pose, [[length / 2, width / 2]])[0] : [x, y];
    label(at[0], at[1], (dashed ? "corridor" : "lane") + tag, color);
  } else if (type === ART.DOOR || type === ART.JUNCTION) {
    const p = bodyPoints(pose, [[0, width / 2], [0, -width / 2], [150, 0]]);
    line(p[0][0], p[0][1], p[1][0], p[1][1], color, 3, type === ART.JUNCTION);
    square(p[0][0], p[0][1], 6, color); square(p[1][0], p[1][1], 6, color);
    line(x, y, p[2][0], p[2][1], color, 1);
    label(x, y, (type === ART.DOOR ? "door" : "junction") + tag, color);
  } else if (type === ART.POS) {
    const p = bodyPoints(pose, [[-80, 0], [80, 0], [0, -80], [0, 80], [200, 0]]);
    line(p[0][0], p[0][1], p[1][0], p[1][1], color, 2);
    line(p[2][0], p[2][1], p[3][0], p[3][1], color, 2);
    line(x, y, p[4][0], p[4][1], color, 1, true);
    label(x, y, "goal" + tag, color);
  } else {
    const w = Math.max(width, 100) / 2, l = Math.max(length, 100) / 2;
    polygon(bodyPoints(pose, [[l, w], [-l, w], [-l, -w], [l, -w]]), color);
    label(x, y, `type ${type}${tag}`, color);
  }
}

function drawPrimitive(d) {
  const [kind, x1, y1, x2, y2, color, width, dashed] = d;
  if (kind === "v") { line(x1, y1, x2, y2, color, width, !!dashed); return; }
  const pts = [[x1, y1], [x2, y1], [x2, y2], [x1, y2]];
  ctx.setLineDash(dashed ? [6, 4] : []);
  ctx.beginPath();
  pts.forEach(([x, y], i) => { const [sx, sy] = toScreen(x, y); if (i) ctx.lineTo(sx, sy); else ctx.moveTo(sx, sy); });
  ctx.closePath(); ctx.strokeStyle = color; ctx.lineWidth = width; ctx.stroke(); ctx.setLineDash([]);
}

function drawSim(f, pal) {
  if ($("wake").checked) drawWakes(f, pal.wake || "#ff8c00");
  for (const r of f.robots) {
    const [name, x, y, th, radius] = r;
    const d = radius * 0.4;
    const body = [[radius, d], [d, radius], [-d, radius], [-radius, d], [-radius, -d], [-d, -radius], [d, -radius], [radius, -d]];
    polygon(bodyPoints([x, y, th], body), "#102030", pal.robot || "#4682b4", 1.5);
    const nose = bodyPoints([x, y, th], [[0, 0], [radius, 0]]);
    line(nose[0][0], nose[0][1], nose[1][0], nose[1][1], "#ffffff", 2);
    label(x + radius, y, name, "#102030");
  }
}

/* the simulator's Files and Connect menus (digest 10.3) and the Exit of both windows */
$("sim-load-params").addEventListener("click", () => send({ type: "load_params", robot: simRobot, name: $("sim-name").value }));
$("sim-load-world").addEventListener("click", () => send({ type: "load_world", name: $("sim-name").value }));
$("sim-disconnect").addEventListener("click", () => send({ type: "disconnect", robot: simRobot }));
$("sim-listen").addEventListener("click", () => send({ type: "listen", robot: simRobot, port: Number($("sim-port").value) }));
for (const button of document.querySelectorAll("button.exit")) button.addEventListener("click", () => send({ type: "exit" }));

function renderLines(lines) {
  const list = $("sim-lines");
  const key = JSON.stringify(lines);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.textContent = "";
  lines.forEach(([address, held], i) => {
    const li = document.createElement("li");
    li.textContent = `robot ${i + 1}: ${address} \u2014 ${held ? "client connected" : "listening"}`;
    list.appendChild(li);
  });
}

function drawWakes(f, color) {
  for (const w of f.wakes || []) {
    for (let i = 1; i < w.length; i++) line(w[i - 1][0], w[i - 1][1], w[i][0], w[i][1], color, 2);
  }
}

/* the Flat server's control panel (saphira sim --flat PORT --ui) */
for (const button of document.querySelectorAll("#flat-panel button")) {
  button.addEventListener("click", () => send({ type: "panel", command: button.dataset.command }));
}

/* ------------------------------------------------------------------ information area and windows */
function renderPanels(f) {
  const dl = $("info-fields");
  if (!dl.childElementCount) {
    for (const name of [...INFO_FIELDS, "cycle"]) {
      const dt = document.createElement("dt"); dt.textContent = name; dt.title = INFO_TITLES[name] || "";
      const dd = document.createElement("dd"); dd.id = "info-" + name;
      dl.append(dt, dd);
    }
  }
  for (const name of INFO_FIELDS) $("info-" + name).textContent = f.info[name] === undefined ? "" : String(f.info[name]);
  $("info-cycle").textContent = String(f.cycle);
  $("simline").textContent = f.info.connected ? "" : "not connected";
  const tasksKey = JSON.stringify(f.tasks);
  if (tasksKey !== lastTasksKey) { lastTasksKey = tasksKey; renderTasks(f.tasks); }
  const behKey = JSON.stringify([f.behaviors, f.summation, selectedBehavior]);
  if (behKey !== lastBehaviorsKey) { lastBehaviorsKey = behKey; renderBehaviors(f.behaviors, f.summation); }
}

let simRobot = 0;

function renderSimInfo(f) {
  const set = $("sim-robots");
  if (set.querySelectorAll("input").length !== f.robots.length) {
    set.querySelectorAll("label").forEach((l) => l.remove());
    f.robots.forEach((r, i) => {
      const label = document.createElement("label");
      const radio = document.createElement("input");
      radio.type = "radio"; radio.name = "sim-robot"; radio.value = String(i); radio.checked = i === simRobot;
      radio.addEventListener("change", () => { simRobot = i; });
      label.append(radio, " " + r[0]);
      set.appendChild(label);
    });
  }
  if (f.lines) renderLines(f.lines);
  $("sim-connect").hidden = !f.lines;
  if (f.flat) {
    const s = f.flat;
    $("flat-status").textContent = `${s.running ? "running" : "stopped"}${s.held ? ", holding a step" : ""}; ` +
      `step ${s.steps}; map ${s.map}; controller ${s.controller || "none"} (port ${s.address[1]})`;
  }
  $("simline").textContent = f.robots.map((r) => `${r[0]}: x ${(r[1] / 1000).toFixed(2)} m, y ${(r[2] / 1000).toFixed(2)} m, th ${r[3].toFixed(0)}°`).join(" \u2014 ");
}

function renderTasks(tasks) {
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.task : null;
  const fill = (list, rows) => {
    list.textContent = "";
    for (const [name, state, depth, kind] of rows) {
      const li = document.createElement("li");
      li.tabIndex = 0;
      li.dataset.task = name;
      li.dataset.state = state;
      li.className = state === "SUSPEND" || state.startsWith("suspended") ? "suspended" : state === "INTERRUPT" ? "interrupted" : "";
      const n = document.createElement("span"); n.textContent = "\u00a0".repeat(depth * 3) + name + (kind === "behavior" ? " (b)" : "");
      const s = document.createElement("span"); s.className = "state"; s.textContent = state;
      li.append(n, s);
      list.appendChild(li);
      if (name === focused) li.focus();
    }
  };
  fill($("processes"), tasks);
  fill($("activities"), tasks.filter((t) => t[3] !== "task"));
}

function taskAction(event) {
  const li = event.target.closest("li[data-task]");
  if (li) send({ type: "signal", task: li.dataset.task });
}
for (const id of ["processes", "activities"]) {
  $(id).addEventListener("dblclick", taskAction);
  $(id).addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); taskAction(e); } });
}

function bar(activity, value, channel) {
  /* a horizontal activity bar across a vertical axis; the direction bar shows the sign */
  const el = document.createElement("div"); el.className = "bar";
  const axis = document.createElement("div"); axis.className = "axis";
  const act = document.createElement("div"); act.className = "act"; act.style.width = `${Math.round(90 * activity)}px`;
  el.append(axis, act);
  if (value !== null && value !== undefined && value !== 0) {
    const dir = document.createElement("div"); dir.className = "dir";
    const scale = channel === "turn" ? Math.min(1, Math.abs(value) / 30) : Math.min(1, Math.abs(value) / 600);
    const w = Math.max(2, Math.round(45 * scale));
    const toLeft = channel === "turn" ? value > 0 : value < 0;
    dir.style.width = `${w}px`;
    dir.style.left = toLeft ? `${45 - w}px` : "45px";
    el.appendChild(dir);
  }
  return el;
}

let behaviorRows = "";  // the behaviors the table's rows stand for, in order

/* The rows are built when the behaviors change and updated in place every frame after that: a row
 * rebuilt between a press and its release would swallow the click that selects a behavior. */
function renderBehaviors(behaviors, summation) {
  const body = $("behaviors").tBodies[0];
  const names = JSON.stringify(behaviors.map((b) => b.name));
  if (names !== behaviorRows || body.rows.length !== behaviors.length + 2) {
    behaviorRows = names;
    buildBehaviorRows(body, behaviors);
  }
  behaviors.forEach((b, i) => {
    const cells = body.rows[i + 1].cells;
    cells[0].firstChild.className = "onoff" + (b.running ? " on" : "");
    cells[2].textContent = String(b.priority);
    const turn = b.rules.filter((r) => r[2] === "<" || r[2] === ">");
    const speed = b.rules.filter((r) => r[2] === "+" || r[2] === "-");
    cells[3].replaceChildren(bar(b.turn, weighted(turn), "turn"));
    cells[4].replaceChildren(bar(b.speed, weighted(speed), "speed"));
  });
  const sum = body.rows[behaviors.length + 1].cells;
  sum[3].textContent = summation[0] === null ? "-" : `${summation[0]}°`;
  sum[4].textContent = summation[1] === null ? "-" : `${summation[1]} mm/s`;
  const detail = $("behavior-detail");
  const b = behaviors.find((x) => x.name === selectedBehavior);
  detail.textContent = b ? behaviorDetail(b) : "";
}

function buildBehaviorRows(body, behaviors) {
  body.textContent = "";
  const head = body.insertRow();
  for (const h of ["", "behavior", "p", "turn", "speed"]) { const c = head.insertCell(); c.textContent = h; }
  for (const b of behaviors) {
    const row = body.insertRow();
    row.insertCell().appendChild(document.createElement("span"));
    const name = row.insertCell(); name.className = "name"; name.textContent = b.name; name.tabIndex = 0;
    name.addEventListener("click", () => { selectedBehavior = selectedBehavior === b.name ? null : b.name; lastBehaviorsKey = ""; });
    name.addEventListener("keydown", (e) => { if (e.key === "Enter") name.click(); });
    row.insertCell(); row.insertCell(); row.insertCell();
  }
  const sum = body.insertRow(); sum.className = "summation";
  sum.insertCell(); sum.insertCell().textContent = "Summation"; sum.insertCell(); sum.insertCell(); sum.insertCell();
}

function weighted(rules) {
  let num = 0, den = 0;
  for (const r of rules) { num += r[1] * r[3]; den += r[1]; }
  return den > 0 ? num / den : 0;
}

function behaviorDetail(b) {
  const lines = [b.name, ...b.params.map(([k, v]) => `  ${k} = ${v}`),
    `Running ${b.running ? "yes" : "no"}   Priority ${b.priority}`,
    `Act Turn ${b.turn.toFixed(2)}   Act Vel ${b.speed.toFixed(2)}`,
    `Goal ${b.goal.toFixed(2)}   Progress ${b.progress.toFixed(2)}`];
  for (const [name, truth, dir, value] of b.rules) lines.push(`  ${name.padEnd(18)} ${truth.toFixed(2)} ${dir} ${value}`);
  return lines.join("\n");
}

/* ------------------------------------------------------------------ interaction area */
function appendLines(lines) {
  const out = $("output");
  for (const text of lines) {
    const span = document.createElement("span");
    span.textContent = text + "\n";
    if (text.startsWith("colbert> ")) span.className = "in";
    else if (/^(error|<page \d+>:\d+:\d+|.*:\d+:\d+: )/.test(text)) span.className = "err";
    out.appendChild(span);
  }
  while (out.childNodes.length > 1000) out.removeChild(out.firstChild);
  out.scrollTop = out.scrollHeight;
}

$("prompt").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = $("input"), text = input.value;
  if (!text.trim()) return;
  history.push(text); historyAt = history.length;
  send({ type: "eval", text });
  input.value = "";
});

/* Files: start the command in the prompt; the user types the path and presses Enter */
for (const button of document.querySelectorAll("#prompt .fill")) {
  button.addEventListener("click", () => {
    const input = $("input"), text = button.dataset.text;
    input.value = text;
    input.focus();
    const at = text.length + Number(button.dataset.caret || 0);
    input.setSelectionRange(at, at);
  });
}

$("input").addEventListener("keydown", (e) => {
  if (e.key === "ArrowUp" && historyAt > 0) { historyAt -= 1; e.target.value = history[historyAt]; e.preventDefault(); }
  else if (e.key === "ArrowDown" && historyAt < history.length) { historyAt += 1; e.target.value = history[historyAt] || ""; e.preventDefault(); }
  e.stopPropagation();
});

/* ------------------------------------------------------------------ keyboard drive and mouse */
document.addEventListener("keydown", (e) => {
  /* the drive keys belong to the map (and the page when nothing has the focus), never to a control */
  if (e.target !== canvas && e.target !== document.body) return;
  if (e.key === "+" || e.key === "=") { zoom(1.25); return; }
  if (e.key === "-") { zoom(0.8); return; }
  if (saphira.hello === null || saphira.hello.mode === "sim" || saphira.hello.replay) return;
  /* every other key goes to the session's key hook too (a character or F1.., Escape ...); with Ctrl, Alt
     or Meta it stays the browser's (Ctrl+R reloads) */
  const hooked = HOOK_KEY.test(e.key) && !e.ctrlKey && !e.altKey && !e.metaKey;
  if (!DRIVE_KEYS.has(e.key) && !hooked) return;
  e.preventDefault();
  send({ type: "key", key: e.key });
});

canvas.addEventListener("wheel", (e) => { e.preventDefault(); zoom(e.deltaY < 0 ? 1.15 : 1 / 1.15); }, { passive: false });

let press = null;
canvas.addEventListener("mousedown", (e) => {
  canvas.focus();
  press = { x: e.offsetX, y: e.offsetY, button: e.button, shift: e.shiftKey, cx: saphira.view.cx, cy: saphira.view.cy, moved: false };
});
canvas.addEventListener("mousemove", (e) => {
  if (!press) return;
  const dx = e.offsetX - press.x, dy = e.offsetY - press.y;
  if (Math.abs(dx) + Math.abs(dy) > 4) press.moved = true;
  const panning = saphira.hello && (saphira.hello.mode !== "sim" || press.shift) && press.button === 0;
  if (press.moved && panning && !saphira.view.local) {
    saphira.view.follow = false; $("follow").checked = false;
    saphira.view.cx = press.cx - dx / saphira.view.scale;
    saphira.view.cy = press.cy + dy / saphira.view.scale;
    draw();
  }
});
canvas.addEventListener("mouseup", (e) => {
  if (!press) return;
  const p = press; press = null;
  const [wx, wy] = toWorld(p.x, p.y);
  if (p.button === 1) { saphira.view.cx = wx; saphira.view.cy = wy; saphira.view.follow = false; $("follow").checked = false; reportView(); draw(); return; }
  if (p.moved) reportView();  /* a pan moved the view: sfScreenToWorldX/Y follow it */
  if (saphira.hello && saphira.hello.mode === "sim" && p.button === 0 && !p.shift) {
    /* the manual's left button: put the robot here; dragging also turns it towards the release point */
    const [ex, ey] = toWorld(e.offsetX, e.offsetY);
    const th = p.moved ? Math.atan2(ey - wy, ex - wx) * 180 / Math.PI : null;
    send({ type: "place", robot: simRobot, x: wx, y: wy, th });
    return;
  }
  if (!p.moved) send({ type: "button", x: Math.round(p.x), y: Math.round(p.y), button: p.button + 1, mods: (e.shiftKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.altKey ? 4 : 0) });
});
window.addEventListener("resize", draw);

/* ------------------------------------------------------------------ replay (saphira replay REC --ui) */
/* The player's controls ask the server; what they show comes back in each frame's "replay". */
let sliding = false;

function renderReplay(r) {
  saphira.replay = r;
  const slider = $("replay-slider");
  slider.max = String(r.cycles);
  if (!sliding) slider.value = String(r.cycle);
  $("replay-play").textContent = r.playing ? "Pause" : "Play";
  $("replay-speed").value = String(r.speed);
  const seconds = (r.cycle * (saphira.hello.period || 0.1)).toFixed(1);
  $("replay-time").textContent = `cycle ${r.cycle} / ${r.cycles}  (${seconds} s)` + (r.behaviors ? "" : "  no behaviors recorded");
}

$("replay-play").addEventListener("click", () => {
  send({ type: "replay", action: saphira.replay && saphira.replay.playing ? "pause" : "play" });
});
$("replay-step").addEventListener("click", () => send({ type: "replay", action: "step" }));
$("replay-speed").addEventListener("change", (e) => send({ type: "replay", action: "speed", speed: Number(e.target.value) }));
$("replay-slider").addEventListener("input", () => { sliding = true; });
$("replay-slider").addEventListener("change", (e) => {
  sliding = false;
  send({ type: "replay", action: "seek", cycle: Number(e.target.value) });
});

setConnected(false);
connect();
