// The service worker: keeps a copy of the client's files so the app opens
// quickly and installs; every request still goes to the server first, so the
// game (the API and the table's WebSocket) always stays online and a new
// version of the client is used as soon as it is served.

const CACHE = "pishti-client-v1";
const FILES = [
  "/",
  "/static/css/base.css",
  "/static/css/start.css",
  "/static/css/lobby.css",
  "/static/css/table.css",
  "/static/css/count.css",
  "/static/css/layout.css",
  "/static/css/replay.css",
  "/static/css/me.css",
  "/static/css/table3d.css",
  "/static/js/main.js",
  "/static/js/app.js",
  "/static/js/api.js",
  "/static/js/cards.js",
  "/static/js/i18n.js",
  "/static/js/socket.js",
  "/static/js/state.js",
  "/static/js/storage.js",
  "/static/js/fair.js",
  "/static/js/screens/start.js",
  "/static/js/screens/lobby.js",
  "/static/js/screens/table.js",
  "/static/js/screens/end.js",
  "/static/js/screens/howto.js",
  "/static/js/screens/replay.js",
  "/static/js/screens/me.js",
  "/static/js/screens/leaderboard.js",
  "/static/js/replay/record.js",
  "/static/js/replay/analysis.js",
  "/static/js/ui/clock.js",
  "/static/js/ui/countTable.js",
  "/static/js/ui/dom.js",
  "/static/js/ui/effects.js",
  "/static/js/ui/errors.js",
  "/static/js/ui/reactions.js",
  "/static/js/ui/seats.js",
  "/static/js/ui/sound.js",
  "/static/js/table3d/switch.js",
  "/static/i18n/en.json",
  "/static/i18n/tr.json",
  "/static/icons/icon.svg",
  "/static/icons/icon-192.png",
  "/static/icons/icon-512.png",
  "/manifest.webmanifest",
];
// The 3D table's files (three.js is 2 MB): cached when the 3D table is first
// opened (the fetch handler below keeps every client file it serves), so a
// player who stays in 2D never downloads them.
const WHEN_USED = [
  "/static/js/table3d/scene.js",
  "/static/js/table3d/textures.js",
  "/static/js/vendor/three/three.module.js",
  "/static/js/vendor/three/three.core.js",
  "/static/js/vendor/three/LICENSE",
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

function clientFile(url) {
  if (url.origin !== self.location.origin) return false;
  return url.pathname.startsWith("/static/") || url.pathname === "/manifest.webmanifest";
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  const page = request.mode === "navigate";
  if (!page && !clientFile(url)) return; // the API, records and the WebSocket: always the server
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok && !page) {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(request, copy));
        }
        return response;
      })
      .catch(() => caches.match(page ? "/" : request).then((hit) => hit || Response.error())),
  );
});
