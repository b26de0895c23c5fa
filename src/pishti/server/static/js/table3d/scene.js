// The 3D table: a picture of the same state the 2D table shows, drawn with
// three.js.  It never decides anything about the game: every update redraws
// from the store's state (hand, pile, stock, pişti cards, taken cards, hand
// sizes), and a click on a card of your hand goes to the table screen's own
// play (the 2D table's path), so rules, turn checks and messages stay in one
// place.  The accessible page (the 2D table's buttons, names and live region)
// stays underneath: keyboard focus on a hand button lifts that card here.

import * as THREE from "../vendor/three/three.module.js";
import { isMyTurn, OUTCOME, teamOf } from "../state.js";
import { position } from "../ui/seats.js";
import { drawBack, drawFace, drawFelt, drawShade, drawWood } from "./textures.js";

/** Card size in scene units (a real card's proportions, 63 x 88 mm). */
const CARD_W = 1;
const CARD_H = 1.4;
const CARD_T = 0.016;
/** The felt, in scene units. */
const FELT_W = 15;
const FELT_D = 11;
const RIM = 0.9;
/** Where things lie on the felt (x right, z towards you). */
const PILE = new THREE.Vector3(0.9, 0, -0.15);
const STOCK = new THREE.Vector3(-1.6, 0, -0.25);
const YAW = { bottom: 0, right: Math.PI / 2, top: Math.PI, left: -Math.PI / 2 };
/** Milliseconds for a card to cover most of its way (an exponential ease). */
const EASE_MS = 110;
/** Squared distance (scene units) from its place at which a card is put there. */
const SNAP = 2e-3;
/** Frame intervals (ms): the aim, and (at the fewest pixels, SLOW_RUNS times running) too slow. */
const FRAME_MS = 33;
const SLOW_MS = 500;
const SLOW_RUNS = 3;
/** Animated frames between two looks at the frame time. */
const ADAPT_FRAMES = 20;
/** The fewest pixels drawn per CSS pixel. */
const MIN_RATIO = 0.5;

const UP = new THREE.Vector3(0, 1, 0);

/** Whether WebGL is drawn by the CPU (SwiftShader, llvmpipe): then the scene is kept cheaper. */
function softwareRenderer(gl) {
  const info = gl.getExtension("WEBGL_debug_renderer_info");
  const name = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : "";
  return /swiftshader|llvmpipe|softpipe|software/i.test(name);
}

/** Whether the player asked for less motion (the system's setting): then every card is put in its place at once. */
function reducedMotion() {
  return Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

function quat(x = 0, y = 0, z = 0) {
  return new THREE.Quaternion().setFromEuler(new THREE.Euler(x, y, z, "YXZ"));
}

/** A small steady angle (radians) from a key, so a card keeps its tilt between frames. */
function jitter(key, amount) {
  let hash = 0;
  for (const ch of key) hash = (hash * 31 + ch.charCodeAt(0)) | 0;
  return ((((hash >>> 0) % 1000) / 1000) * 2 - 1) * amount;
}

function roundedRect(w, h, r) {
  const s = new THREE.Shape();
  const x = -w / 2;
  const y = -h / 2;
  s.moveTo(x + r, y);
  s.lineTo(x + w - r, y);
  s.quadraticCurveTo(x + w, y, x + w, y + r);
  s.lineTo(x + w, y + h - r);
  s.quadraticCurveTo(x + w, y + h, x + w - r, y + h);
  s.lineTo(x + r, y + h);
  s.quadraticCurveTo(x, y + h, x, y + h - r);
  s.lineTo(x, y + r);
  s.quadraticCurveTo(x, y, x + r, y);
  return s;
}

/** A flat shape geometry lying face up, its UVs spanning w x h. */
function flatGeometry(shape, w, h) {
  const geo = new THREE.ShapeGeometry(shape, 4);
  const pos = geo.attributes.position;
  const uv = geo.attributes.uv;
  for (let i = 0; i < pos.count; i += 1) {
    uv.setXY(i, pos.getX(i) / w + 0.5, pos.getY(i) / h + 0.5);
  }
  geo.rotateX(-Math.PI / 2);
  return geo;
}

/**
 * The wooden rim around a felt of half sizes `hw` x `hd` with corner radius
 * `r`: a cushioned profile swept along the felt's edge, in small quads.
 */
function rimGeometry(hw, hd, r) {
  const contour = [];
  const corners = [
    [hw - r, hd - r],
    [-(hw - r), hd - r],
    [-(hw - r), -(hd - r)],
    [hw - r, -(hd - r)],
  ];
  const arcSteps = 8;
  const sideSteps = 10;
  corners.forEach(([cx, cz], k) => {
    const a0 = (k * Math.PI) / 2;
    for (let i = 0; i <= arcSteps; i += 1) {
      const a = a0 + ((i / arcSteps) * Math.PI) / 2;
      contour.push({ x: cx + r * Math.cos(a), z: cz + r * Math.sin(a), nx: Math.cos(a), nz: Math.sin(a) });
    }
    const end = contour[contour.length - 1];
    const [nx, nz] = corners[(k + 1) % 4];
    const na = ((k + 1) * Math.PI) / 2;
    const next = { x: nx + r * Math.cos(na), z: nz + r * Math.sin(na) };
    for (let i = 1; i < sideSteps; i += 1) {
      const f = i / sideSteps;
      contour.push({ x: end.x + (next.x - end.x) * f, z: end.z + (next.z - end.z) * f, nx: end.nx, nz: end.nz });
    }
  });
  // The profile: (distance out from the felt's edge, height).
  const profile = [
    [0, 0],
    [0, 0.14],
    [0.1, 0.26],
    [0.3, 0.34],
    [RIM * 0.6, 0.34],
    [RIM * 0.85, 0.28],
    [RIM, 0.14],
    [RIM, -0.5],
  ];
  const positions = [];
  const uvs = [];
  const index = [];
  const n = contour.length;
  for (let i = 0; i <= n; i += 1) {
    const c = contour[i % n];
    profile.forEach(([d, y], j) => {
      positions.push(c.x + c.nx * d, y, c.z + c.nz * d);
      uvs.push(i / n, j / (profile.length - 1));
    });
  }
  const m = profile.length;
  for (let i = 0; i < n; i += 1) {
    for (let j = 0; j < m - 1; j += 1) {
      const a = i * m + j;
      const b = (i + 1) * m + j;
      index.push(a, b, a + 1, b, b + 1, a + 1);
    }
  }
  const geo = new THREE.BufferGeometry();
  geo.setAttribute("position", new THREE.Float32BufferAttribute(positions, 3));
  geo.setAttribute("uv", new THREE.Float32BufferAttribute(uvs, 2));
  geo.setIndex(index);
  geo.computeVertexNormals();
  return geo;
}

export class TableScene {
  /**
   * `screen` is the table screen (its section, felt, seats and hand buttons);
   * `onSlow()` is called once when frames come too slowly for the 3D table.
   */
  constructor(screen, { onSlow } = {}) {
    this.screen = screen;
    this.onSlow = onSlow || (() => {});
    this.state = null;
    this.items = new Map(); // key -> {obj, pos, quat, scale, delay, dying}
    this.faceMaterials = new Map();
    this.frames = []; // intervals (ms) between animated frames
    this.recent = []; // the same, since the last change of resolution
    this.renders = 0; // frames drawn
    this.slowRuns = 0;
    this.last = null;
    this.hover = null;
    this.dirty = true;

    this.container = document.createElement("div");
    this.container.className = "scene3d";
    this.container.setAttribute("aria-hidden", "true");
    // Transparent: the room behind the table is the page's (css/table3d.css), no pixels to draw.
    this.renderer = new THREE.WebGLRenderer({ antialias: false, alpha: true, powerPreference: "high-performance" });
    this.renderer.setClearColor(0x000000, 0);
    this.software = softwareRenderer(this.renderer.getContext());
    // Full sharpness on a GPU; a software renderer draws fewer pixels and no shadows.
    this.maxRatio = Math.min(window.devicePixelRatio || 1, 2) * (this.software ? 0.75 : 1);
    this.ratio = this.maxRatio;
    this.renderer.setPixelRatio(this.ratio);
    this.renderer.outputColorSpace = THREE.SRGBColorSpace;
    this.renderer.shadowMap.enabled = !this.software;
    this.renderer.shadowMap.type = THREE.PCFShadowMap;
    this.canvas = this.renderer.domElement;
    this.canvas.className = "scene3d-canvas";
    this.container.append(this.canvas);

    this.scene = new THREE.Scene();
    this.camera = new THREE.PerspectiveCamera(38, 1, 0.5, 120);
    this.scene.add(this.camera);
    this.buildRoom();
    this.buildMaterials();

    this.raycaster = new THREE.Raycaster();
    this.pointer = null;
    this.onPointerMove = (e) => {
      this.pointer = { x: e.clientX, y: e.clientY };
      this.dirty = true;
    };
    this.onPointerLeave = () => {
      this.pointer = null;
      this.dirty = true;
    };
    this.onClick = (e) => {
      const card = this.cardAt(e.clientX, e.clientY);
      if (card) this.screen.playCard(card);
    };
    this.canvas.addEventListener("pointermove", this.onPointerMove);
    this.canvas.addEventListener("pointerleave", this.onPointerLeave);
    this.canvas.addEventListener("click", this.onClick);
    this.onFocus = () => {
      this.dirty = true;
      this.layout();
    };
    document.addEventListener("focusin", this.onFocus);
    document.addEventListener("focusout", this.onFocus);

    screen.section.prepend(this.container);
    screen.section.classList.add("view-3d");
    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(screen.section);
    this.resize();
    this.running = true;
    this.frame = (now) => this.tick(now);
    this.raf = requestAnimationFrame(this.frame);
  }

  destroy() {
    this.running = false;
    cancelAnimationFrame(this.raf);
    this.resizeObserver.disconnect();
    document.removeEventListener("focusin", this.onFocus);
    document.removeEventListener("focusout", this.onFocus);
    this.screen.section.classList.remove("view-3d");
    for (const el of Object.values(this.screen.seatEls || {})) {
      el.style.left = "";
      el.style.top = "";
    }
    this.container.remove();
    this.scene.traverse((obj) => {
      if (obj.geometry && !obj.geometry.userData.shared) obj.geometry.dispose();
    });
    for (const geo of Object.values(this.geo)) geo.dispose();
    for (const mat of this.faceMaterials.values()) {
      mat.map.dispose();
      mat.dispose();
    }
    this.renderer.dispose();
    this.renderer.forceContextLoss();
  }

  // ---- the room -------------------------------------------------------------

  buildRoom() {
    const hemi = new THREE.HemisphereLight("#fff4e0", "#1a2a1f", 1.5);
    this.scene.add(hemi);
    const lamp = new THREE.DirectionalLight("#ffe9c7", 2.2);
    lamp.position.set(-3, 14, 6);
    lamp.castShadow = true;
    lamp.shadow.mapSize.set(1024, 1024);
    const cam = lamp.shadow.camera;
    cam.left = -9;
    cam.right = 9;
    cam.top = 8;
    cam.bottom = -8;
    cam.near = 2;
    cam.far = 30;
    lamp.shadow.bias = -0.0008;
    lamp.shadow.radius = 3;
    this.scene.add(lamp);

    const feltTex = new THREE.CanvasTexture(drawFelt());
    feltTex.colorSpace = THREE.SRGBColorSpace;
    feltTex.anisotropy = this.software ? 1 : 4;
    if (this.software) {
      feltTex.generateMipmaps = false;
      feltTex.minFilter = THREE.LinearFilter;
    }
    // Felt and rim turn a quarter on a tall screen, so the table's long side runs away from you.
    this.table = new THREE.Group();
    this.scene.add(this.table);
    this.halfX = FELT_W / 2;
    this.halfZ = FELT_D / 2;
    // A grid, not a shape's fan of long thin triangles: a software renderer
    // pays for each triangle's whole bounding box on screen.
    const feltGeo = new THREE.PlaneGeometry(FELT_W, FELT_D, 15, 11);
    feltGeo.rotateX(-Math.PI / 2);
    // The lamp's light is painted into the felt (it covers most of the screen): no lighting to compute.
    const felt = new THREE.Mesh(feltGeo, new THREE.MeshBasicMaterial({ map: feltTex, alphaTest: 0.5 }));
    felt.receiveShadow = true;
    this.table.add(felt);

    const rimGeo = rimGeometry(FELT_W / 2, FELT_D / 2, 2.2);
    const woodTex = new THREE.CanvasTexture(drawWood());
    woodTex.colorSpace = THREE.SRGBColorSpace;
    woodTex.wrapS = THREE.RepeatWrapping;
    woodTex.wrapT = THREE.RepeatWrapping;
    woodTex.repeat.set(10, 1);
    const rim = new THREE.Mesh(rimGeo, new THREE.MeshLambertMaterial({ map: woodTex, side: THREE.DoubleSide }));
    rim.castShadow = true;
    rim.receiveShadow = true;
    this.table.add(rim);

  }

  buildMaterials() {
    const shape = roundedRect(CARD_W, CARD_H, 0.09);
    const shared = (geo) => {
      geo.userData.shared = true;
      return geo;
    };
    const body = new THREE.ExtrudeGeometry(shape, { depth: CARD_T, bevelEnabled: false, curveSegments: 3 });
    body.rotateX(-Math.PI / 2);
    body.translate(0, -CARD_T / 2, 0);
    // Faces and backs are plain quads; their pictures' transparent corners round them.
    const face = new THREE.PlaneGeometry(CARD_W, CARD_H);
    face.rotateX(-Math.PI / 2);
    face.translate(0, CARD_T / 2 + 0.001, 0);
    const back = new THREE.PlaneGeometry(CARD_W, CARD_H);
    back.rotateX(Math.PI / 2);
    back.translate(0, -CARD_T / 2 - 0.001, 0);
    const glow = flatGeometry(roundedRect(CARD_W + 0.12, CARD_H + 0.12, 0.14), CARD_W + 0.12, CARD_H + 0.12);
    glow.translate(0, -CARD_T / 2 - 0.004, 0);
    const shade = new THREE.PlaneGeometry(CARD_W * 1.3, CARD_H * 1.25);
    shade.rotateX(-Math.PI / 2);
    shade.translate(0.05, -CARD_T / 2 - 0.006, 0.07);
    const stack = new THREE.BoxGeometry(CARD_W * 0.98, 1, CARD_H * 0.98);
    stack.translate(0, 0.5, 0);
    this.geo = { body: shared(body), face: shared(face), back: shared(back), glow: shared(glow), shade: shared(shade), stack: shared(stack) };
    const backTex = new THREE.CanvasTexture(drawBack());
    backTex.colorSpace = THREE.SRGBColorSpace;
    backTex.anisotropy = this.software ? 1 : 4;
    this.mat = {
      // The body's edge only: its flat caps lie under the face and the back.
      bodySides: [new THREE.MeshBasicMaterial({ visible: false }), new THREE.MeshLambertMaterial({ color: "#e9e4d8" })],
      back: new THREE.MeshLambertMaterial({ map: backTex, alphaTest: 0.5 }),
      glow: new THREE.MeshBasicMaterial({ color: "#f6c945", transparent: true, opacity: 0.95 }),
      edges: new THREE.MeshLambertMaterial({ color: "#dcd6c8" }),
      // A soft shadow drawn once: cheaper than shadow maps where WebGL runs on the CPU.
      shade: new THREE.MeshBasicMaterial({ map: new THREE.CanvasTexture(drawShade()), transparent: true, depthWrite: false }),
    };
  }

  faceMaterial(card) {
    let mat = this.faceMaterials.get(card);
    if (!mat) {
      const tex = new THREE.CanvasTexture(drawFace(card));
      tex.colorSpace = THREE.SRGBColorSpace;
      tex.anisotropy = this.software ? 1 : 4;
      mat = new THREE.MeshLambertMaterial({ map: tex, alphaTest: 0.5 });
      this.faceMaterials.set(card, mat);
    }
    return mat;
  }

  /** A card: its face (when known) up, its back down; `glow` for the hand. */
  makeCard(card, glow = false) {
    const group = new THREE.Group();
    const body = new THREE.Mesh(this.geo.body, this.mat.bodySides);
    body.castShadow = true;
    const back = new THREE.Mesh(this.geo.back, this.mat.back);
    const face = new THREE.Mesh(this.geo.face, card ? this.faceMaterial(card) : this.mat.back);
    group.add(body, back, face);
    if (!glow && this.software) {
      const shade = new THREE.Mesh(this.geo.shade, this.mat.shade);
      shade.renderOrder = -1;
      group.add(shade);
    }
    if (glow) {
      const ring = new THREE.Mesh(this.geo.glow, this.mat.glow);
      ring.visible = false;
      group.add(ring);
      group.userData.glow = ring;
    }
    group.userData.card = card;
    return group;
  }

  /** A stack of face-down cards `count` high (the stock, a team's taken cards). */
  makeStack() {
    const group = new THREE.Group();
    const body = new THREE.Mesh(this.geo.stack, this.mat.edges);
    body.castShadow = true;
    body.receiveShadow = true;
    const top = this.makeCard(null);
    group.add(body, top);
    group.userData.body = body;
    group.userData.top = top;
    return group;
  }

  setStack(group, count) {
    const height = Math.max(0.001, count * CARD_T * 0.6);
    group.userData.body.scale.y = height;
    group.userData.top.position.y = height + CARD_T / 2;
    group.visible = count > 0;
  }

  // ---- size and camera ------------------------------------------------------

  resize() {
    const section = this.screen.section;
    const felt = this.screen.felt.getBoundingClientRect();
    const hand = this.screen.hand.parentElement.getBoundingClientRect();
    const box = section.getBoundingClientRect();
    if (!felt.width || !box.width) return;
    const left = Math.min(felt.left, hand.left) - box.left;
    const right = Math.max(felt.right, hand.right) - box.left;
    const top = felt.top - box.top;
    const bottom = Math.max(felt.bottom, hand.bottom) - box.top;
    const width = Math.max(1, Math.round(right - left));
    const height = Math.max(1, Math.round(bottom - top));
    Object.assign(this.container.style, { left: `${left}px`, top: `${top}px`, width: `${width}px`, height: `${height}px` });
    this.renderer.setSize(width, height, false);
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    this.fitCamera(width / height);
    this.layout();
    this.snap = true; // nothing slides in from where the old size put it
    this.dirty = true;
  }

  /** Aim from your chair: the whole felt in view, its far side a little below the top edge. */
  fitCamera(aspect) {
    const camera = this.camera;
    camera.aspect = aspect;
    camera.fov = aspect < 1 ? 46 : 36;
    camera.updateProjectionMatrix();
    const pitch = aspect < 0.8 ? 0.98 : aspect < 1.3 ? 0.9 : 0.82; // radians above the felt
    const target = new THREE.Vector3(0, 0, aspect < 1 ? 1.6 : 1.3);
    const tall = aspect < 0.85;
    this.table.rotation.y = tall ? Math.PI / 2 : 0;
    this.halfX = (tall ? FELT_D : FELT_W) / 2;
    this.halfZ = (tall ? FELT_W : FELT_D) / 2;
    const hw = this.halfX + RIM;
    const hd = this.halfZ + RIM;
    const corners = [
      [-hw, -hd],
      [hw, -hd],
      [-hw, hd],
      [hw, hd],
    ].map(([x, z]) => new THREE.Vector3(x, 0.2, z));
    let distance = 8;
    for (; distance < 80; distance += 0.25) {
      camera.position.set(0, Math.sin(pitch) * distance, Math.cos(pitch) * distance).add(target);
      camera.lookAt(target);
      camera.updateMatrixWorld();
      const fits = corners.every((c, i) => {
        const p = c.clone().project(camera);
        // The near corners may go under your hand and past the sides; the far ones stay in view.
        if (i >= 2) return Math.abs(p.x) <= 1.12 && p.y >= -1.25;
        return Math.abs(p.x) <= 0.97 && p.y <= 0.95;
      });
      if (fits) break;
    }
    this.distance = distance;
  }

  // ---- drawing the state ------------------------------------------------------

  /** Redraw from `state` (the store's), animating from what `effects` say happened. */
  update(state, effects = []) {
    this.state = state;
    this.effects = effects;
    this.layout();
    this.effects = [];
  }

  /** Where seat `seat` sits: "bottom", "right", "top", "left". */
  pos(seat) {
    const { table, seat: me } = this.state;
    return position(seat, me ?? 0, table.players);
  }

  /** A point in a seat's own frame (x to its right, z towards its chair) in the world. */
  seatPoint(seat, x, y, z) {
    return new THREE.Vector3(x, y, z).applyAxisAngle(UP, YAW[this.pos(seat)]);
  }

  /** How far the felt's edge is from the middle towards `seat`'s chair. */
  edge(seat) {
    const pos = this.pos(seat);
    return pos === "left" || pos === "right" ? this.halfX : this.halfZ;
  }

  /**
   * Where a team's things lie: its taken cards (a stack) and its pişti cards
   * (a row); yours in front of you, the other team's across the table.
   */
  side(ours) {
    const sign = ours ? 1 : -1;
    const x = this.halfX;
    const z = this.halfZ;
    return {
      taken: new THREE.Vector3(sign * (x - 2.2), 0, sign * (z - 2.1)),
      records: new THREE.Vector3(-sign * (x - 1.5), 0, sign * (z - 2.2)),
      step: sign * 0.75,
    };
  }

  layout() {
    const state = this.state;
    if (!state || !state.view || !state.table) return;
    const { view, table } = state;
    const me = state.seat ?? 0;
    const players = table.players;
    const myTeam = teamOf(me, players);
    const effects = this.effects || [];
    const played = effects.find((e) => e.kind === "played");
    const captured = effects.find((e) => e.kind === "captured");
    const dealt = effects.some((e) => e.kind === "dealt");
    const wanted = new Map(); // key -> {card, pos, quat, scale, glow, spawn}

    // Your hand: in front of you, tilted up to be read, like cards held in a hand.
    const focused = document.activeElement && document.activeElement.closest && document.activeElement.closest(".hand-card");
    const focusCard = focused ? focused.dataset.card : null;
    const myTurn = isMyTurn(state) && !state.seatLost;
    const canPlay = myTurn && !state.pending;
    const hoverCard = this.hover;
    const hand = this.handPlaces(view.hand.length);
    view.hand.forEach((card, i) => {
      const place = hand[i];
      const lift = card === focusCard || (canPlay && card === hoverCard) ? 0.22 * CARD_H : 0;
      const pos = place.pos.clone().add(place.up.clone().multiplyScalar(lift * place.scale));
      if (state.pending === card) pos.add(place.up.clone().multiplyScalar(0.6 * place.scale));
      wanted.set(`h:${card}`, {
        card,
        pos,
        quat: place.quat,
        scale: place.scale,
        glow: canPlay || card === focusCard,
        spawn: dealt ? "stock" : null,
        delay: dealt ? i * 70 : 0,
      });
    });

    // The other seats' hands: backs, held up towards their chairs (a spectator, at no
    // seat, sees the bottom seat's hand as backs too).
    for (let s = 0; s < players; s += 1) {
      if (s === state.seat) continue;
      const n = view.hand_sizes[s] ?? 0;
      for (let i = 0; i < n; i += 1) {
        const x = (i - (n - 1) / 2) * 0.62;
        const pos = this.seatPoint(s, x, 0.35 + i * 0.012, this.edge(s) - 1.2 + Math.abs(x) * 0.15);
        const q = quat(0, YAW[this.pos(s)], 0).multiply(quat(2.75, 0, 0)).multiply(quat(0, x * 0.18, 0));
        wanted.set(`o:${s}:${i}`, { card: null, pos, quat: q, scale: 1, spawn: dealt ? "stock" : null, delay: dealt ? 300 + i * 70 : 0 });
      }
    }

    // The pile: the three face-down cards under the first face-up one, then every card laid since.
    const pile = this.pileCards(view);
    pile.forEach((entry, i) => {
      const angle = jitter(entry.key, 0.35);
      const offset = entry.card ? new THREE.Vector3(jitter(entry.key + "x", 0.12), 0, jitter(entry.key + "z", 0.12)) : new THREE.Vector3((i - 1) * 0.22, 0, -0.18);
      const pos = PILE.clone().add(offset);
      pos.y = CARD_T / 2 + i * (CARD_T + 0.002);
      const q = entry.card ? quat(0, angle, 0) : quat(0, angle * 0.3, Math.PI);
      let spawn = null;
      if (played && i === pile.length - 1 && entry.card === played.card) spawn = { seat: played.seat, card: played.card };
      wanted.set(entry.key, { card: entry.card, pos, quat: q, scale: 1, spawn });
    });

    // Each team's pişti cards face up in front of it; its taken cards in a stack.
    for (const team of [0, 1]) {
      const side = this.side(team === myTeam);
      (view.pishti_cards[team] || []).forEach((card, i) => {
        const pos = side.records.clone();
        pos.x += side.step * Math.min(i, 5) * (team === myTeam ? 1 : 1);
        pos.y = CARD_T / 2 + i * 0.004;
        pos.z += i > 5 ? 0.3 : 0;
        wanted.set(`r:${view.deck}:${team}:${i}`, { card, pos, quat: quat(0, jitter(card, 0.12), 0), scale: 0.9 });
      });
    }
    // The three face-down cards, once your team has them: face up beside your stack.
    if (view.face_down && view.face_down.length) {
      view.face_down.forEach((card, i) => {
        const pos = this.side(true).taken.clone().add(new THREE.Vector3(-1.0 - i * 0.55, CARD_T / 2 + i * 0.004, 0.2));
        wanted.set(`f:${view.deck}:${i}`, { card, pos, quat: quat(0, 0.1, 0), scale: 0.8 });
      });
    }

    this.place(wanted, { played, captured, myTeam });
    this.drawStacks(view, myTeam);
    this.placeSeats();
    this.dirty = true;
  }

  /** The pile as keyed cards, bottom first: `{key, card}` (card null: face down). */
  pileCards(view) {
    const size = view.pile_size || 0;
    if (!size) return [];
    const history = view.history || [];
    let lastCapture = -1;
    history.forEach((p, i) => {
      if (p.outcome !== OUTCOME.LAID) lastCapture = i;
    });
    const laid = history.slice(lastCapture + 1).map((p, i) => ({ key: `p:${view.deck}:${lastCapture + 1 + i}`, card: p.card }));
    let cards = laid;
    if (lastCapture < 0 && view.face_up) {
      cards = [
        { key: `p:${view.deck}:d0`, card: null },
        { key: `p:${view.deck}:d1`, card: null },
        { key: `p:${view.deck}:d2`, card: null },
        { key: `p:${view.deck}:up`, card: view.face_up },
        ...laid,
      ];
    }
    if (cards.length === size && (!view.top_card || cards[cards.length - 1].card === view.top_card)) return cards;
    // What the history cannot tell (a record cut short): backs under the top card.
    const backs = [];
    for (let i = 0; i < Math.min(size - 1, 3); i += 1) backs.push({ key: `p:${view.deck}:b${i}`, card: null });
    return [...backs, { key: `p:${view.deck}:top:${view.top_card}`, card: view.top_card }];
  }

  /**
   * Places of your hand's `n` cards: in front of the camera, where the 2D
   * table's hand lies on screen (its buttons stay there for the keyboard).
   */
  handPlaces(n) {
    const camera = this.camera;
    camera.updateMatrixWorld();
    const depth = 6;
    const halfH = Math.tan(THREE.MathUtils.degToRad(camera.fov / 2)) * depth;
    const halfW = halfH * camera.aspect;
    const view = this.canvas.getBoundingClientRect();
    const box = this.screen.hand.getBoundingClientRect();
    // The hand's box in the camera's plane at `depth`.
    const toX = (x) => (((x - view.left) / view.width) * 2 - 1) * halfW;
    const toY = (y) => (1 - ((y - view.top) / view.height) * 2) * halfH;
    const boxH = box.height ? toY(box.top) - toY(box.bottom) : halfH * 0.5;
    const middleX = box.width ? (toX(box.left) + toX(box.right)) / 2 : 0;
    const scale = Math.max(0.05, Math.min((boxH * 0.74) / CARD_H, (halfW * 2 * 0.94) / (4 * 1.12)));
    const xs = Array.from({ length: n }, (_, i) => (i - (n - 1) / 2) * CARD_W * scale * 1.12);
    const drop = (x) => ((x * x) / scale) * 0.06; // the fan: outer cards a little lower
    let middleY = box.height ? (toY(box.top) + toY(box.bottom)) / 2 : -halfH * 0.7;
    // No card's lower edge under the scene's (a phone held sideways cut the outer cards).
    const lowest = Math.min(...xs.map((x) => middleY - drop(x))) - 0.5 * CARD_H * scale;
    middleY += Math.max(0, -halfH * 0.98 - lowest);
    const places = [];
    const tilt = quat(1.22, 0, 0); // lying back a little from facing you
    const up = new THREE.Vector3(0, 1, 0).applyQuaternion(camera.quaternion);
    for (const x of xs) {
      const local = new THREE.Vector3(middleX + x, middleY - drop(x), -depth);
      const fan = quat(0, 0, (-x * 0.05) / scale);
      const q = camera.quaternion.clone().multiply(fan).multiply(tilt);
      places.push({ pos: local.applyMatrix4(camera.matrixWorld), quat: q, scale, up });
    }
    return places;
  }

  /** Bring the keyed cards to their places: new ones come from where the effects say. */
  place(wanted, { captured, myTeam }) {
    const snap = this.snap || reducedMotion();
    this.snap = false;
    const gone = new Map(); // cards taken away now: a card played from your hand starts where it was
    for (const [key, item] of this.items) {
      if (wanted.has(key) || item.dying) continue;
      // A captured pile sweeps to the capturing team's stack; anything else just goes.
      if (captured && key.startsWith("p:") && !snap) {
        const side = this.side(captured.team === myTeam);
        item.pos = side.taken.clone().setY(0.4);
        item.quat = quat(0, 0, Math.PI);
        item.delay = 420;
        item.dying = true;
      } else {
        gone.set(key, item.obj);
        this.removeItem(key);
      }
    }
    for (const [key, want] of wanted) {
      let item = this.items.get(key);
      if (!item) {
        const obj = this.makeCard(want.card, key.startsWith("h:"));
        let start = want.pos;
        let startQuat = want.quat;
        let startScale = want.scale;
        if (!snap && want.spawn === "stock") {
          start = STOCK.clone().setY(0.5);
          startQuat = quat(0, 0, Math.PI);
          startScale = 1;
        } else if (!snap && want.spawn && want.spawn.seat !== undefined) {
          const mine = want.spawn.seat === (this.state.seat ?? 0);
          const from = mine ? gone.get(`h:${want.spawn.card}`) : null;
          if (from) {
            start = from.position.clone();
            startQuat = from.quaternion.clone();
            startScale = from.scale.x;
          } else {
            start = this.seatPoint(want.spawn.seat, 0, 0.9, this.edge(want.spawn.seat) - 0.9);
            startQuat = quat(0, YAW[this.pos(want.spawn.seat)], 0).multiply(quat(2.75, 0, 0));
          }
        }
        item = this.addItem(key, obj, start, startQuat, startScale);
        item.delay = snap ? 0 : want.delay || 0;
      }
      item.pos = want.pos;
      item.quat = want.quat;
      item.scale = want.scale;
      if (snap) this.settle(item);
      if (item.obj.userData.glow) item.obj.userData.glow.visible = Boolean(want.glow);
    }
  }

  addItem(key, obj, pos, q, scale) {
    obj.position.copy(pos);
    obj.quaternion.copy(q);
    obj.scale.setScalar(scale);
    this.scene.add(obj);
    const item = { key, obj, pos: pos.clone(), quat: q.clone(), scale, delay: 0, dying: false };
    this.items.set(key, item);
    return item;
  }

  removeItem(key) {
    const item = this.items.get(key);
    if (!item) return;
    this.scene.remove(item.obj);
    this.items.delete(key);
  }

  settle(item) {
    item.obj.position.copy(item.pos);
    item.obj.quaternion.copy(item.quat);
    item.obj.scale.setScalar(item.scale);
  }

  drawStacks(view, myTeam) {
    if (!this.stock) {
      this.stock = this.makeStack();
      this.stock.position.copy(STOCK);
      this.stock.rotation.y = 0.12;
      this.taken = [this.makeStack(), this.makeStack()];
      this.scene.add(this.stock, ...this.taken);
    }
    this.setStack(this.stock, view.stock_size || 0);
    for (const team of [0, 1]) {
      const stack = this.taken[team];
      stack.position.copy(this.side(team === myTeam).taken);
      stack.rotation.y = team === myTeam ? -0.2 : 0.15;
      this.setStack(stack, view.taken_counts[team] || 0);
    }
  }

  /** The avatars (the 2D table's, with their clock rings) over each seat's chair. */
  placeSeats() {
    const els = this.screen.seatEls || {};
    const felt = this.screen.felt.getBoundingClientRect();
    const rect = this.canvas.getBoundingClientRect();
    if (!rect.width || !this.state) return;
    const me = this.state.seat ?? 0;
    for (const [s, el] of Object.entries(els)) {
      const seat = Number(s);
      let world;
      if (seat === me) {
        world = this.seatPoint(seat, -this.halfX + 0.6, 0.4, this.halfZ + RIM * 0.4);
      } else {
        world = this.seatPoint(seat, 0, 0.6, this.edge(seat) + RIM + 0.2);
        // On a tall screen the side seats' names come inside the scene's narrow width,
        // over their own cards: they stand further up the table there instead.
        const pos = this.pos(seat);
        if (rect.height > rect.width && (pos === "left" || pos === "right")) world.z -= 3.4;
      }
      const p = this.toClient(world, rect);
      // Inside the scene whatever its size: the avatar and its name, whole.
      const halfW = el.offsetWidth / 2 + 4;
      const halfH = el.offsetHeight / 2 + 4;
      const x = Math.min(Math.max(p.x, rect.left + halfW), rect.right - halfW);
      const y = Math.min(Math.max(p.y, rect.top + halfH), rect.bottom - halfH);
      // From the felt's padding edge, where its absolute children start (inside its border).
      el.style.left = `${Math.round(x - felt.left - this.screen.felt.clientLeft)}px`;
      el.style.top = `${Math.round(y - felt.top - this.screen.felt.clientTop)}px`;
    }
  }

  toClient(world, rect = this.canvas.getBoundingClientRect()) {
    const p = world.clone().project(this.camera);
    return { x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height };
  }

  // ---- pointer ----------------------------------------------------------------

  /** The card of your hand under the client point (x, y), or null. */
  cardAt(x, y) {
    const rect = this.canvas.getBoundingClientRect();
    const ndc = new THREE.Vector2(((x - rect.left) / rect.width) * 2 - 1, -((y - rect.top) / rect.height) * 2 + 1);
    this.raycaster.setFromCamera(ndc, this.camera);
    const hands = [...this.items.values()].filter((i) => i.key.startsWith("h:") && !i.dying).map((i) => i.obj);
    const hit = this.raycaster.intersectObjects(hands, true)[0];
    if (!hit) return null;
    let obj = hit.object;
    while (obj && !obj.userData.card) obj = obj.parent;
    return obj ? obj.userData.card : null;
  }

  /**
   * Where a card lies on screen: the client point of the middle of your hand's
   * `card`, or of the pile's top card with `pile`.  Null when it is not drawn.
   */
  cardPoint(card) {
    const item = this.items.get(`h:${card}`);
    if (!item) return null;
    return this.toClient(item.obj.position);
  }

  /** The middle of the pile, in the world. */
  pileCenter() {
    return PILE.clone();
  }

  pilePoint() {
    const top = [...this.items.values()].filter((i) => i.key.startsWith("p:") && !i.dying).sort((a, b) => b.pos.y - a.pos.y)[0];
    if (!top) return null;
    return { ...this.toClient(top.obj.position), card: top.obj.userData.card };
  }

  /** Whether every card has reached its place (`hand`: every card of your hand). */
  settled(hand = false) {
    for (const item of this.items.values()) {
      if (hand && !item.key.startsWith("h:")) continue;
      if (item.delay > 0 || item.dying) return false;
      if (item.obj.position.distanceToSquared(item.pos) > SNAP) return false;
    }
    return true;
  }

  // ---- frames -------------------------------------------------------------------

  /**
   * Keep frames coming: fewer pixels while the median frame of the last
   * animated frames is over FRAME_MS, more again when well under it; at the
   * fewest pixels and still over SLOW_MS several times, the 3D table is too slow.
   */
  adapt() {
    const sorted = [...this.recent].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    this.recent = [];
    let ratio = this.ratio;
    if (median > FRAME_MS && ratio > MIN_RATIO) ratio = Math.max(MIN_RATIO, ratio * 0.8);
    else if (median < FRAME_MS / 2 && ratio < this.maxRatio) ratio = Math.min(this.maxRatio, ratio * 1.25);
    if (ratio !== this.ratio) {
      this.ratio = ratio;
      this.renderer.setPixelRatio(ratio);
      this.dirty = true;
      return;
    }
    this.slowRuns = median > SLOW_MS && ratio <= MIN_RATIO ? this.slowRuns + 1 : 0;
    if (this.slowRuns >= SLOW_RUNS) this.onSlow();
  }

  tick(now) {
    if (!this.running) return;
    this.raf = requestAnimationFrame(this.frame);
    const dt = this.last === null ? 16 : Math.min(100, now - this.last);
    const interval = this.last === null ? null : now - this.last;
    this.last = now;
    let moving = false;
    const k = 1 - Math.exp(-dt / EASE_MS);
    for (const [key, item] of this.items) {
      if (item.delay > 0) {
        item.delay -= dt;
        moving = true;
        continue;
      }
      const obj = item.obj;
      const far = obj.position.distanceToSquared(item.pos);
      if (far > 1e-6 || obj.quaternion.angleTo(item.quat) > 1e-3 || Math.abs(obj.scale.x - item.scale) > 1e-4) {
        obj.position.lerp(item.pos, k);
        obj.quaternion.slerp(item.quat, k);
        obj.scale.setScalar(obj.scale.x + (item.scale - obj.scale.x) * k);
        moving = true;
        if (far < SNAP && !item.dying) this.settle(item);
      } else if (item.dying) {
        this.removeItem(key);
      } else {
        this.settle(item);
      }
    }
    if (this.pointer) {
      const card = this.cardAt(this.pointer.x, this.pointer.y);
      this.canvas.style.cursor = card ? "pointer" : "";
      if (card !== this.hover) {
        this.hover = card;
        this.layout();
        moving = true;
      }
    }
    if (!moving && !this.dirty) {
      return;
    }
    this.dirty = false;
    this.renderer.render(this.scene, this.camera);
    this.renders += 1;
    if (moving && interval !== null) this.frames.push(interval);
    if (!moving) this.recent = [];
    if (this.frames.length > 2000) this.frames.splice(0, 1000);
    this.recent.push(interval ?? 16);
    if (moving && this.recent.length >= ADAPT_FRAMES) this.adapt();
  }
}
