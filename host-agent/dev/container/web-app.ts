// The dev container's web app at `/`, in the shapes Jupyter and ComfyUI have: a page that loads a
// script and a stylesheet by a relative URL and by a root-absolute one, calls an API of its own with
// fetch, sets and reads its own cookies (one by script, one by the server, HttpOnly), and opens a
// WebSocket (`/ws`). The page shows each result in an element of its own, for a browser test to read.
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendJson } from "./json-io.ts";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Dev container app</title>
<link rel="stylesheet" href="app/relative.css">
<link rel="stylesheet" href="/app/absolute.css">
</head>
<body>
<h1>Dev container app</h1>
<div id="probe-relative"></div><div id="probe-absolute"></div>
<dl>
<dt>relative script</dt><dd id="relative-script">not loaded</dd>
<dt>root-absolute script</dt><dd id="absolute-script">not loaded</dd>
<dt>relative stylesheet</dt><dd id="relative-style">not loaded</dd>
<dt>root-absolute stylesheet</dt><dd id="absolute-style">not loaded</dd>
<dt>fetch</dt><dd id="fetch">waiting</dd>
<dt>cookie the server received</dt><dd id="cookie">waiting</dd>
<dt>cookie the script reads</dt><dd id="document-cookie">waiting</dd>
<dt>WebSocket</dt><dd id="websocket">waiting</dd>
</dl>
<script src="app/relative.js"></script>
<script src="/app/absolute.js"></script>
<script src="app/main.js"></script>
</body>
</html>
`;

const MAIN = `const show = (id, text) => { document.getElementById(id).textContent = text; };
const probe = (id) => getComputedStyle(document.getElementById(id)).width;
show("relative-style", probe("probe-relative") === "17px" ? "loaded" : "not loaded");
show("absolute-style", probe("probe-absolute") === "23px" ? "loaded" : "not loaded");
fetch("app/api?from=fetch", { headers: { accept: "application/json" } })
  .then((response) => response.json())
  .then((body) => show("fetch", body.ok ? "ok " + body.method + " " + body.path : "failed " + JSON.stringify(body)))
  .catch((error) => show("fetch", "failed " + error));
document.cookie = "dev_app=js; path=/; SameSite=Lax";
fetch("/app/cookie")
  .then(() => fetch("/app/cookie"))
  .then((response) => response.json())
  .then((body) => { show("cookie", body.cookie); show("document-cookie", document.cookie); })
  .catch((error) => show("cookie", "failed " + error));
const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
socket.onopen = () => socket.send("hello app");
socket.onmessage = (event) => { show("websocket", "echo: " + event.data); socket.close(); };
socket.onerror = () => show("websocket", "failed");
`;

const FILES: Record<string, { type: string; body: string }> = {
  "/app/relative.js": { type: "text/javascript", body: 'document.getElementById("relative-script").textContent = "loaded";\n' },
  "/app/absolute.js": { type: "text/javascript", body: 'document.getElementById("absolute-script").textContent = "loaded";\n' },
  "/app/main.js": { type: "text/javascript", body: MAIN },
  "/app/relative.css": { type: "text/css", body: "#probe-relative { width: 17px; }\n" },
  "/app/absolute.css": { type: "text/css", body: "#probe-absolute { width: 23px; }\n" },
};

/** Answers the web app's routes (GET only); false for any other request. */
export function serveWebApp(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (req.method !== "GET") return false;
  if (path === "/") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(PAGE);
    return true;
  }
  const file = FILES[path];
  if (file) {
    res.writeHead(200, { "content-type": `${file.type}; charset=utf-8` });
    res.end(file.body);
    return true;
  }
  if (path === "/app/api") {
    sendJson(res, 200, { ok: true, method: req.method, path });
    return true;
  }
  if (path === "/app/cookie") {
    // What the server was sent, and a cookie of its own the script cannot read.
    res.setHeader("set-cookie", "dev_app_server=1; Path=/; HttpOnly; SameSite=Lax");
    sendJson(res, 200, { cookie: req.headers.cookie ?? "" });
    return true;
  }
  return false;
}
