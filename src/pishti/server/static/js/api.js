// The table server's HTTP API (docs/protocol.md, "HTTP").

import * as storage from "./storage.js";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

/** How many times a request answered `503 other_node` is sent: with several nodes
 * (docs/deploy.md) a table is played on another node for a moment (a failover, or the
 * table moving to the node its requests reach); the page asks again after
 * `Retry-After`, as it reconnects its socket, rather than show an error. */
const OTHER_NODE_TRIES = 15;

async function call(method, path, body, extraHeaders = {}, tries = 1) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...extraHeaders },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, "network", String(err));
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    if (response.status === 503 && error.code === "other_node" && tries < OTHER_NODE_TRIES) {
      const wait = Number(response.headers.get("Retry-After")) || 1;
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      return call(method, path, body, extraHeaders, tries + 1);
    }
    throw new ApiError(response.status, error.code || "http", error.message || response.statusText);
  }
  return data;
}

/** Create a table; the creator owns it and sits at seat 0. */
export function createTable({ name, players, target, tempo }) {
  return call("POST", "/api/tables", withIdentity({ name, players, target, tempo }));
}

function withIdentity(body) {
  const key = storage.identity();
  return key ? { ...body, identity: key } : body;
}

function identityHeader() {
  return { "X-Pishti-Identity": storage.identity() || "" };
}

/** This browser's history, figures and rating (404 before its first match). */
export function getMe() {
  return call("GET", "/api/me", undefined, identityHeader());
}

/** Delete this browser's identity and history on the server. */
export function deleteMe() {
  return call("DELETE", "/api/me", undefined, identityHeader());
}

/** Every finished match of this browser as JSON lines (R10 records), as a Blob. */
export async function exportMe() {
  const response = await fetch("/api/me/export", { headers: identityHeader() });
  if (!response.ok) throw new ApiError(response.status, "http", response.statusText);
  return response.blob();
}

/** The leaderboard: bot levels and people with at least `min` matches. */
export function getLeaderboard(min = 3) {
  return call("GET", `/api/leaderboard?min_matches=${encodeURIComponent(min)}`);
}

/** The public lobby of a table. */
export function getTable(tableId) {
  return call("GET", `/api/tables/${encodeURIComponent(tableId)}`);
}

/** Take a seat (`seat` null: any free seat). */
export function joinTable(tableId, name, seat = null) {
  return call("POST", `/api/tables/${encodeURIComponent(tableId)}/join`, withIdentity({ name, seat }));
}

/** Where the finished match's record (R10) is downloaded from. */
export function recordUrl(tableId) {
  return `/api/tables/${encodeURIComponent(tableId)}/record`;
}

/** The record (R10) of finished match `number` (from 1) of a table; 409 while it is played. */
export function getRecord(tableId, number) {
  return call("GET", `${recordUrl(tableId)}?match=${encodeURIComponent(number)}`);
}

/** The expert's analysis of finished match `number`: `{status: "done", analysis}`, its
 * place (`queued`, `running`), or `{status: "not_requested"}` before anyone asked. */
export function getAnalysis(tableId, number) {
  return call("GET", `/api/tables/${encodeURIComponent(tableId)}/analysis?match=${encodeURIComponent(number)}`);
}

/** Ask the server for the analysis of finished match `number` (answers as getAnalysis). */
export function requestAnalysis(tableId, number) {
  return call("POST", `/api/tables/${encodeURIComponent(tableId)}/analysis?match=${encodeURIComponent(number)}`);
}

/** Ask for the analysis of a record file (its JSON value, docs/protocol.md): answers as
 * getAnalysis, with `id` to follow it by (getRecordAnalysis). */
export function requestRecordAnalysis(record) {
  return call("POST", "/api/analysis", record);
}

/** The analysis of a record file asked for with requestRecordAnalysis. */
export function getRecordAnalysis(id) {
  return call("GET", `/api/analysis/${encodeURIComponent(id)}`);
}

/** The replay page of finished match `number` of a table. */
export function replayPath(tableId, number) {
  return `/r/${encodeURIComponent(tableId)}/${number}`;
}

/** The table id in an invite link, a table path or a bare id; null if none. */
export function tableIdFrom(text) {
  const value = String(text || "").trim();
  if (!value) return null;
  const match = value.match(/\/t\/([A-Za-z0-9_-]+)/);
  if (match) return match[1];
  return /^[A-Za-z0-9_-]+$/.test(value) ? value : null;
}
