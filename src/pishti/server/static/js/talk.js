// Table talk: voice and video between the persons seated at one table, peer to
// peer (WebRTC, a mesh of at most three peer connections).  The server only
// relays the signalling (docs/protocol.md, "Table talk"): `offer`, `answer` and
// `ice` to one seat, `media` (microphone and camera on or off) to every table
// mate, `hangup` when a seat's connection ends.
//
// Of two persons the lower seat offers, once either has something on; every
// peer connection carries audio and video both ways from the start, and turning
// one's own microphone or camera on or off only replaces a track (no new offer).
// What the person turned on is remembered for the table (sessionStorage), so a
// reload or a lost connection brings the media back by itself.

const CANDIDATE_BATCH_MS = 60;
const MAX_CANDIDATES = 8;
const RETRY_MS = [1000, 3000, 8000];
/** The level (0..1, RMS) above which a voice counts as speaking. */
const SPEAKING_LEVEL = 0.02;
const WISH_KEY = "pishti.talk.";

/** The plain message for a failed getUserMedia: its key in the i18n texts. */
export function mediaErrorKey(err, kind) {
  const name = err && err.name;
  if (name === "NotAllowedError" || name === "SecurityError") return "talk.denied";
  if (name === "NotFoundError" || name === "OverconstrainedError") {
    return kind === "cam" ? "talk.no_camera" : "talk.no_mic";
  }
  if (name === "NotReadableError" || name === "AbortError") return "talk.busy";
  return "talk.failed";
}

class Peer {
  constructor(seat) {
    this.seat = seat;
    this.pc = null;
    this.stream = new MediaStream();
    this.video = document.createElement("video");
    this.video.autoplay = true;
    this.video.playsInline = true;
    this.video.className = "talk-video";
    this.video.dataset.seat = String(seat);
    this.video.setAttribute("aria-hidden", "true");
    this.video.srcObject = this.stream;
    this.media = { mic: false, cam: false }; // as the peer said
    this.pending = []; // candidates that came before the offer
    this.outgoing = []; // our candidates waiting to go out in one `ice`
    this.flushTimer = null;
    this.retry = 0;
    this.retryTimer = null;
    this.unreachable = false;
    this.level = null; // an analyser of the peer's voice
  }
}

/** The signalling messages from table mates, and the method that takes each. */
const SIGNALS = new Map([
  ["media", "onMedia"],
  ["offer", "onOffer"],
  ["answer", "onAnswer"],
  ["ice", "onIce"],
]);

export class TableTalk {
  /**
   * `send(msg)` sends on the seat's socket (false when it is not open);
   * `changed()` asks the screen to draw again; `say(key, params)` shows a
   * plain message (an i18n key).
   */
  constructor(tableId, { send, changed, say }) {
    this.tableId = tableId;
    this.sendRaw = send;
    this.changed = changed;
    this.say = say;
    this.seat = null;
    this.iceServers = [];
    this.policy = "all";
    this.peers = new Map(); // seat -> Peer
    this.mutedByMe = new Set(); // seats this person muted for themselves
    this.local = { mic: null, cam: null }; // live MediaStreamTracks
    this.localStream = new MediaStream();
    this.localVideo = document.createElement("video");
    this.localVideo.autoplay = true;
    this.localVideo.muted = true; // one's own voice is never played back
    this.localVideo.playsInline = true;
    this.localVideo.className = "talk-video mine";
    this.localVideo.setAttribute("aria-hidden", "true");
    this.localVideo.srcObject = this.localStream;
    this.announced = false; // `media` said on this connection
    this.starting = null;
    this.speaking = new Set();
    this.gone = new Set(); // seats whose talk ended with their connection (a bot may take them)
    this.audio = null;
    this.localLevel = null;
    this.parking = document.getElementById("talk-parking") || document.body.appendChild(
      Object.assign(document.createElement("div"), { id: "talk-parking", hidden: true }),
    );
    this.levelTimer = setInterval(() => this.measure(), 150);
    // A browser may hold sound back until the person touches the page (after a
    // reload, with nothing of their own on): the first touch or key lets it play.
    this.onGesture = () => {
      if (this.audio && this.audio.state === "suspended") this.audio.resume().catch(() => {});
      for (const peer of this.peers.values()) peer.video.play().catch(() => {});
    };
    document.addEventListener("pointerdown", this.onGesture);
    document.addEventListener("keydown", this.onGesture);
  }

  // ---- the person's own microphone and camera ---------------------------------

  get mic() {
    return Boolean(this.local.mic);
  }

  get cam() {
    return Boolean(this.local.cam);
  }

  wish() {
    try {
      return JSON.parse(sessionStorage.getItem(WISH_KEY + this.tableId)) || { mic: false, cam: false };
    } catch {
      return { mic: false, cam: false };
    }
  }

  saveWish() {
    try {
      sessionStorage.setItem(WISH_KEY + this.tableId, JSON.stringify({ mic: this.mic, cam: this.cam }));
    } catch {
      // private mode: a reload starts with both off
    }
  }

  /** Turn the microphone ("mic") or camera ("cam") on or off; the browser asks for permission then. */
  async toggle(kind) {
    if (this.local[kind]) this.stopLocal(kind);
    else await this.startLocal(kind);
    this.saveWish();
    this.afterLocalChange();
  }

  async startLocal(kind) {
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia(
        kind === "mic" ? { audio: { echoCancellation: true, noiseSuppression: true } } : { video: { width: 320, height: 240, frameRate: 15 } },
      );
    } catch (err) {
      this.say(mediaErrorKey(err, kind));
      return false;
    }
    const track = kind === "mic" ? stream.getAudioTracks()[0] : stream.getVideoTracks()[0];
    if (!track) return false;
    if (this.local[kind]) this.local[kind].stop();
    this.local[kind] = track;
    this.localStream.addTrack(track);
    track.addEventListener("ended", () => {
      // The device went away (unplugged, taken by another application).
      if (this.local[kind] !== track) return;
      this.stopLocal(kind);
      this.saveWish();
      this.afterLocalChange();
    });
    if (kind === "mic") this.localLevel = this.analyser(new MediaStream([track]));
    return true;
  }

  stopLocal(kind) {
    const track = this.local[kind];
    if (!track) return;
    this.local[kind] = null;
    this.localStream.removeTrack(track);
    track.stop(); // the camera's light goes out
    if (kind === "mic") this.localLevel = null;
  }

  afterLocalChange() {
    for (const peer of this.peers.values()) this.attachTracks(peer);
    this.announce();
    for (const peer of this.peers.values()) this.ensure(peer);
    this.changed();
  }

  /** Mute (or unmute) the person at `seat` for oneself only. */
  toggleMute(seat) {
    if (this.mutedByMe.has(seat)) this.mutedByMe.delete(seat);
    else this.mutedByMe.add(seat);
    const peer = this.peers.get(seat);
    if (peer) peer.video.muted = this.mutedByMe.has(seat);
    this.changed();
  }

  // ---- messages from the server -------------------------------------------------

  /** Take the table talk's messages (true when `msg` was one of them). */
  handle(msg) {
    const signal = SIGNALS.get(msg.type);
    if (signal) {
      this[signal](msg);
      return true;
    }
    switch (msg.type) {
      case "welcome":
        this.welcome(msg);
        return false; // the store takes the welcome too
      case "hangup":
        this.drop(msg.seat);
        this.changed();
        return true;
      case "error":
        // A refusal of our own signalling (a peer that just left: no_peer) says nothing to the player.
        return ["offer", "answer", "ice", "media"].includes(msg.ref);
      default:
        return false;
    }
  }

  /** A new connection: every peer connection of the old one is gone (the server hung them up). */
  welcome(msg) {
    this.seat = msg.seat;
    this.iceServers = Array.isArray(msg.ice_servers) ? msg.ice_servers : [];
    this.policy = msg.ice_transport_policy === "relay" ? "relay" : "all";
    for (const seat of [...this.peers.keys()]) this.drop(seat);
    this.announced = false;
    if (this.seat === null || this.seat === undefined) return;
    const wish = this.wish();
    if ((wish.mic && !this.mic) || (wish.cam && !this.cam)) {
      // Back after a reload or a lost connection: what was on comes back by itself.
      this.starting = (async () => {
        if (wish.mic && !this.mic) await this.startLocal("mic");
        if (wish.cam && !this.cam) await this.startLocal("cam");
        this.starting = null;
        this.saveWish();
        this.afterLocalChange();
      })();
    } else if (this.mic || this.cam) {
      this.announce();
    }
    this.changed();
  }

  announce() {
    if (this.seat === null || this.seat === undefined) return;
    if (this.sendRaw({ type: "media", mic: this.mic, cam: this.cam })) this.announced = true;
  }

  peer(seat) {
    let peer = this.peers.get(seat);
    if (!peer) {
      peer = new Peer(seat);
      peer.video.muted = this.mutedByMe.has(seat);
      this.parking.append(peer.video);
      this.peers.set(seat, peer);
    }
    return peer;
  }

  onMedia(msg) {
    if (msg.seat === this.seat) return;
    this.gone.delete(msg.seat);
    const peer = this.peer(msg.seat);
    peer.media = { mic: Boolean(msg.mic), cam: Boolean(msg.cam) };
    // A table mate we have not told about ourselves on this connection: they
    // learn we are here (the lower seat of two offers).
    if (!this.announced && !this.starting) this.announce();
    this.ensure(peer);
    this.changed();
  }

  /** Make the peer connection to `peer` when it is ours to offer and anyone has something on. */
  ensure(peer) {
    if (peer.pc || this.seat === null || peer.seat < this.seat) return;
    if (!(this.mic || this.cam || peer.media.mic || peer.media.cam)) return;
    this.offer(peer);
  }

  newConnection(peer) {
    const pc = new RTCPeerConnection({ iceServers: this.iceServers, iceTransportPolicy: this.policy });
    peer.pc = pc;
    peer.stream.getTracks().forEach((track) => peer.stream.removeTrack(track));
    pc.addEventListener("icecandidate", (e) => {
      if (peer.pc !== pc || !e.candidate || !e.candidate.candidate) return;
      peer.outgoing.push({ candidate: e.candidate.candidate, mid: e.candidate.sdpMid, mline: e.candidate.sdpMLineIndex });
      if (!peer.flushTimer) peer.flushTimer = setTimeout(() => this.flush(peer), CANDIDATE_BATCH_MS);
    });
    pc.addEventListener("track", (e) => {
      if (peer.pc !== pc) return;
      peer.stream.addTrack(e.track);
      if (e.track.kind === "audio") peer.level = this.analyser(new MediaStream([e.track]));
      peer.video.play().catch(() => {});
    });
    pc.addEventListener("connectionstatechange", () => {
      if (peer.pc !== pc) return;
      const state = pc.connectionState;
      if (state === "connected") {
        peer.retry = 0;
        if (peer.unreachable) {
          peer.unreachable = false;
          this.changed();
        }
      } else if (state === "failed") {
        this.failed(peer);
      }
    });
    return pc;
  }

  flush(peer) {
    peer.flushTimer = null;
    while (peer.outgoing.length) {
      const candidates = peer.outgoing.splice(0, MAX_CANDIDATES);
      this.sendRaw({ type: "ice", to: peer.seat, candidates });
    }
  }

  /** Put our live tracks (or none) on the peer connection's senders. */
  attachTracks(peer) {
    if (!peer.pc) return;
    for (const transceiver of peer.pc.getTransceivers()) {
      const kind = transceiver.receiver.track && transceiver.receiver.track.kind;
      if (transceiver.currentDirection === "stopped" || !kind) continue;
      const track = kind === "audio" ? this.local.mic : this.local.cam;
      transceiver.sender.replaceTrack(track).catch(() => {});
    }
  }

  async offer(peer) {
    const pc = this.newConnection(peer);
    pc.addTransceiver("audio", { direction: "sendrecv" });
    pc.addTransceiver("video", { direction: "sendrecv" });
    this.attachTracks(peer);
    try {
      await pc.setLocalDescription(await pc.createOffer());
      if (peer.pc !== pc) return;
      this.sendRaw({ type: "offer", to: peer.seat, sdp: pc.localDescription.sdp });
    } catch (err) {
      console.warn("pishti: an offer failed", err);
      this.failed(peer);
    }
  }

  async onOffer(msg) {
    if (msg.from === this.seat) return;
    const peer = this.peer(msg.from);
    this.closeConnection(peer); // a new offer replaces the old connection (a reload, a restart)
    const pc = this.newConnection(peer);
    try {
      await pc.setRemoteDescription({ type: "offer", sdp: msg.sdp });
      for (const transceiver of pc.getTransceivers()) transceiver.direction = "sendrecv";
      this.attachTracks(peer);
      await pc.setLocalDescription(await pc.createAnswer());
      if (peer.pc !== pc) return;
      this.sendRaw({ type: "answer", to: peer.seat, sdp: pc.localDescription.sdp });
      await this.addPending(peer, pc);
    } catch (err) {
      console.warn("pishti: an answer failed", err);
    }
    this.changed();
  }

  async onAnswer(msg) {
    const peer = this.peers.get(msg.from);
    const pc = peer && peer.pc;
    if (!pc || pc.signalingState !== "have-local-offer") return;
    try {
      await pc.setRemoteDescription({ type: "answer", sdp: msg.sdp });
      await this.addPending(peer, pc);
    } catch (err) {
      console.warn("pishti: an answer could not be taken", err);
    }
  }

  async onIce(msg) {
    const peer = this.peer(msg.from);
    peer.pending.push(...msg.candidates);
    if (peer.pc && peer.pc.remoteDescription) await this.addPending(peer, peer.pc);
  }

  async addPending(peer, pc) {
    const list = peer.pending.splice(0);
    for (const c of list) {
      try {
        await pc.addIceCandidate({ candidate: c.candidate, sdpMid: c.mid, sdpMLineIndex: c.mline });
      } catch {
        // a candidate of an older connection
      }
    }
  }

  /** A peer connection failed: the player is told; the offering side tries again a few times. */
  failed(peer) {
    this.closeConnection(peer);
    peer.retry += 1;
    if (!peer.unreachable) {
      peer.unreachable = true;
      this.say("talk.unreachable", { seat: peer.seat });
      this.changed();
    }
    if (peer.retry > RETRY_MS.length || peer.seat < this.seat) return; // the lower seat offers again
    clearTimeout(peer.retryTimer);
    peer.retryTimer = setTimeout(() => this.ensure(peer), RETRY_MS[peer.retry - 1]);
  }

  closeConnection(peer) {
    clearTimeout(peer.flushTimer);
    clearTimeout(peer.retryTimer);
    peer.flushTimer = null;
    peer.outgoing = [];
    if (peer.pc) {
      const pc = peer.pc;
      peer.pc = null;
      pc.close();
    }
    peer.stream.getTracks().forEach((track) => peer.stream.removeTrack(track));
    peer.level = null;
  }

  /** The seat's connection ended: its media with it. */
  drop(seat) {
    const peer = this.peers.get(seat);
    if (!peer) return;
    this.closeConnection(peer);
    peer.pending = [];
    peer.video.remove();
    this.peers.delete(seat);
    this.gone.add(seat);
    this.speaking.delete(seat);
  }

  // ---- what the screen shows -------------------------------------------------------

  /** The talk's state of `seat` for the screen: camera and microphone on, muted by me, speaking, unreachable. */
  seatState(seat) {
    if (seat === this.seat) {
      return { mine: true, cam: this.cam, mic: this.mic, speaking: this.speaking.has(seat), video: this.localVideo };
    }
    const peer = this.peers.get(seat);
    if (!peer) return null;
    return {
      mine: false,
      cam: peer.media.cam,
      mic: peer.media.mic,
      muted: this.mutedByMe.has(seat),
      speaking: this.speaking.has(seat),
      unreachable: peer.unreachable,
      connected: Boolean(peer.pc && peer.pc.connectionState === "connected"),
      video: peer.video,
    };
  }

  /** Put each video back where it plays unseen (a screen without avatars). */
  park() {
    this.parking.append(this.localVideo);
    for (const peer of this.peers.values()) this.parking.append(peer.video);
  }

  /** A seat went to a bot (R7.4, R7.5): its media ends, and the player is told. */
  seatTakenOver(seat) {
    if (!this.peers.has(seat) && !this.gone.has(seat)) return false;
    this.drop(seat);
    this.gone.delete(seat);
    this.changed();
    return true;
  }

  // ---- the speaking indicator ------------------------------------------------------

  analyser(stream) {
    try {
      if (!this.audio) this.audio = new AudioContext();
      if (this.audio.state === "suspended") this.audio.resume().catch(() => {});
      const node = this.audio.createAnalyser();
      node.fftSize = 512;
      this.audio.createMediaStreamSource(stream).connect(node);
      return { node, data: new Float32Array(node.fftSize) };
    } catch {
      return null;
    }
  }

  measure() {
    const now = new Set();
    const loud = (level) => {
      if (!level) return false;
      level.node.getFloatTimeDomainData(level.data);
      let sum = 0;
      for (const v of level.data) sum += v * v;
      return Math.sqrt(sum / level.data.length) > SPEAKING_LEVEL;
    };
    if (this.mic && loud(this.localLevel)) now.add(this.seat);
    for (const peer of this.peers.values()) {
      if (peer.media.mic && loud(peer.level)) now.add(peer.seat);
    }
    const same = now.size === this.speaking.size && [...now].every((s) => this.speaking.has(s));
    if (same) return;
    this.speaking = now;
    this.changed("speaking");
  }

  /** Figures for tests and the benchmark: each peer connection's state and inbound bytes. */
  async stats() {
    const out = {};
    for (const [seat, peer] of this.peers) {
      const entry = { state: peer.pc ? peer.pc.connectionState : "none", audio: 0, video: 0, frames: 0 };
      if (peer.pc) {
        const report = await peer.pc.getStats();
        report.forEach((s) => {
          if (s.type === "inbound-rtp" && (s.kind === "audio" || s.kind === "video")) {
            entry[s.kind] += s.bytesReceived || 0;
            if (s.kind === "video") entry.frames += s.framesDecoded || 0;
          }
        });
      }
      out[seat] = entry;
    }
    return out;
  }

  /** Stop for good (leaving the table): every track and connection. */
  stop() {
    clearInterval(this.levelTimer);
    document.removeEventListener("pointerdown", this.onGesture);
    document.removeEventListener("keydown", this.onGesture);
    for (const seat of [...this.peers.keys()]) this.drop(seat);
    this.stopLocal("mic");
    this.stopLocal("cam");
    this.localVideo.remove();
    if (this.audio) this.audio.close().catch(() => {});
  }
}
